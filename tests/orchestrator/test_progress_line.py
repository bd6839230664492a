"""A sweep's progress line in a narrow terminal (issue 46 §4): at 80 columns nothing is cut.

The bar, the jobs done and a moving timer share a line; under it, wrapped
rather than cut, what goes on: which kinds of job are compiling, n of m, then
the pace and ETA. So the line moves during `make demo`'s first 78 s (the
kernels compile), and no part of it is cut in a narrow terminal.
"""

import time

from rich.console import Console

from orchestrator.sweeps.running import Paced, WarmUp
from orchestrator.sweeps.status_view import live_bar, warm_up_text
from puzzles.algorithms import find_algorithm
from workers.store.progress import SweepStatus
from workers.store.records import JobInput
from workers.store.states import JobState

WIDTH = 80
JOBS = [
    JobInput(1, "rushhour", "board", "beam", {"k": 1, "heuristic": "blockers-lb"}),
    JobInput(2, "rushhour", "board", "beam", {"k": 2, "heuristic": "blockers-lb"}),  # the same kind as the first
    JobInput(3, "rushhour", "board", "astar", {"heuristic": "blockers-lb"}),
    JobInput(4, "npuzzle", "board", "bfs", {}),
]


class Watched:
    """A job process stand-in that notes what the line says while it warms each kind up."""

    def __init__(self, warm_up: WarmUp) -> None:
        self.warm_up, self.said = warm_up, []

    def run(self, jobs):
        self.said.append(warm_up_text(self.warm_up))
        return []


def shown(update_with, name: str = "demo-beam", pause_s: float = 0.0) -> list[str]:
    """The lines of a sweep's live bar at 80 columns after `update_with(update)`, `pause_s` later."""
    console = Console(record=True, width=WIDTH, force_terminal=False)
    with live_bar(console, name, 126, here=True) as update:
        update_with(update)
        time.sleep(pause_s)
    return console.export_text().splitlines()


def assert_nothing_cut(lines: list[str], name: str = "demo-beam") -> None:
    assert all(len(line) <= WIDTH for line in lines) and "…" not in "".join(lines), lines
    assert lines[0].startswith(f"{name} ") and " 0/126 " in lines[0], lines


def test_the_warm_up_says_which_kinds_compile_n_of_m():
    warm_up = WarmUp(JOBS)
    watched = Watched(warm_up)
    for job in warm_up.jobs:
        warm_up.run(watched, job)
    assert [said.split(" (")[0] for said in watched.said] == [
        "kernels 0 of 3 ready; compiling beam blockers-lb on rushhour",
        "kernels 1 of 3 ready; compiling astar blockers-lb on rushhour",
        "kernels 2 of 3 ready; compiling bfs on npuzzle",
    ]
    seconds = find_algorithm("astar").compile_s
    assert watched.said[1].endswith(f"(the first run on a machine: about {seconds} s; later runs load them)")
    assert warm_up_text(warm_up) == "kernels 3 of 3 ready"


def test_at_80_columns_the_line_shows_the_bar_the_count_a_moving_timer_and_what_compiles():
    pending = SweepStatus("demo-beam", 126, states={JobState.PENDING: 126})
    starting = shown(lambda update: None, pause_s=1.1)  # the job processes start
    assert_nothing_cut(starting)
    assert starting[0].endswith(" 0:00:01") and starting[1:] == ["starting the job processes"], starting
    warm_up = WarmUp(JOBS)
    warm_up.under_way = warm_up.jobs[:2]  # two job processes, a kind each
    compiling = shown(lambda update: update(pending, warm_up))
    assert_nothing_cut(compiling)
    assert " ".join(line.strip() for line in compiling[1:]).startswith(
        "kernels 0 of 3 ready; compiling beam blockers-lb on rushhour, astar blockers-lb on rushhour (the first run"), compiling


def test_a_long_name_narrows_the_bar_and_the_pace_and_eta_follow_the_warm_up():
    name = "a-sweep-name-of-forty-characters-in-all"
    running = SweepStatus(name, 126, states={JobState.RUNNING: 2, JobState.DONE: 10, JobState.PENDING: 114},
                          jobs_per_s=2.0, eta_s=169)
    lines = shown(lambda update: update(running), name)
    assert all(len(line) <= WIDTH for line in lines) and lines[0].startswith(name) and " 10/126 " in lines[0], lines
    assert lines[1:] == ["2.0 jobs/s, ETA 0:02:49"], lines
    first = shown(lambda update: update(SweepStatus("demo-beam", 126, states={JobState.RUNNING: 2, JobState.PENDING: 124})))
    assert_nothing_cut(first)
    assert first[1:] == ["the first jobs run"], first


def test_a_slow_status_read_is_skipped_until_it_takes_at_most_half_the_time():
    """At a million jobs a status read takes 0.7 s: four a second would take a core from the jobs."""
    started, calls = [], []
    paced = Paced(lambda: (started.append(time.monotonic()), time.sleep(0.05), calls.append(1)))
    begun = time.monotonic()
    while time.monotonic() - begun < 0.5:
        paced()
        time.sleep(0.01)
    assert 2 <= len(calls) <= 6 and all(b - a >= 0.1 for a, b in zip(started, started[1:])), started
