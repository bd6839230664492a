"""Beam search's solution lengths on the course boards, per heuristic and beam width, as a Markdown table.

    .venv/bin/python bench/beam_lengths.py                    # k = 1, 2, 5, 10, 20, 50
    .venv/bin/python bench/beam_lengths.py --k 1..50 --boards 6x6_1 9x9_4

A cell is the solution's length in moves (slide model); `fail` when the beam
emptied, `limit` when the search stopped at the expansion limit.
"""

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from puzzles import stops  # noqa: E402
from puzzles.rushhour.formats import load_board  # noqa: E402
from puzzles.rushhour.problem import RushHourProblem  # noqa: E402
from puzzles.search.beam import beam  # noqa: E402

BOARDS = ("6x6_1", "6x6_2", "6x6_3", "9x9_4", "9x9_5", "9x9_6", "12x12_7")
HEURISTICS = ("blockers", "blockers-lb", "blocking-tree")


def widths(text: str) -> list[int]:
    """`1..50` or `1,2,5` as a list of widths."""
    if ".." in text:
        first, last = text.split("..")
        return list(range(int(first), int(last) + 1))
    return [int(k) for k in text.split(",")]


def length(problem: RushHourProblem, heuristic: str, k: int, max_nodes: int) -> str:
    """Beam's solution length with this heuristic and width, or why there is none."""
    h = problem.heuristic(heuristic)
    status, moves, *_ = beam(h.spec, problem.start_key(), h.code, h.args, problem.kernels.max_branching, k, max_nodes,
                             math.inf)
    return {stops.SOLVED: str(len(moves)), stops.FAILED: "fail"}.get(status, "limit")


def main() -> None:
    """Print one table row per board and heuristic."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--k", default="1,2,5,10,20,50", help="beam widths: 1..50 or 1,2,5")
    parser.add_argument("--boards", nargs="*", default=BOARDS)
    parser.add_argument("--max-nodes", type=int, default=2_000_000, help="expansions per search at most")
    args = parser.parse_args()
    ks = widths(args.k)
    print("| board | heuristic | " + " | ".join(f"k={k}" for k in ks) + " |")
    print("|---|---|" + "---:|" * len(ks))
    for board in args.boards:
        problem = RushHourProblem(load_board(str(ROOT / "data" / "boards" / "rushhour" / f"Rushhour{board}.csv")))
        for heuristic in HEURISTICS:
            cells = [length(problem, heuristic, k, args.max_nodes) for k in ks]
            print(f"| {board} | {heuristic} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
