"""Every hostile command line of the corpus ends in one `error:` line and exit 2 or 1, in time, changing no file.

Each case runs `orchestrate` as a user would, a real process in a work folder
holding a results database with one finished sweep, the corpus's files and a
foreign application's SQLite file (a plugin case with its broken plugin
packages installed). No case may print a traceback or a secret, take 30 s, or
change a byte of any file there.
"""

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.hostile.corpus import CASES, COURSE, PLUGIN_CASES, PLUGINS, SECRETS, write_files, write_plugin

ROOT = Path(__file__).resolve().parents[2]
ORCHESTRATE = Path(sys.executable).parent / "orchestrate"
HANG_S = 30
SETUP_S = 900  # a command that searches may first compile the kernels (a fresh machine, an edited source)


def run(folder: Path, *args: str, user: int | None = None, home: Path | None = None, timeout: float = HANG_S,
        path: list[Path] | None = None) -> subprocess.CompletedProcess:
    """`orchestrate ARGS` in `folder` with no SLIDELAB_* environment, within `timeout`.

    As `user` with `home`, if given, and then with numba's default cache (under that home); with the folders
    `path` on PYTHONPATH, if given (plugin packages installed there).
    """
    environment = {name: value for name, value in os.environ.items() if not name.startswith("SLIDELAB_")}
    if path:
        environment["PYTHONPATH"] = os.pathsep.join(map(str, path))
    command = [str(ORCHESTRATE), *args]
    if user is not None:
        environment.pop("NUMBA_CACHE_DIR", None)
        environment["HOME"] = str(home)
        command = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *command]
    return subprocess.run(command, cwd=folder, env=environment, capture_output=True, text=True, timeout=timeout)


def fingerprint(folder: Path) -> dict[str, str]:
    """The sha256 of every file under `folder` (links not followed)."""
    return {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file() and not path.is_symlink()}


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """A folder with the data, a results database holding the finished sweep `demo`, the corpus and a foreign database."""
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "data").symlink_to(ROOT / "data")
    made = run(folder, "sweep", "--name", "demo", "--algo", "bfs,beam", "--boards", COURSE, timeout=SETUP_S)
    assert made.returncode == 0, made.stderr
    shown = run(folder, "sweep", "show", "demo", "--spec")
    assert shown.returncode == 0, shown.stderr
    write_files(folder, json.loads(shown.stdout))
    with sqlite3.connect(folder / "foreign.db") as foreign:
        foreign.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        foreign.execute("INSERT INTO invoices (total) VALUES (12.5)")
    return folder


@pytest.mark.parametrize("args, status, fragment", CASES, ids=[" ".join(args)[:60] for args, _, _ in CASES])
def test_hostile_input_ends_in_one_line_and_changes_nothing(work, args, status, fragment):
    before = fingerprint(work)
    result = run(work, *args)
    lines = result.stderr.strip().splitlines()
    assert (result.returncode, len(lines)) == (status, 1), result.stderr[-2000:]
    assert lines[0].startswith("error: ") and fragment in lines[0], lines[0]
    assert len(lines[0]) <= 320 and "Traceback" not in result.stderr and "internal error" not in lines[0]
    assert not any(secret in result.stderr + result.stdout for secret in SECRETS)
    assert fingerprint(work) == before


@pytest.mark.parametrize("packages, args, status, fragment", PLUGIN_CASES,
                         ids=[f"{'+'.join(packages)} {args[0]}" for packages, args, _, _ in PLUGIN_CASES])
def test_a_broken_plugin_stops_the_command_in_one_line_naming_it_and_nothing_is_stored(work, packages, args, status,
                                                                                        fragment):
    sites = [write_plugin(work.parent / f"{work.name}-plugins", name, PLUGINS[name]) for name in packages]
    before = fingerprint(work)
    result = run(work, *args, path=sites)
    lines = result.stderr.strip().splitlines()
    assert (result.returncode, len(lines)) == (status, 1), result.stderr[-2000:]
    assert lines[0].startswith("error: ") and fragment in lines[0], lines[0]
    assert "Traceback" not in result.stderr and result.stdout == ""  # a --json output stays clean: nothing at all
    assert fingerprint(work) == before


def test_a_control_character_in_a_board_name_is_printed_escaped(work):
    (work / "Rushhour6x6_\x1b[31mred.csv").write_text((ROOT / "data/boards/rushhour/Rushhour6x6_3.csv").read_text())
    made = run(work, "sweep", "--name", "escaped", "--algo", "bfs", "--boards", "Rushhour6x6_\x1b[31mred.csv", timeout=SETUP_S)
    assert made.returncode == 0, made.stderr
    listed = run(work, "jobs", "escaped")
    assert listed.returncode == 0 and "\x1b" not in listed.stdout and "\\x1b[31mred" in listed.stdout


def test_a_sweep_extended_by_another_grid_exports_a_spec_covering_both(work):
    for k in ("1..3", "5,7"):
        assert run(work, "sweep", "--name", "grown", "--algo", "beam", "--k", k, "--extend", "--boards", COURSE, timeout=SETUP_S).returncode == 0
    spec = json.loads(run(work, "sweep", "show", "grown", "--spec").stdout)
    assert spec["params"]["k"] == [1, 2, 3, 5, 7]


@pytest.fixture
def shared_folder(work) -> Path:
    """A folder only root may write, that everyone may read, holding a copy of the work folder's results database."""
    folder = Path(tempfile.mkdtemp(prefix="slidelab-read-only-"))
    (folder / "data").symlink_to(ROOT / "data")
    with sqlite3.connect(work / "slidelab.db") as source, sqlite3.connect(folder / "slidelab.db") as copy:
        source.backup(copy)
    os.chmod(folder / "slidelab.db", 0o444)
    os.chmod(folder, 0o555)
    yield folder
    os.chmod(folder, 0o755)
    shutil.rmtree(folder)


@pytest.mark.skipif(os.geteuid() != 0, reason="runs commands as the user nobody, which needs root")
def test_a_read_only_database_is_read_and_an_unwritable_cache_falls_back(shared_folder):
    before = fingerprint(shared_folder)
    nobody = {"user": 65534, "home": Path("/proc/no-home")}  # a home folder no one can write
    listed = run(shared_folder, "sweeps", **nobody)
    assert listed.returncode == 0 and "demo" in listed.stdout, listed.stderr
    reported = run(shared_folder, "report", "demo", "--format", "csv", **nobody)
    assert reported.returncode == 0 and "bfs" in reported.stdout, reported.stderr
    helped = run(shared_folder, "--help", **nobody)
    assert helped.returncode == 0 and "Traceback" not in helped.stderr
    solved = run(shared_folder, "solve", COURSE, "--algo", "bfs", **nobody, timeout=SETUP_S)  # compiles its kernels
    assert solved.returncode == 0 and "cannot be written" in solved.stderr and "Traceback" not in solved.stderr
    assert "solved" in solved.stdout
    assert fingerprint(shared_folder) == before
