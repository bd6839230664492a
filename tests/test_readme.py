"""The README's and the manual's quick examples run as shown: every ```sh quick and ```python quick block of a page, in
order, in a fresh folder.

Each page (README.md, then every docs/*.md) runs in a temporary folder of
its own holding a link to `data/`, so the database is the default
`sqlite:///slidelab.db` there; its blocks run in the order they appear (shell
blocks under `bash -e`, Python blocks by the virtualenv's Python), so a block may use what an earlier block of the same page made,
never what another page made. The virtualenv's commands come first on PATH,
no broker is configured and pattern databases go to a temporary cache. A
block fails the test if any command in it exits non-zero.
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QUICK_BLOCK = re.compile(r"^```sh quick\n(.*?)^```$", re.MULTILINE | re.DOTALL)
RUN_BLOCK = re.compile(r"^```(sh|python) quick\n(.*?)^```$", re.MULTILINE | re.DOTALL)  # (language, body) of each
SHELL_BLOCK = re.compile(r"^```sh\n(.*?)^```$", re.MULTILINE | re.DOTALL)  # shown, not run: parse-checked only
FENCED = re.compile(r"^\s*```([^\n]*)\n(.*?)^\s*```\s*$", re.MULTILINE | re.DOTALL)
COMMAND = re.compile(r"^\s*(orchestrate|celery|pip|python|docker|make|psql)\s", re.MULTILINE)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
BLOCK_TIMEOUT_S = 900
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# What a page's blocks leave in their folder, besides what every page with a sweep leaves.
MADE_BY = {
    "README.md": ["slidelab.db", "beam-blockers.html"],
    "docs/reports.md": ["slidelab.db", "beam-k.html", "compare.csv"],
    "docs/sweeps.md": ["slidelab.db", "beam-k.json"],
    "docs/tuning.md": ["slidelab.db", "mf-small.html"],
}


def quick_blocks(text: str) -> list[str]:
    """The bodies of a page's ```sh quick blocks, in order."""
    return QUICK_BLOCK.findall(text)


def shell_blocks(text: str) -> list[str]:
    """The bodies of a page's ```sh blocks that the tests do not run, in order."""
    return SHELL_BLOCK.findall(text)


def name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def test_the_pages_mark_their_quick_examples():
    blocks = [block for page in PAGES for block in quick_blocks(page.read_text())]
    commands = [line for block in blocks for line in block.splitlines() if line.startswith("orchestrate ")]
    assert len(blocks) >= 9 and len(commands) >= 60
    assert not any("puzzles/*" in block for block in blocks)  # the solver package holds no boards
    assert all(quick_blocks(page.read_text()) for page in PAGES if name(page) in MADE_BY)


def test_the_pages_link_to_files_that_exist():
    pages = [*PAGES, *sorted((ROOT / "docs" / "notes").glob("*.md"))]
    broken = [(name(page), target) for page in pages for target in LINK.findall(page.read_text())
              if "://" not in target and not (page.parent / target).exists()]
    assert broken == []


def test_every_shell_block_the_tests_do_not_run_parses():
    blocks = [(name(page), block) for page in PAGES for block in shell_blocks(page.read_text())]
    assert len(blocks) >= 10
    unparsed = [(page, block.splitlines()[0], run.stderr)
                for page, block in blocks
                if (run := subprocess.run(["bash", "-n"], input=block, capture_output=True, text=True)).returncode]
    assert unparsed == []


def test_every_command_shown_is_in_an_sh_block():
    """A command in a block not marked sh would escape both the runs and the parse check."""
    unmarked = [(name(page), body.splitlines()[0]) for page in PAGES for language, body in FENCED.findall(page.read_text())
                if not language.startswith("sh") and COMMAND.search(body)]
    assert unmarked == []


def test_the_flower_commands_shown_parse_as_flower_reads_them():
    """Flower reads its options with tornado's parser, which takes `--port=5555` and refuses `--port 5555`."""
    pytest.importorskip("flower")
    import flower.options  # noqa: F401  # defines flower's options on tornado's global parser
    from tornado.options import options

    lines = [line.split("#")[0] for page in PAGES for block in shell_blocks(page.read_text())
             for line in block.splitlines() if " flower " in line]
    assert lines
    for line in lines:
        words = shlex.split(line)
        assert options.parse_command_line(words[words.index("flower"):], final=False) == [], line


@pytest.mark.slow
@pytest.mark.parametrize("page", [page for page in PAGES if RUN_BLOCK.search(page.read_text())], ids=name)
def test_every_quick_example_of_a_page_runs(page, tmp_path):
    (tmp_path / "data").symlink_to(ROOT / "data")
    environment = {key: value for key, value in os.environ.items() if not key.startswith("SLIDELAB_")}
    environment |= {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "SLIDELAB_CACHE_DIR": str(tmp_path / "cache"),
        "COLUMNS": "120",
    }
    for language, block in RUN_BLOCK.findall(page.read_text()):
        command = ["bash", "-e", "-o", "pipefail", "-c", block] if language == "sh" else [sys.executable, "-c", block]
        run = subprocess.run(command, cwd=tmp_path, env=environment, capture_output=True, text=True,
                             timeout=BLOCK_TIMEOUT_S)
        first_line = block.strip().splitlines()[0]
        assert run.returncode == 0, (f"{name(page)} block starting {first_line!r} exited {run.returncode}:\n"
                                     f"{run.stderr[-3000:]}")
    assert [made for made in MADE_BY.get(name(page), []) if not (tmp_path / made).exists()] == []
