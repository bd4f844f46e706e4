"""The package against the CLI and against itself: the same job gives the same release
from Python (pandas, Polars, PyArrow) as from `cellsafe anonymize`, on Adult and on random
tables; untouched columns keep their types."""

from __future__ import annotations

import csv
import io
import pathlib
import random

import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

import cellsafe as cs
from conftest import ADULT, ADULT_QIS, ROOT, run_cli

ROOT_EXAMPLES = ROOT / "examples"


def adult_frame():
    import pandas as pd

    return pd.read_csv(ADULT / "adult.csv", sep=";")


def adult_keys(**extra):
    keys = dict(
        quasi_identifiers={q: ADULT / f"adult_hierarchy_{q}.csv" for q in ADULT_QIS},
        sensitive=["occupation"],
        models=[cs.KAnonymity(5)],
        suppression_limit=0.01,
        metric="loss",
        seed=20260101,
        hierarchy_delimiter=";",
    )
    keys.update(extra)
    return keys


def cells(table: pa.Table) -> list:
    """Every cell as the string the CLI writes: a null (a typed column's `*` or empty
    cell) as None, compared loosely below."""
    columns = [table.column(i).cast(pa.string()).to_pylist() for i in range(table.num_columns)]
    return [list(row) for row in zip(*columns)]


def csv_cells(path: pathlib.Path, delimiter: str) -> tuple:
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter=delimiter))
    return rows[0], rows[1:]


def assert_same_rows(
    table: pa.Table, path: pathlib.Path, delimiter: str, ordered: bool = True
) -> None:
    header, rows = csv_cells(path, delimiter)
    assert table.column_names == header
    got = cells(table)
    if not ordered:
        # without a seed each run draws its own order
        got.sort(key=lambda r: [v or "" for v in r])
        rows.sort()
    assert len(got) == len(rows)
    for i, (a, b) in enumerate(zip(got, rows)):
        for c, (x, y) in enumerate(zip(a, b)):
            # a typed column's null stands for `*` or an empty cell
            assert x == y or (x is None and y in ("*", "")), (i, header[c], x, y)


def class_sizes(table: pa.Table, qis: list) -> list:
    """Sizes of the released classes, counted from the table (suppressed rows apart)."""
    counts: dict = {}
    for row in zip(*[table.column(q).cast(pa.string()).to_pylist() for q in qis]):
        if all(v == "*" for v in row):
            continue
        counts[row] = counts.get(row, 0) + 1
    return sorted(counts.values())


def test_adult_from_pandas_is_the_cli_release(cli, tmp_path):
    df = adult_frame()
    release = cs.anonymize(df, **adult_keys())
    job = tmp_path / "job.toml"
    job.write_text(release.job.to_toml(path=str(ADULT / "adult.csv"), delimiter=";"))
    out = tmp_path / "released.csv"
    report = run_cli(cli, job, out)
    assert release.levels == report["levels"]
    assert release.suppressed_rows == report["suppressed_rows"] > 0
    table = pa.Table.from_pandas(release.table, preserve_index=False)
    assert_same_rows(table, out, ";")
    assert class_sizes(table, ADULT_QIS) == class_sizes(
        pacsv.read_csv(out, parse_options=pacsv.ParseOptions(delimiter=";"),
                       convert_options=pacsv.ConvertOptions(strings_can_be_null=False,
                                                            column_types={"age": pa.string()})),
        ADULT_QIS,
    )
    for key in ("classes", "released_classes", "min_class_size", "score", "rows"):
        assert release.report[key] == report[key], key
    assert release.report["audit"]["passed"]


def test_a_toml_job_runs_to_the_same_release(cli, tmp_path):
    release = cs.run(ADULT / "adult.toml")
    assert isinstance(release.table, pa.Table)
    out = tmp_path / "released.csv"
    report = run_cli(cli, ADULT / "adult.toml", out)
    assert release.levels == report["levels"]
    assert release.suppressed_rows == report["suppressed_rows"]
    assert_same_rows(release.table, out, ";", ordered=False)


def random_table(rng: random.Random, rows: int) -> pa.Table:
    zips = [f"{rng.randrange(10000, 10000 + 7 * rng.randint(2, 30), 7):05d}" for _ in range(rows)]
    return pa.table(
        {
            "id": pa.array([f"p{i}" for i in range(rows)]),
            "zip": pa.array(zips),
            "age": pa.array([rng.randint(18, 90) for _ in range(rows)], pa.int64()),
            "sex": pa.array([rng.choice(["F", "M"]) for _ in range(rows)]),
            "diag": pa.array([rng.choice(["flu", "cold", "asthma", "none", "gout"]) for _ in range(rows)]),
            "income": pa.array(
                [None if rng.random() < 0.1 else rng.randint(0, 90000) for _ in range(rows)],
                pa.int64(),
            ),
            "score": pa.array([rng.randint(0, 800) / 8 for _ in range(rows)], pa.float64()),
        }
    )


