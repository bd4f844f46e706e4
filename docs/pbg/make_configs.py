#!/usr/bin/env python3
"""Writes the configs of paper 003's table rows (docs/pbg.md) next to this script.

Each is examples/pbg/pbg.toml with other [pareto] objectives and eps. Regenerate with
    python3 docs/pbg/make_configs.py
"""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "..", "..", "examples", "pbg", "pbg.toml")

K = '{ property = "class-size", index = "min" }'
SK = '{ property = "class-size", index = "sum" }'
L = '{ property = "distinct-values", attribute = "occupation", index = "min" }'
SL = '{ property = "sensitive-count", attribute = "occupation", index = "sum" }'
GLM = '{ property = "glm", index = "sum" }'
CM = '{ property = "classification", attribute = "salary-class", index = "sum" }'

# name: (objectives, eps, salary-class is the class label)
ROWS = {
    "k-glm": ([K, GLM], None, False),
    "k-l-glm": ([K, L, GLM], None, False),
    "sk-glm": ([SK, GLM], None, False),
    "sk-sl-glm": ([SK, SL, GLM], None, False),
    "k-glm-eps-5-100": ([K, GLM], [5, 100], False),
    "k-glm-eps-10-1000": ([K, GLM], [10, 1000], False),
    "k-glm-eps-50-10000": ([K, GLM], [50, 10000], False),
    "k-l-glm-eps-5-2-100": ([K, L, GLM], [5, 2, 100], False),
    "k-l-glm-eps-10-4-1000": ([K, L, GLM], [10, 4, 1000], False),
    "k-l-glm-eps-50-6-10000": ([K, L, GLM], [50, 6, 10000], False),
    "k-glm-cm": ([K, GLM, CM], None, True),
}


def main():
    base = open(BASE).read()
    body = base[base.index("[input]"):base.index("objectives = [")]
    # paths relative to docs/pbg/
    body = body.replace('path = "../adult/adult.csv"', 'path = "../../examples/adult/adult.csv"')
    body = re.sub(r'hierarchy = "(adult_pbg_[^"]+)"', r'hierarchy = "../../examples/pbg/\1"', body)
    for name, (objectives, eps, label) in ROWS.items():
        text = body
        if label:
            text = text.replace(
                '[attributes.salary-class]\nrole = "quasi-identifying"\n'
                'hierarchy = "../../examples/pbg/adult_pbg_salary-class.csv"',
                '[attributes.salary-class]\nrole = "sensitive"')
        head = (f"# Paper 003, docs/pbg.md: {name}. Written by docs/pbg/make_configs.py from\n"
                f"# examples/pbg/pbg.toml.\n#\n"
                f"#     cellsafe pareto docs/pbg/{name}.toml --exhaustive --seed 0\n\n")
        text = head + text
        if eps:
            text += "eps = [" + ", ".join(f"{e}.0" for e in eps) + "]\n"
        text += "objectives = [\n" + "".join(f"  {o},\n" for o in objectives) + "]\n"
        with open(os.path.join(HERE, name + ".toml"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
