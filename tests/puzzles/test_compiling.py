"""Compiling the kernels: said when it happens, and done by one process of a machine at a time.

A first `solve` sat silent while its kernels compiled (up to a minute); the
processes of a local pool compiled the same kernels side by side (a demo took
6 minutes instead of 2). `on_compiling` calls back when numba compiles (not
when it loads from the cache), and `compile_lock` makes the other processes
wait for the first one's cache rather than compile too.
"""

import fcntl
import io
import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.cli import solving
from puzzles.algorithms import compiling_notice
from puzzles.jit import compile_lock, compile_lock_path, nb, on_compiling

ROOT = Path(__file__).resolve().parents[2]
HOLD = "from puzzles.jit import compile_lock\nwith compile_lock('astar'):\n    print('held', flush=True)\n    input()\n"


def test_the_callback_comes_once_when_numba_compiles_and_not_when_the_code_is_ready():
    @nb.njit  # a function of this test, in no cache: its first call compiles
    def twice(x):
        return 2 * x

    said = []
    with on_compiling(lambda: said.append("compiling")):
        assert twice(2) == 4
        assert twice(3) == 6
    with on_compiling(lambda: said.append("again")):
        assert twice(4) == 8  # compiled already
    assert said == ["compiling"]


def test_a_process_compiling_a_kind_keeps_the_others_out_of_it_until_it_lets_go():
    holder = subprocess.Popen([sys.executable, "-c", HOLD], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        with open(compile_lock_path("astar"), "a") as lock, pytest.raises(BlockingIOError):
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with compile_lock("beam"):  # another kind's compiles meanwhile
            pass
        holder.communicate("\n", timeout=60)
    finally:
        holder.kill()
    with compile_lock("astar"):  # free again
        pass


def test_solve_says_it_compiles_on_a_terminal_only(monkeypatch):
    assert compiling_notice("spr") == "compiling the search kernels, once per machine: about 45 s"
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # a pipe, a file: no terminal, nothing to say
    assert solving.compile_notice("spr") is None

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    solving.compile_notice("idastar")()
    assert terminal.getvalue() == "compiling the search kernels, once per machine: about 60 s\n"
