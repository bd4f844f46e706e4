#!/usr/bin/env python3
"""Builds this folder from the UCI Adult data: `adult.csv` and one `adult_hierarchy_NAME.csv`
per attribute, `;`-separated, as ARX reads them and as `../shared/arx-bench` expects a data dir.

    python3 examples/adult-uci/make.py ../shared/data/adult_uci/adult_uci.csv examples/adult-uci

Run once; its output is kept in the repository. What it does:
- `adult.csv`: every one of the 48,842 rows, every column but `split`, in file order; `?`
  (UCI's missing value) is kept as a value of its own.
- The hierarchies of age, education, marital-status, race, sex, workclass, occupation and
  native-country are those of `examples/adult` (ARX's), with `?` added under an
  `Unknown` group where the attribute has it; `income` is `salary-class`'s.
- New hierarchies: relationship (spouse / relative / non-family, then `*`), hours-per-week
  (5-hour bands, 20-hour bands, `*`), capital-gain and capital-loss (`0` or a band of
  5,000 (gain) or 1,000 (loss), then `*`), education-num (as education's groups).
  `fnlwgt` (a survey weight, not a quasi-identifier) has none.
"""
import csv
import os
import sys

src, out = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
arx = os.path.join(here, "..", "adult")

with open(src, newline="") as f:
    rows = list(csv.reader(f))
head, rows = rows[0], rows[1:]
keep = [i for i, c in enumerate(head) if c != "split"]
cols = [head[i] for i in keep]
with open(os.path.join(out, "adult.csv"), "w", newline="") as f:
    w = csv.writer(f, delimiter=";", lineterminator="\n")
    w.writerow(cols)
    for r in rows:
        w.writerow([r[i] for i in keep])

values = {c: sorted({r[head.index(c)] for r in rows}) for c in cols}


def write(name, lines):
    with open(os.path.join(out, f"adult_hierarchy_{name}.csv"), "w", newline="") as f:
        w = csv.writer(f, delimiter=";", lineterminator="\n")
        for line in lines:
            w.writerow(line)
    missing = set(values[name]) - {line[0] for line in lines}
    if missing:
        sys.exit(f"{name}: no hierarchy line for {sorted(missing)}")


def from_arx(name, arx_name=None):
    with open(os.path.join(arx, f"adult_hierarchy_{arx_name or name}.csv"), newline="") as f:
        lines = [l for l in csv.reader(f, delimiter=";") if l]
    have = {l[0] for l in lines}
    height = len(lines[0])
    for v in values[name]:
        if v not in have:
            if v == "?" and height >= 3:
                lines.append([v, "Unknown"] + ["*"] * (height - 2))
            elif v == "?":
                lines.append([v] + ["*"] * (height - 1))
            else:
                sys.exit(f"{name}: {v!r} is not in ARX's hierarchy")
    write(name, lines)


for name in ["age", "education", "marital-status", "race", "sex", "workclass", "occupation",
             "native-country"]:
    from_arx(name)
from_arx("income", "salary-class")

groups = {"Husband": "Spouse", "Wife": "Spouse", "Own-child": "Relative",
          "Other-relative": "Relative", "Not-in-family": "Non-family", "Unmarried": "Non-family"}
write("relationship", [[v, groups[v], "*"] for v in values["relationship"]])


def band(v, width):
    lo = v // width * width
    return f"{lo}-{lo + width - 1}"


write("hours-per-week", [[v, band(int(v), 5), band(int(v), 20), "*"]
                         for v in values["hours-per-week"]])
for name, width in [("capital-gain", 5000), ("capital-loss", 1000)]:
    write(name, [[v, "0" if v == "0" else band(int(v), width).replace("0-", "1-", 1)
                  if int(v) < width else band(int(v), width), "*"] for v in values[name]])

edu = {}
with open(os.path.join(arx, "adult_hierarchy_education.csv"), newline="") as f:
    for l in csv.reader(f, delimiter=";"):
        if l:
            edu[l[0]] = l[1:]
num = {}
for r in rows:
    num[r[head.index("education-num")]] = r[head.index("education")]
write("education-num", [[v] + edu[num[v]] for v in values["education-num"]])
