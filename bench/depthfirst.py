"""Depth-first searches on Rush Hour with their memo: IDDFS and IDA* on Fogleman's 40 puzzles and the course boards.

Run by `make bench`. Each row runs the search through `puzzles.solver.solve`
(the kernels compiled or loaded first, not timed) and prints its search time
(CPU, the machine being shared), its load average, its target and whether it met it:

- forty: IDDFS, and IDA* with blockers-lb, on Fogleman's 40 puzzles, every
  length checked against data/boards/fogleman/forty.txt; target 2 s in all
  for each (Fogleman's Go IDDFS with its memo: 2.0 s);
- course: both on the six 6x6 and 9x9 course boards, each length checked
  against the optimum; target: solved, optimally, within the time limit.

    .venv/bin/python bench/depthfirst.py                 # every row
    .venv/bin/python bench/depthfirst.py --only forty    # forty or course
    .venv/bin/python bench/depthfirst.py --no-memo --only course --time-limit 60   # the textbook searches

Exits 1 if a length is wrong or a target missed.
"""

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from puzzles.result import Limits, Outcome  # noqa: E402
from puzzles.rushhour.formats import load_board  # noqa: E402
from puzzles.rushhour.problem import RushHourProblem  # noqa: E402
from puzzles.solver import solve  # noqa: E402

FORTY = ROOT / "data" / "boards" / "fogleman" / "forty.txt"
BOARDS = ROOT / "data" / "boards" / "rushhour"
COURSE = {"6x6_1": 21, "6x6_2": 15, "6x6_3": 33, "9x9_4": 27, "9x9_5": 22, "9x9_6": 18}  # optima (docs/boards.md)
FORTY_TARGET_S = 2.0
ALGORITHMS = {"iddfs": {}, "idastar": {"heuristic": "blockers-lb"}}


def load() -> str:
    """The load averages, as `uptime` gives them."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def forty_puzzles() -> list[tuple[RushHourProblem, int]]:
    """Fogleman's 40 puzzles with their optima."""
    lines = [line.split() for line in FORTY.read_text().splitlines() if line and not line.startswith("#")]
    return [(RushHourProblem(load_board(text)), int(moves)) for text, moves in lines]


def run_all(name: str, problems: list[tuple[RushHourProblem, int]], params: dict, time_limit: float) -> dict:
    """One algorithm over `problems`: seconds of search in all, expansions, and the problems not solved optimally."""
    seconds = expanded = 0.0
    wrong = []
    for number, (problem, optimum) in enumerate(problems, 1):
        result = solve(problem, name, params, Limits(time_limit=time_limit))
        seconds += result.cpu_s
        expanded += result.expanded
        if result.outcome != Outcome.SOLVED or result.moves != optimum:
            wrong.append(f"{number}: {result.outcome} {result.moves}")
    return {"seconds": seconds, "expanded": int(expanded), "wrong": wrong}


def rows(only: list[str] | None, memo: bool, time_limit: float):
    """Yield each row: (case, algorithm, seconds, expansions, target, met, wrong)."""
    cases = {"forty": forty_puzzles,
             **{board: lambda board=board: [(RushHourProblem(load_board(str(BOARDS / f"Rushhour{board}.csv"))),
                                             COURSE[board])] for board in COURSE}}
    for case, problems in cases.items():
        if only and case not in only and not (case in COURSE and "course" in only):
            continue
        for name, params in ALGORITHMS.items():
            run = run_all(name, problems(), {**params, "memo": memo}, time_limit)
            target = FORTY_TARGET_S if case == "forty" else time_limit
            met = not run["wrong"] and run["seconds"] <= target
            yield case, name, run, target, met


def main() -> None:
    """Print the rows as a Markdown table; exit 1 if one missed its target."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", help="forty, course, or course boards such as 9x9_5")
    parser.add_argument("--no-memo", action="store_true", help="the searches without their memo")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per course board (default 120)")
    args = parser.parse_args()
    print("| case | algorithm | memo | search CPU s | expanded | target | met | not optimal | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    missed = False
    for case, name, run, target, met in rows(args.only, not args.no_memo, args.time_limit):
        missed |= not met
        print(f"| {case} | {name} | {'off' if args.no_memo else 'on'} | {run['seconds']:.3f} | {run['expanded']:,} |"
              f" ≤ {target:g} s, optimal | {'met' if met else 'missed'} | {', '.join(run['wrong'])} | {load()} |",
              flush=True)
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
