"""The README's quick examples run as shown: every ```sh quick block, in order, in a fresh folder.

Each block runs under `bash -e` in one temporary folder holding a link to
`data/`, so the database is the default `sqlite:///slidelab.db` there; the
virtualenv's commands come first on PATH, no broker is configured and pattern
databases go to a temporary cache. A block fails the test if any command in it
exits non-zero.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QUICK_BLOCK = re.compile(r"^```sh quick\n(.*?)^```$", re.MULTILINE | re.DOTALL)
BLOCK_TIMEOUT_S = 900

pytestmark = pytest.mark.slow


def quick_blocks(text: str) -> list[str]:
    """The bodies of the README's ```sh quick blocks, in order."""
    return QUICK_BLOCK.findall(text)


def test_the_readme_marks_its_quick_examples():
    blocks = quick_blocks((ROOT / "README.md").read_text())
    commands = [line for block in blocks for line in block.splitlines() if line.startswith("orchestrate ")]
    assert len(blocks) >= 8 and len(commands) >= 50
    assert not any("puzzles/*" in block for block in blocks)  # the solver package holds no boards


def test_every_quick_example_of_the_readme_runs(tmp_path):
    (tmp_path / "data").symlink_to(ROOT / "data")
    environment = {name: value for name, value in os.environ.items() if not name.startswith("SLIDELAB_")}
    environment |= {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "SLIDELAB_CACHE_DIR": str(tmp_path / "cache"),
        "COLUMNS": "120",
    }
    for block in quick_blocks((ROOT / "README.md").read_text()):
        run = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block], cwd=tmp_path, env=environment,
                             capture_output=True, text=True, timeout=BLOCK_TIMEOUT_S)
        first_line = block.strip().splitlines()[0]
        assert run.returncode == 0, f"README block starting {first_line!r} exited {run.returncode}:\n{run.stderr[-3000:]}"
    assert (tmp_path / "slidelab.db").exists() and (tmp_path / "beam-k.html").exists()
