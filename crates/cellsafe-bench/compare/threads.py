#!/usr/bin/env python3
"""Times cellsafe with one search thread and with two on the ARX kit's cases, without ARX.

    python3 crates/cellsafe-bench/compare/threads.py adult      [--rounds 9] [--cases ID,...]
    python3 crates/cellsafe-bench/compare/threads.py adult-uci  [--rounds 9]

Why beside the kit (`arx.sh`): in the kit's rounds the two-thread run comes right after an
ARX run (every even round, and after the cold ARX process), and a process started right
after one of ARX's runs was measured slower, whatever its thread count
(docs/performance.md, "the first run after ARX's"). Here nothing else runs: each round
runs `threads = 1` and `threads = 2` in turn, the order swapped every other round (ABBA),
on the configurations the kit writes itself (its `bench.py`, imported from
$ARX_BENCH or ../shared/arx-bench), with the cellsafe binary of $CELLSAFE or
target/release/cellsafe.

Prints, per case, the medians of the whole command's wall time and of the report's search
phase for each thread count, and one thread's time over two's (above 1: two threads are
faster); and checks that both find the same levels and score in every round (exit 1
otherwise).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
KIT = os.environ.get("ARX_BENCH") or os.path.normpath(os.path.join(ROOT, "..", "shared", "arx-bench"))


def run(cellsafe, cfg, work):
    out, rep = os.path.join(work, "o.csv"), os.path.join(work, "r.json")
    if os.path.exists(rep):
        os.remove(rep)
    t0 = time.perf_counter()
    r = subprocess.run([cellsafe, "anonymize", cfg, "--output", out, "--report", rep],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    ms = (time.perf_counter() - t0) * 1e3
    if r.returncode not in (0, 3):
        sys.exit(f"cellsafe failed ({r.returncode}) on {cfg}: {r.stderr.strip()[-2000:]}")
    with open(rep) as f:
        report = json.load(f)
    return ms, report["timings"]["search"] * 1e3, (report.get("levels"), report.get("score"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("set", choices=["adult", "adult-uci"])
    ap.add_argument("--rounds", type=int, default=9, help="rounds per case (default 9)")
    ap.add_argument("--cases", help="comma-separated case ids (default: all of the set)")
    a = ap.parse_args()
    if a.rounds < 1:
        sys.exit("--rounds must be at least 1")
    sys.path.insert(0, KIT)
    try:
        import bench
    except ImportError:
        sys.exit(f"the ARX kit's bench.py is not in {KIT} (set ARX_BENCH)")
    cellsafe = os.environ.get("CELLSAFE") or os.path.join(ROOT, "target", "release", "cellsafe")
    if not os.access(cellsafe, os.X_OK):
        sys.exit(f"no cellsafe binary at {cellsafe} (cargo build --release, or set CELLSAFE)")
    if a.set == "adult":
        cases_file, data = os.path.join(HERE, "adult-cases.tsv"), os.path.join(KIT, "..", "data", "adult")
    else:
        cases_file, data = os.path.join(HERE, "adult-uci-cases.tsv"), os.path.join(ROOT, "examples", "adult-uci")
    data = os.path.normpath(data)
    cases = bench.read_cases(cases_file)
    if a.cases:
        wanted = a.cases.split(",")
        unknown = [w for w in wanted if w not in {c["id"] for c in cases}]
        if unknown:
            sys.exit(f"unknown case(s): {', '.join(unknown)}")
        cases = [c for c in cases if c["id"] in wanted]
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}, {a.rounds} rounds per case, cellsafe {cellsafe}")
    print("| case | whole ms, 1 thr | whole ms, 2 thr | 1 thr ÷ 2 thr, whole "
          "| search ms, 1 thr | search ms, 2 thr | 1 thr ÷ 2 thr, search | same result |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    agree_all = True
    with tempfile.TemporaryDirectory() as work:
        for c in cases:
            cfgs = {}
            for t in (1, 2):
                cfgs[t] = os.path.join(work, f"{c['id']}.t{t}.toml")
                with open(cfgs[t], "w") as f:
                    f.write(bench.cellsafe_config(c, data, t))
            whole, search, results = {1: [], 2: []}, {1: [], 2: []}, set()
            for r in range(a.rounds):
                for t in ((1, 2) if r % 2 == 0 else (2, 1)):
                    ms, s, result = run(cellsafe, cfgs[t], work)
                    whole[t].append(ms)
                    search[t].append(s)
                    results.add(json.dumps(result, sort_keys=True))
            m = {k: {t: statistics.median(v[t]) for t in (1, 2)} for k, v in (("w", whole), ("s", search))}
            agree = len(results) == 1
            agree_all &= agree
            print(f"| {c['id']} | {m['w'][1]:,.1f} | {m['w'][2]:,.1f} | {m['w'][1] / m['w'][2]:.2f} "
                  f"| {m['s'][1]:,.1f} | {m['s'][2]:,.1f} | {m['s'][1] / m['s'][2]:.2f} "
                  f"| {'yes' if agree else 'NO'} |", flush=True)
    sys.exit(0 if agree_all else 1)


if __name__ == "__main__":
    main()