RANDOM_KEYS = dict(
    quasi_identifiers={
        "zip": cs.hierarchy.mask(),
        "age": cs.hierarchy.intervals([5, 10, 20]),
        "sex": cs.hierarchy.suppress(),
    },
    identifying=["id"],
    sensitive=["diag"],
    insensitive=["income", "score"],
)


@pytest.mark.parametrize("case", range(6))
def test_random_tables_give_the_cli_release(cli, tmp_path, case):
    rng = random.Random(1000 + case)
    table = random_table(rng, rng.randint(40, 400))
    models = [[cs.KAnonymity(rng.randint(2, 6))],
              [cs.KAnonymity(2), cs.DistinctLDiversity("diag", 2)],
              [cs.TCloseness("diag", 0.5)]][case % 3]
    keys = dict(RANDOM_KEYS, models=models, suppression_limit=rng.choice([0.0, 0.05, 0.2]),
                seed=case, metric=rng.choice(["loss", "discernibility"]))
    data = tmp_path / "t.csv"
    pacsv.write_csv(table, data)
    try:
        release = cs.anonymize(table, **keys)
    except cs.NothingAcceptable:
        release = None
    job = tmp_path / "job.toml"
    job.write_text(cs.job(**keys).to_toml(path=str(data)))
    out = tmp_path / "released.csv"
    report = run_cli(cli, job, out)
    assert (release is not None) == report["found"]
    if release is None:
        return
    assert release.levels == report["levels"]
    assert release.suppressed_rows == report["suppressed_rows"]
    assert_same_rows(release.table, out, ",")
    qis = list(RANDOM_KEYS["quasi_identifiers"])
    assert class_sizes(release.table, qis) == class_sizes(
        pacsv.read_csv(out, convert_options=pacsv.ConvertOptions(
            column_types={q: pa.string() for q in qis}, strings_can_be_null=False)), qis)


def test_pandas_polars_and_pyarrow_give_the_same_release():
    import pandas as pd
    import polars as pl

    rng = random.Random(7)
    table = random_table(rng, 300)
    keys = dict(RANDOM_KEYS, models=[cs.KAnonymity(3)], suppression_limit=0.1, seed=3)
    from_arrow = cs.anonymize(table, **keys)
    from_batch = cs.anonymize(table.to_batches()[0], **keys)
    from_pandas = cs.anonymize(table.to_pandas(), **keys)
    from_polars = cs.anonymize(pl.from_arrow(table), **keys)
    assert isinstance(from_arrow.table, pa.Table)
    assert isinstance(from_pandas.table, pd.DataFrame)
    assert isinstance(from_polars.table, pl.DataFrame)
    expected = cells(from_arrow.table)
    assert cells(from_batch.table) == expected
    assert cells(pa.Table.from_pandas(from_pandas.table, preserve_index=False)) == expected
    assert cells(from_polars.table.to_arrow()) == expected
    assert from_arrow.levels == from_pandas.levels == from_polars.levels


def test_a_duckdb_relation_gives_the_same_release():
    import duckdb

    rng = random.Random(17)
    table = random_table(rng, 300)
    keys = dict(RANDOM_KEYS, models=[cs.KAnonymity(3)], suppression_limit=0.1, seed=4)
    expected = cs.anonymize(table, **keys)
    con = duckdb.connect()
    try:
        relation = con.from_arrow(table)
        assert hasattr(relation, "__arrow_c_stream__")
        from_duckdb = cs.anonymize(relation, **keys)
        # a relation is neither pandas nor Polars: its release is a PyArrow table
        assert isinstance(from_duckdb.table, pa.Table)
        assert cells(from_duckdb.table) == cells(expected.table)
        assert from_duckdb.table.schema == expected.table.schema
        assert from_duckdb.report["classes"] == expected.report["classes"]
    finally:
        con.close()


