"""Shared fixtures: the repository's paths and the cellsafe CLI the tests compare with."""

from __future__ import annotations

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
ADULT = ROOT / "examples" / "adult"
ADULT_QIS = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "salary-class",
]


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    """The CLI binary (``CELLSAFE_BIN``, else the workspace's release build): the tests
    compare the package with it, so a missing binary fails them, never skips them."""
    path = pathlib.Path(os.environ.get("CELLSAFE_BIN", ROOT / "target" / "release" / "cellsafe"))
    if not path.exists():
        pytest.fail(
            f"{path} is missing: build it with `cargo build --release --all-features` "
            "(./scripts/test does) or set CELLSAFE_BIN"
        )
    return path


def run_cli(cli: pathlib.Path, config: pathlib.Path, out: pathlib.Path) -> dict:
    """Runs `cellsafe anonymize` on `config`, writing the table to `out`; returns the report."""
    import json

    report = out.with_suffix(".report.json")
    done = subprocess.run(
        [str(cli), "anonymize", str(config), "--output", str(out), "--report", str(report)],
        capture_output=True,
        text=True,
    )
    assert done.returncode in (0, 3), done.stderr
    return json.loads(report.read_text())
