"""A job on the Spark engine from Python (``cs.write``): the cluster writes the release, and
it holds the rows, in the same order, that ``cs.run`` releases in memory for the same job.
Needs the test cluster (``CELLSAFE_SPARK_REMOTE``, set by ``scripts/test``) and a package
built with the ``spark`` feature; without either the test says it was skipped and why."""

import os
import pathlib

import pyarrow.parquet as pq
import pytest

import cellsafe as cs

from conftest import ADULT


def _job(remote, extra=""):
    text = (ADULT / "adult-parquet.toml").read_text()
    text = text.replace('path = "adult.parquet"', f'path = "{ADULT / "adult.parquet"}"')
    text = text.replace('hierarchy = "', f'hierarchy = "{ADULT}/')
    if remote:
        text = text.replace("[input]", f'[engine]\nkind = "spark"\nremote = "{remote}"\n\n[input]', 1)
    return text + "\n[output]\nkeep_order = true\n" + extra


@pytest.mark.filterwarnings("ignore::cellsafe.CellsafeWarning")  # keep_order, on purpose
def test_a_spark_job_from_python_releases_the_in_memory_rows(tmp_path):
    remote = os.environ.get("CELLSAFE_SPARK_REMOTE")
    if not remote:
        pytest.skip("CELLSAFE_SPARK_REMOTE is not set (scripts/test starts a cluster and sets it)")
    memory = tmp_path / "memory.toml"
    memory.write_text(_job(None))
    spark = tmp_path / "spark.toml"
    spark.write_text(_job(remote))
    here = cs.run(memory)
    out = tmp_path / "out" / "released.parquet"
    out.parent.mkdir()
    try:
        report = cs.write(spark, output=out, report=tmp_path / "report.json")
    except cs.ConfigError as e:
        if "`spark` feature" in str(e):
            pytest.skip("the package was built without the spark feature")
        raise
    assert report["audit"]["passed"]
    assert report["engine"]["kind"] == "spark"
    assert report["engine"]["spark"]["frequency_set_bytes"] > 0
    assert report["levels"] == here.levels
    assert report["suppressed_rows"] == here.suppressed_rows
    assert (tmp_path / "report.json").exists()
    parts = sorted(p for p in out.iterdir() if p.suffix == ".parquet")
    rows = [r for p in parts for r in pq.read_table(p).to_pylist()]
    assert rows == here.table.to_pylist()
    assert [p.name for p in out.parent.iterdir()] == ["released.parquet"]


def test_write_without_a_cluster_names_engine_remote(tmp_path):
    # a port nothing listens on: bound, then closed
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    job = tmp_path / "spark.toml"
    job.write_text(_job(f"sc://127.0.0.1:{port}"))
    with pytest.raises(cs.ConfigError) as e:
        cs.write(job, output=tmp_path / "out.parquet")
    if "`spark` feature" in str(e.value):
        pytest.skip("the package was built without the spark feature")
    assert "engine.remote" in str(e.value)
    assert f"127.0.0.1:{port}" in str(e.value)