def test_untouched_columns_keep_their_types():
    import pandas as pd
    import polars as pl

    rng = random.Random(11)
    table = random_table(rng, 300)
    keys = dict(RANDOM_KEYS, models=[cs.KAnonymity(3)], suppression_limit=0.2, seed=5)
    release = cs.anonymize(table, **keys)
    assert release.suppressed_rows > 0, "the case should suppress rows"
    t = release.table
    assert t.schema.field("income").type == pa.int64()
    assert t.schema.field("score").type == pa.float64()
    assert t.schema.field("age").type == pa.string()  # generalized
    frame = table.to_pandas()
    frame["income"] = frame["income"].astype("Int64")
    out = cs.anonymize(frame, **keys).table
    # an integer column with nulls (suppressed rows, missing values) stays an integer
    assert str(out["income"].dtype) == "Int64"
    assert out["income"].isna().sum() >= release.suppressed_rows
    assert out["score"].dtype == frame["score"].dtype
    polars_out = cs.anonymize(pl.from_arrow(table), **keys).table
    assert polars_out.schema["income"] == pl.Int64
    assert polars_out.schema["score"] == pl.Float64
    # the pandas index is not a column
    indexed = frame.set_index("id", drop=False)
    assert list(cs.anonymize(indexed, **keys).table.columns) == release.table.column_names


