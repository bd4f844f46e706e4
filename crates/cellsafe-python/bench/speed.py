"""Speed of the Python package, side by side, in one run on this machine.

1. Adult (30,162 rows, 8 quasi-identifiers with the bundled hierarchies, occupation
   sensitive), k = 5, suppression limit 0.01, metric "loss", fixed seed, one thread:
   the wall time of ``cs.anonymize(pandas_frame, ...)`` (the frame loaded once, before
   timing) against the library's own time for the same job, measured inside the library
   (the report's ``seconds``: reading the Arrow table handed over, encode, search,
   release, making the Arrow release, audit) and against its core alone (encode + search
   + release + audit), and against the CLI (``cellsafe anonymize job.toml``, the same job
   as TOML: its process wall time and its report's timings). Runs interleaved
   (A B A B ...). Then where the Python call's time goes, measured piece by piece.
2. Mondrian k-anonymity: anonypy (PyPI, pure Python on pandas) against
   ``cs.mondrian(...)`` on the same frame, the same quasi-identifiers (no hierarchies:
   age numeric, the others categorical), occupation sensitive, the same k. Interleaved.

Nothing is hard-coded: every figure printed is measured by this run.

usage: python3 bench/speed.py [--rounds N] [--anonypy-rounds N] [--rows N] [--k K]
       [--cli PATH]
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import os
import pathlib
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

import pandas as pd
import pyarrow as pa

import cellsafe as cs
from cellsafe import _cellsafe

ROOT = pathlib.Path(__file__).resolve().parents[3]
ADULT = ROOT / "examples" / "adult"
QIS = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "salary-class",
]
SENSITIVE = "occupation"
SEED = 20260101


def cpu() -> str:
    names = []
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    names.append(line.split(":", 1)[1].strip())
    except OSError:
        pass
    if not names:
        return platform.processor() or "unknown"
    distinct = sorted(set(names))
    return f"{', '.join(distinct)} ({len(names)} logical CPUs, os.cpu_count()={os.cpu_count()})"


def git_head() -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def med(xs):
    return statistics.median(xs)


def ms(x: float) -> str:
    return f"{x * 1000:.1f} ms"


def sec(x: float) -> str:
    return f"{x:.2f} s" if x >= 1 else ms(x)


def row(label: str, xs, fmt=ms) -> str:
    return f"| {label} | {fmt(med(xs))} | {fmt(min(xs))} | {fmt(max(xs))} | {len(xs)} |"


def core(timings: dict) -> float:
    """What the library does on data in memory: encode + search + release + audit."""
    return timings["encode"] + timings["search"] + timings["release"] + timings["audit"]


def adult_keys(k: int) -> dict:
    return dict(
        quasi_identifiers={q: ADULT / f"adult_hierarchy_{q}.csv" for q in QIS},
        sensitive=[SENSITIVE],
        models=[cs.KAnonymity(k)],
        suppression_limit=0.01,
        metric="loss",
        seed=SEED,
        hierarchy_delimiter=";",
        threads=1,
    )


def timed(f, *a, **kw):
    t = time.perf_counter()
    out = f(*a, **kw)
    return time.perf_counter() - t, out


# --------------------------------------------------------------------------- part 1


def part1(args, tmp: pathlib.Path) -> dict:
    frame = pd.read_csv(ADULT / "adult.csv", sep=";")  # loaded once, before timing
    keys = adult_keys(args.k)
    job = cs.job(**keys)
    toml = tmp / "job.toml"
    toml.write_text(job.to_toml(path=str(ADULT / "adult.csv"), delimiter=";"))
    out, rep = tmp / "out.csv", tmp / "r.json"
    cli_cmd = [str(args.cli), "anonymize", str(toml), "--output", str(out), "--report",
               str(rep), "--quiet"]

    def run_py():
        w, release = timed(cs.anonymize, frame, **keys)
        return w, release

    def run_cli():
        t = time.perf_counter()
        done = subprocess.run(cli_cmd, capture_output=True, text=True)
        w = time.perf_counter() - t
        if done.returncode != 0:
            sys.exit(f"the CLI failed ({done.returncode}): {done.stderr}")
        return w, json.loads(rep.read_text())

    # one warm-up of each (page cache, first imports), not counted
    _, release = run_py()
    _, cli_report = run_cli()
    same = (release.levels == cli_report["levels"]
            and release.suppressed_rows == cli_report["suppressed_rows"]
            and release.report["classes"] == cli_report["classes"])
    levels = release.levels

    r = {k: [] for k in ("py_wall", "py_core", "py_seconds", "py_write",
                         "cli_wall", "cli_core", "cli_seconds", "cli_read", "cli_write",
                         "pair_lib", "pair_cli", "pair_seconds", "pair_wall")}
    for _ in range(args.rounds):
        w, release = run_py()                           # A
        t = release.report["timings"]
        r["py_wall"].append(w)
        r["py_core"].append(core(t))
        r["py_seconds"].append(release.report["seconds"])
        r["py_write"].append(t["write"])
        cw, crep = run_cli()                            # B
        ct = crep["timings"]
        r["cli_wall"].append(cw)
        r["cli_core"].append(core(ct))
        r["cli_seconds"].append(crep["seconds"])
        r["cli_read"].append(ct["read"])
        r["cli_write"].append(ct["write"])
        r["pair_lib"].append(w / core(t))
        r["pair_cli"].append(w / core(ct))
        r["pair_seconds"].append(w / release.report["seconds"])
        r["pair_wall"].append(w / cw)
        del release

    # where the time of cs.anonymize(pandas) goes, piece by piece (interleaved too)
    table = cs._arrow_of(frame)
    config = json.dumps(job.keys)
    b = {k: [] for k in ("to_arrow", "raw", "raw_seconds", "outside", "to_pandas",
                         "py_arrow", "py_pandas")
         + PHASES}
    for _ in range(args.rounds):
        b["to_arrow"].append(timed(cs._arrow_of, frame)[0])
        w, (report, out_table) = timed(
            _cellsafe.anonymize, config, table, "bench", "pyarrow.Table", None)
        rr = json.loads(report)
        b["raw"].append(w)
        b["raw_seconds"].append(rr["seconds"])
        b["outside"].append(w - rr["seconds"])
        for phase in PHASES:
            b[phase].append(rr["timings"][phase])
        b["to_pandas"].append(timed(cs._pandas_from, out_table)[0])
        b["py_arrow"].append(timed(cs.anonymize, table, **keys)[0])
        b["py_pandas"].append(timed(cs.anonymize, frame, **keys)[0])
    return {"r": r, "b": b, "same": same, "cli_cmd": cli_cmd, "levels": levels}


PHASES = ("read", "encode", "search", "release", "write", "audit")


# --------------------------------------------------------------------------- part 2


def part2(args) -> dict:
    from anonypy import anonypy

    frame = pd.read_csv(ADULT / "adult.csv", sep=";")
    if args.rows:
        frame = frame.iloc[: args.rows].reset_index(drop=True)
    # anonypy tells categorical from numeric columns by the pandas dtype "category"
    for c in QIS + [SENSITIVE]:
        if c != "age":
            frame[c] = frame[c].astype("category")

    def run_cs(threads):
        return timed(
            cs.mondrian, frame, quasi_identifiers={q: None for q in QIS},
            sensitive=[SENSITIVE], models=[cs.KAnonymity(args.k)], seed=SEED,
            threads=threads,
        )

    def run_anonypy():
        return timed(
            lambda: anonypy.Preserver(frame, QIS, SENSITIVE).anonymize_k_anonymity(args.k))

    run_cs(1)  # warm-up (cellsafe only: an anonypy run takes tens of seconds)
    r = {k: [] for k in ("cs1", "cs_all", "anonypy", "pair1", "pair_all", "cs1_core",
                         "cs1_seconds")}
    groups_cs = groups_any = covered = None
    for _ in range(args.anonypy_rounds):
        w1, rel = run_cs(1)
        wa, _ = run_cs(0)
        wp, rows = run_anonypy()
        r["cs1"].append(w1)
        r["cs1_core"].append(core(rel.report["timings"]))
        r["cs1_seconds"].append(rel.report["seconds"])
        r["cs_all"].append(wa)
        r["anonypy"].append(wp)
        r["pair1"].append(wp / w1)
        r["pair_all"].append(wp / wa)
        groups_cs = (rel.report.get("local") or {}).get("groups")
        groups_any = len({tuple(str(x[q]) for q in QIS) for x in rows})
        covered = sum(x["count"] for x in rows)
    return {"r": r, "rows": len(frame), "groups_cs": groups_cs, "groups_any": groups_any,
            "covered": covered}


# --------------------------------------------------------------------------- main


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=15, help="part 1 rounds (default 15)")
    p.add_argument("--anonypy-rounds", type=int, default=3, help="part 2 rounds (default 3)")
    p.add_argument("--rows", type=int, default=0, help="part 2: first N rows (0: all)")
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--cli", type=pathlib.Path, default=ROOT / "target" / "release" / "cellsafe")
    p.add_argument("--skip-anonypy", action="store_true")
    args = p.parse_args()
    if not args.cli.exists():
        sys.exit(f"{args.cli} is missing: cargo build --release")

    started = time.perf_counter()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="cellsafe-bench-") as tmp:
        one = part1(args, pathlib.Path(tmp))
    two = None if args.skip_anonypy else part2(args)
    total = time.perf_counter() - started

    print("# cellsafe Python package: speed\n")
    print(f"- command: `{' '.join(shlex.quote(a) for a in [sys.executable] + sys.argv)}`")
    print(f"- date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}")
    print(f"- CPU: {cpu()}")
    print(f"- Python {platform.python_version()}, pandas {pd.__version__}, pyarrow "
          f"{pa.__version__}, cellsafe {version('cellsafe')}, anonypy {version('anonypy')}, "
          f"repo HEAD {git_head()}")
    print(f"- CLI: `{args.cli}` (mtime {datetime.datetime.fromtimestamp(args.cli.stat().st_mtime):%Y-%m-%d %H:%M}); "
          f"extension: `{_cellsafe.__file__}` (mtime "
          f"{datetime.datetime.fromtimestamp(os.path.getmtime(_cellsafe.__file__)):%Y-%m-%d %H:%M})")
    load_after = os.getloadavg()
    print(f"- whole run: {total:.1f} s; load average (1, 5, 15 min) before "
          f"{', '.join(f'{x:.2f}' for x in load_before)}, after "
          f"{', '.join(f'{x:.2f}' for x in load_after)} (other work on the machine skews the figures)\n")

    r, b = one["r"], one["b"]
    print(f"## 1. Adult, k={args.k}, suppression 0.01, metric loss, seed {SEED}, threads=1 "
          f"({args.rounds} interleaved rounds A=cs.anonymize(pandas) B=CLI, after one "
          "warm-up of each)\n")
    print(f"Same release from both: {'yes' if one['same'] else 'NO'} "
          f"(levels {one['levels']}).\n")
    print("| measure | median | min | max | n |")
    print("|---|---:|---:|---:|---:|")
    print(row("A: `cs.anonymize(pandas_frame, ...)` wall", r["py_wall"]))
    print(row("A's report: `seconds`, the library's whole time for the job (Arrow in → audited Arrow release)", r["py_seconds"]))
    print(row("A's report: encode+search+release+audit (library core)", r["py_core"]))
    print(row("B: `cellsafe anonymize job.toml` process wall", r["cli_wall"]))
    print(row("B's report: `seconds` (CSV file in → CSV file out)", r["cli_seconds"]))
    print(row("B's report: encode+search+release+audit (library core)", r["cli_core"]))
    print(row("B's report: read (CSV parse)", r["cli_read"]))
    print(row("B's report: write (CSV bytes, file)", r["cli_write"]))
    ratio = lambda xs: f"{med(xs):.2f}"  # noqa: E731
    print(f"| **ratio A wall / A's library time (`seconds`), pairwise** | "
          f"**{ratio(r['pair_seconds'])}** | {min(r['pair_seconds']):.2f} | {max(r['pair_seconds']):.2f} | {args.rounds} |")
    print(f"| ratio A wall / A's library core, pairwise | "
          f"{ratio(r['pair_lib'])} | {min(r['pair_lib']):.2f} | {max(r['pair_lib']):.2f} | {args.rounds} |")
    print(f"| ratio A wall / B's library core (same round), pairwise | "
          f"{ratio(r['pair_cli'])} | {min(r['pair_cli']):.2f} | {max(r['pair_cli']):.2f} | {args.rounds} |")
    print(f"| ratio A wall / B wall, pairwise | "
          f"{ratio(r['pair_wall'])} | {min(r['pair_wall']):.2f} | {max(r['pair_wall']):.2f} | {args.rounds} |")
    target = med(r["pair_seconds"]) <= 1.2
    print(f"\nTarget (cs.anonymize on pandas ≤ 1.2 × the library's own time for the job): "
          f"{'met' if target else 'NOT met'} (pairwise median {med(r['pair_seconds']):.2f}); "
          f"against the library core alone (no reading or making of the table): "
          f"{med(r['pair_lib']):.2f}.\n")

    print(f"### Where cs.anonymize(pandas)'s time goes ({args.rounds} interleaved rounds, "
          "each piece timed on its own)\n")
    print("| piece | median | min | max | n |")
    print("|---|---:|---:|---:|---:|")
    print(row("pandas → pyarrow (`cs._arrow_of`)", b["to_arrow"]))
    for phase in PHASES:
        print(row(f"library, `timings.{phase}`", b[phase]))
    print(row("library, `seconds`", b["raw_seconds"]))
    print(row("extension call `_cellsafe.anonymize(json, pyarrow_table)` wall", b["raw"]))
    print(row("its wall − its `seconds` (config, thread, Arrow hand-over, report JSON)", b["outside"]))
    print(row("pyarrow → pandas (`cs._pandas_from` on the returned table)", b["to_pandas"]))
    print(row("`cs.anonymize(pyarrow_table)` wall (no pandas either way)", b["py_arrow"]))
    print(row("`cs.anonymize(pandas_frame)` wall, again (in this loop)", b["py_pandas"]))
    print()

    if two is not None:
        r2 = two["r"]
        print(f"## 2. Mondrian, k={args.k}: anonypy vs cs.mondrian on the same pandas frame "
              f"({two['rows']} rows{'' if not args.rows else ' (a prefix)'}; QIs {', '.join(QIS)}, "
              f"no hierarchies; age int64, the others pandas `category`; {SENSITIVE} sensitive; "
              f"{args.anonypy_rounds} interleaved rounds, cellsafe warmed up once)\n")
        print("| measure | median | min | max | n |")
        print("|---|---:|---:|---:|---:|")
        print(row(f"anonypy `Preserver(frame, qis, '{SENSITIVE}').anonymize_k_anonymity({args.k})`", r2["anonypy"], sec))
        print(row("`cs.mondrian(frame, ..., threads=1)` wall", r2["cs1"], sec))
        print(row("its report: library core (encode+search+release+audit)", r2["cs1_core"], sec))
        print(row("its report: `seconds` (with write)", r2["cs1_seconds"], sec))
        print(row("`cs.mondrian(frame, ..., threads=0)` (all cores) wall", r2["cs_all"], sec))
        print(f"| **ratio anonypy / cs.mondrian (threads=1), pairwise** | **{med(r2['pair1']):.0f}×** | "
              f"{min(r2['pair1']):.0f}× | {max(r2['pair1']):.0f}× | {len(r2['pair1'])} |")
        print(f"| ratio anonypy / cs.mondrian (all cores), pairwise | {med(r2['pair_all']):.0f}× | "
              f"{min(r2['pair_all']):.0f}× | {max(r2['pair_all']):.0f}× | {len(r2['pair_all'])} |")
        print(f"\nTarget (anonypy / cellsafe ≥ 100×): "
              f"{'met' if med(r2['pair1']) >= 100 else 'NOT met'} (threads=1).\n")
        print(f"Groups: cellsafe {two['groups_cs']}; anonypy {two['groups_any']} distinct "
              f"shown QI tuples, its rows counting {two['covered']} records. The two "
              "Mondrians differ in detail (anonypy cuts numbers at < median / ≥ median and "
              "a category's distinct values into two halves; its output is one row per group "
              "and sensitive value): the same problem, not identical releases.")


if __name__ == "__main__":
    main()
