#!/usr/bin/env python3
"""Draws paper 003's Figures 1-3 (docs/pbg.md) as SVG from `cellsafe pareto` JSON reports.

Each panel plots one pair of objectives: the exact front (every minimal PBG, grey rings)
and the archive of one PBG-EA run (blue dots). Standard library only. Regenerate with

    for c in k-glm k-l-glm sk-glm sk-sl-glm k-glm-cm; do
      cellsafe pareto docs/pbg/$c.toml --exhaustive --quiet --seed 0 --report docs/pbg/reports/$c-0.json
    done
    python3 docs/pbg/figures.py docs/pbg/reports 0

which writes docs/pbg/fig1-k-glm.svg, fig1-k-l-glm.svg, fig2-sk-glm.svg,
fig2-sk-sl-glm.svg and fig3-k-glm-cm.svg beside this script.
"""
import itertools
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIGURES = [("fig1", "k-glm"), ("fig1", "k-l-glm"), ("fig2", "sk-glm"),
           ("fig2", "sk-sl-glm"), ("fig3", "k-glm-cm")]
W, H = 300, 260          # one panel
ML, MR, MT, MB = 62, 12, 28, 42


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def fmt(v):
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e5 or a < 1e-2:
        e = int(math.floor(math.log10(a)))
        m = v / 10 ** e
        return f"1e{e}" if abs(m - 1) < 1e-9 else f"{m:.3g}e{e}"
    return f"{v:.6g}"


class Axis:
    def __init__(self, values, lo_px, hi_px):
        pos = [v for v in values if v > 0]
        self.lo_px, self.hi_px = lo_px, hi_px
        vmin, vmax = min(values), max(values)
        # log only when every value is positive (a 0, e.g. GLM of the ungeneralized node,
        # has no place on a log axis)
        self.log = vmin > 0 and vmax / vmin > 100
        if self.log:
            self.a = math.floor(math.log10(min(pos)))
            self.b = math.ceil(math.log10(max(pos)))
            if self.b == self.a:
                self.b += 1
        else:
            pad = (vmax - vmin) * 0.05 or 1
            self.a, self.b = vmin - pad, vmax + pad

    def __call__(self, v):
        if self.log:
            t = (math.log10(v) if v > 0 else self.a) - self.a
            t /= self.b - self.a
        else:
            t = (v - self.a) / (self.b - self.a)
        return self.lo_px + t * (self.hi_px - self.lo_px)

    def ticks(self):
        if self.log:
            step = max(1, (self.b - self.a) // 5)
            return [10.0 ** e for e in range(self.a, self.b + 1, step)]
        span = self.b - self.a
        step = 10 ** math.floor(math.log10(span / 4))
        for m in (1, 2, 5, 10):
            if span / (step * m) <= 6:
                step *= m
                break
        first = math.ceil(self.a / step) * step
        return [first + i * step for i in range(int((self.b - first) / step) + 1)]


def panel(x0, y0, xs_name, ys_name, exact, archive):
    out = []
    ax = Axis([p[xs_name] for p in exact + archive], x0 + ML, x0 + W - MR)
    ay = Axis([p[ys_name] for p in exact + archive], y0 + H - MB, y0 + MT)
    out.append(f'<rect x="{x0 + ML}" y="{y0 + MT}" width="{W - ML - MR}" '
               f'height="{H - MT - MB}" fill="none" stroke="#444"/>')
    for t in ax.ticks():
        px = ax(t)
        out.append(f'<line x1="{px:.1f}" y1="{y0 + H - MB}" x2="{px:.1f}" '
                   f'y2="{y0 + H - MB + 4}" stroke="#444"/>')
        out.append(f'<text x="{px:.1f}" y="{y0 + H - MB + 15}" text-anchor="middle">'
                   f'{fmt(t)}</text>')
    for t in ay.ticks():
        py = ay(t)
        out.append(f'<line x1="{x0 + ML - 4}" y1="{py:.1f}" x2="{x0 + ML}" '
                   f'y2="{py:.1f}" stroke="#444"/>')
        out.append(f'<text x="{x0 + ML - 6}" y="{py + 4:.1f}" text-anchor="end">'
                   f'{fmt(t)}</text>')
    xl = xs_name + (" (log)" if ax.log else "")
    yl = ys_name + (" (log)" if ay.log else "")
    out.append(f'<text x="{x0 + (ML + W - MR) / 2}" y="{y0 + H - 8}" '
               f'text-anchor="middle">{esc(xl)}</text>')
    out.append(f'<text transform="translate({x0 + 14},{y0 + (MT + H - MB) / 2}) '
               f'rotate(-90)" text-anchor="middle">{esc(yl)}</text>')
    for p in exact:
        out.append(f'<circle cx="{ax(p[xs_name]):.1f}" cy="{ay(p[ys_name]):.1f}" r="4.5" '
                   f'fill="none" stroke="#999" stroke-width="1.2"/>')
    for p in archive:
        out.append(f'<circle cx="{ax(p[xs_name]):.1f}" cy="{ay(p[ys_name]):.1f}" r="2.2" '
                   f'fill="#1f5fbf"/>')
    return out


def figure(report, title, command):
    names = [o["name"] for o in report["objectives"]]
    dirs = {o["name"]: o["direction"] for o in report["objectives"]}
    exact = [n["values"] for n in report["exact"]["front"]]
    archive = [n["values"] for n in report["front"]]
    pairs = list(itertools.combinations(names, 2))
    width, top = max(W * len(pairs), 600), 30
    height = top + H + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="8" y="15" font-size="13">{esc(title)}</text>',
           f'<text x="8" y="30" font-family="monospace">{esc(command)}</text>']
    for i, (a, b) in enumerate(pairs):
        out += panel(W * i, top, a, b, exact, archive)
    line1 = (f"grey rings: exact front ({len(exact)} minimal PBGs); blue dots: PBG-EA "
             f"archive ({len(archive)}), seed {report['seed']}")
    line2 = ", ".join(f"{n} {'max' if dirs[n] == 'maximize' else 'min'}imized"
                      for n in names)
    out.append(f'<text x="8" y="{height - 20}">{esc(line1)}</text>')
    out.append(f'<text x="8" y="{height - 6}">{esc(line2)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "reports")
    seed = sys.argv[2] if len(sys.argv) > 2 else "0"
    for fig, name in FIGURES:
        report = json.load(open(os.path.join(src, f"{name}-{seed}.json")))
        title = f"Paper 003 {fig.replace('fig', 'Figure ')}: {name}, cellsafe"
        command = f"cellsafe pareto docs/pbg/{name}.toml --exhaustive --seed {seed}"
        with open(os.path.join(HERE, f"{fig}-{name}.svg"), "w") as f:
            f.write(figure(report, title, command))


if __name__ == "__main__":
    main()
