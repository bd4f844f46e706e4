#!/usr/bin/env python3
"""Runs paper 003's table rows (the configs beside this script) for seeds 0-19 with
`cellsafe pareto --exhaustive` and prints the table of docs/pbg.md.

    python3 docs/pbg/run.py [CELLSAFE] [REPORT_DIR]

CELLSAFE defaults to `cellsafe` on the PATH, REPORT_DIR to /tmp/pbg-reports (one JSON
report per row and seed: REPORT_DIR/<row>-<seed>.json). Standard library only.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, HERE)
from make_configs import ROWS  # noqa: E402

SEEDS = range(20)


def moments(x):
    m = sum(x) / len(x)
    return m, sum((v - m) ** 2 for v in x) / len(x)


def main():
    exe = sys.argv[1] if len(sys.argv) > 1 else "cellsafe"
    out = sys.argv[2] if len(sys.argv) > 2 else "/tmp/pbg-reports"
    os.makedirs(out, exist_ok=True)
    summary = {}
    for name in ROWS:
        runs = []
        for seed in SEEDS:
            path = os.path.join(out, f"{name}-{seed}.json")
            if not os.path.exists(path):
                subprocess.run([exe, "pareto", f"docs/pbg/{name}.toml", "--exhaustive",
                                "--quiet", "--seed", str(seed), "--report", path],
                               cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
            r = json.load(open(path))
            e = r["exact"]
            runs.append({"seed": seed, "archive": len(r["front"]),
                         "ce_sum": e["convergence_error"],
                         "ce_mean": e["convergence_error"] / max(1, len(r["front"])),
                         "rr": e["representation_ratio"],
                         "evaluations": r["nodes_evaluated"],
                         "ea_seconds": r["seconds"], "exact_seconds": e["seconds"],
                         "exact_front": len(e["front"]), "lattice": r["lattice_size"]})
        summary[name] = runs
        row = [name, runs[0]["lattice"], runs[0]["exact_front"]]
        for key in ("archive", "ce_sum", "ce_mean", "rr", "evaluations"):
            m, v = moments([x[key] for x in runs])
            row.append(f"{m:.3g} / {v:.2g}")
        row.append(f"{sorted(x['ea_seconds'] for x in runs)[10] * 1000:.0f}")
        print("| " + " | ".join(str(c) for c in row) + " |", flush=True)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