def test_risk_is_the_cli_risk(cli, tmp_path):
    import json
    import subprocess

    df = adult_frame()
    keys = adult_keys()
    for levels in (None, [0, 2, 0, 1, 2, 1, 1, 0]):
        got = cs.risk(df, levels=levels, population_size=300000, **keys)
        job = tmp_path / "job.toml"
        job.write_text(cs.job(**keys).to_toml(path=str(ADULT / "adult.csv"), delimiter=";"))
        out = tmp_path / "risk.json"
        args = [str(cli), "risk", str(job), "--report", str(out), "--population-size", "300000"]
        if levels:
            args += ["--levels", ",".join(map(str, levels))]
        done = subprocess.run(args, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        want = json.loads(out.read_text())
        assert got == want
        assert got["records"] == 30162


def test_pareto_is_the_cli_front(cli, tmp_path):
    import json
    import subprocess

    pbg = ROOT_EXAMPLES / "pbg"
    qis = ["age", "workclass", "education", "marital-status", "race", "sex", "native-country", "salary-class"]
    spec = {
        "budget_rows": 301,
        "population": 10,
        "iterations": 10,
        "objectives": [
            {"property": "class-size", "index": "min"},
            {"property": "glm", "index": "sum"},
        ],
    }
    keys = dict(
        quasi_identifiers={q: pbg / f"adult_pbg_{q}.csv" for q in qis},
        sensitive=["occupation"],
    )
    got = cs.pareto(adult_frame(), pareto=spec, seed=3, **keys)
    job = tmp_path / "job.toml"
    job.write_text(cs.job(pareto=spec, **keys).to_toml(path=str(ADULT / "adult.csv"), delimiter=";"))
    out = tmp_path / "front.json"
    done = subprocess.run(
        [str(cli), "pareto", str(job), "--seed", "3", "--report", str(out)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    want = json.loads(out.read_text())
    for key in ("seconds", "input", "timings"):
        got.pop(key, None)
        want.pop(key, None)
    # each node's `release` is the CLI command that releases it, naming the config file
    for node in got["front"] + want["front"]:
        node.pop("release")
    assert got == want
    assert got["front"], got


def test_mondrian_is_the_cli_release(cli, tmp_path):
    rng = random.Random(21)
    table = random_table(rng, 500)
    keys = dict(
        quasi_identifiers={"zip": None, "age": None, "sex": None},
        identifying=["id"],
        sensitive=["diag"],
        insensitive=["income", "score"],
        models=[cs.KAnonymity(4)],
        seed=9,
    )
    release = cs.mondrian(table, **keys)
    data = tmp_path / "t.csv"
    pacsv.write_csv(table, data)
    job = tmp_path / "job.toml"
    job.write_text(release.job.to_toml(path=str(data)))
    out = tmp_path / "released.csv"
    report = run_cli(cli, job, out)
    assert report["found"] and report["algorithm"] == "mondrian"
    assert_same_rows(release.table, out, ",")
    assert min(class_sizes(release.table, ["zip", "age", "sex"])) >= 4


def test_a_release_shows_its_figures_in_a_notebook():
    rng = random.Random(5)
    release = cs.anonymize(random_table(rng, 200), **dict(RANDOM_KEYS, models=[cs.KAnonymity(3)], seed=1))
    page = release._repr_html_()
    for name, level in release.levels.items():
        assert f"<td>{name}</td><td>{level}</td>" in page
    assert "audit</td><td>passed" in page
    assert f"suppressed rows</td><td>{release.suppressed_rows}" in page


def test_a_pandas_subclass_does_not_release_its_index():
    # a regression test (found in review): a DataFrame subclass skipped the index's removal
    # and pandas' own export sent the index (names of persons) out as a released column
    import pandas as pd

    class Frame(pd.DataFrame):
        pass

    names = pd.Index(["alice", "bob", "carol", "dave", "erin", "frank"], name="name")
    frame = Frame(TABLE_FOR_INDEX, index=names)
    keys = dict(quasi_identifiers={"zip": cs.hierarchy.mask()}, sensitive=["dis"],
                models=[cs.KAnonymity(2)])
    out = cs.anonymize(frame, **keys).table
    assert list(out.columns) == ["zip", "dis"]
    plain = cs.anonymize(pd.DataFrame(TABLE_FOR_INDEX, index=names), **keys).table
    assert list(plain.columns) == ["zip", "dis"]


def test_a_timedelta_column_is_released_as_text():
    # a regression test (found in review): the job ran, then failed writing the column back
    import pandas as pd

    frame = pd.DataFrame(TABLE_FOR_INDEX)
    frame["wait"] = pd.to_timedelta([1, 2, 3, 4, 5, 6], unit="s")
    out = cs.anonymize(frame, quasi_identifiers={"zip": cs.hierarchy.mask()}, sensitive=["dis"],
                       insensitive=["wait"], models=[cs.KAnonymity(2)]).table
    assert len(out) == 6


def test_nothing_is_printed_unless_asked_and_progress_true_draws_a_bar(capfd):
    # capfd reads the process's file descriptors: the library's own output counts too
    import warnings

    rng = random.Random(13)
    table = random_table(rng, 400)
    keys = dict(RANDOM_KEYS, models=[cs.KAnonymity(3)], suppression_limit=0.1, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = cs.anonymize(table, **keys)
        assert capfd.readouterr() == ("", "")
        shown = cs.anonymize(table, progress=True, **keys)
    out, err = capfd.readouterr()
    assert out == ""
    assert cells(shown.table) == cells(plain.table)
    # one line per stage shown, each redrawn in place, the last one ended
    assert err.endswith("\n"), repr(err)
    lines = [line.split("\r")[-1] for line in err.rstrip("\n").split("\n")]
    assert lines and all(line.strip() for line in lines), repr(err)
    assert all(line.rstrip().endswith(" s") for line in lines), repr(err)
    assert any("[" in line and "%" in line for line in lines), repr(err)
    # a callable is called instead, with (stage, position, total or None)
    calls = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cs.anonymize(table, progress=lambda *a: calls.append(a), **keys)
    assert capfd.readouterr() == ("", "")
    assert calls and all(isinstance(c[0], str) and isinstance(c[1], int) for c in calls)


def test_timestamps_with_a_time_zone_keep_their_type_and_instants():
    # named time zones (across a daylight-saving change), UTC, an offset and none: each
    # kept column comes back with its type, and every shown instant is the input's
    import pandas as pd

    n = 80
    rng = random.Random(5)
    frame = pd.DataFrame({
        "age": [rng.randint(20, 59) for _ in range(n)],
        "zip": [f"{10000 + 7 * rng.randint(0, 4):05d}" for _ in range(n)],
        "paris": pd.date_range("2024-03-30 22:00", periods=n, freq="37min", tz="Europe/Paris"),
        "utc": pd.date_range("2024-01-01", periods=n, freq="h", tz="UTC"),
        "offset": pd.date_range("2024-06-01", periods=n, freq="D", tz="+05:30"),
        "naive": pd.date_range("2024-01-01", periods=n, freq="h"),
    })
    keys = dict(quasi_identifiers={"age": cs.hierarchy.intervals([5, 10, 20]),
                                   "zip": cs.hierarchy.mask()},
                insensitive=["paris", "utc", "offset", "naive"], models=[cs.KAnonymity(3)],
                suppression_limit=0.3, seed=2)
    release = cs.anonymize(frame, **keys)
    assert release.suppressed_rows > 0, "the case should suppress rows"
    out = release.table
    for c in ["paris", "utc", "offset", "naive"]:
        assert out[c].dtype == frame[c].dtype, c
        shown = out[c].dropna()
        assert len(shown) == n - release.suppressed_rows, c
        assert set(shown) <= set(frame[c]), c
    # the rows line up: a released row's instants are one input row's
    inputs = set(zip(frame["paris"], frame["utc"], frame["offset"], frame["naive"]))
    for row in out.dropna().itertuples(index=False):
        assert (row.paris, row.utc, row.offset, row.naive) in inputs


TABLE_FOR_INDEX = {
    "zip": ["13053", "13068", "13053", "13068", "13053", "13068"],
    "dis": ["flu", "cold", "flu", "gout", "cold", "flu"],
}
