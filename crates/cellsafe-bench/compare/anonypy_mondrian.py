"""Mondrian k-anonymity by anonypy (PyPI) on the bundled Adult data, for a side-by-side
timing with `cellsafe anonymize` (algorithm = "mondrian").

Same data, same eight quasi-identifiers (age numeric, the others categorical), occupation
sensitive, k given on the command line. anonypy's Mondrian differs in detail: it cuts
numbers at `< median` / `>= median` and categorical values into two halves of their
distinct values (no hierarchy), and prints a category's values joined by commas.

usage: python3 anonypy_mondrian.py ADULT_CSV K OUTPUT_CSV
"""

import sys

import pandas as pd
from anonypy import anonypy

QUASI = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "salary-class",
]


def main():
    path, k, output = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    df = pd.read_csv(path, sep=";")
    for column in QUASI + ["occupation"]:
        if column != "age":
            df[column] = df[column].astype("category")
    rows = anonypy.Preserver(df, QUASI, "occupation").anonymize_k_anonymity(k)
    pd.DataFrame(rows).to_csv(output, sep=";", index=False)
    print(f"{len(rows)} rows written", file=sys.stderr)


if __name__ == "__main__":
    main()
