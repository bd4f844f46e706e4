"""The package as users meet it: its type stubs agree with the module, and README's
Python example runs as written."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from conftest import ROOT


def test_the_stubs_match_the_module():
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "cellsafe"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_readme_python_example_runs(tmp_path):
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert blocks, "README has no Python example"
    example = blocks[0]
    # run from the repository's root, as README says
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        scope: dict = {}
        exec(compile(example, "README.md", "exec"), scope)
    finally:
        os.chdir(cwd)
    release = scope["release"]
    assert release.levels and release.report["audit"]["passed"]
