"""slidelab benchmarks: `make bench` runs them all and prints Markdown tables.

Each case runs in a child process of its own, under a memory cap (RLIMIT_AS)
and a time limit, so one runaway search can't take the machine down and every
figure has a fresh process (peak RSS is that case's). Results also go to
bench/results.json. Usage: `python bench/run.py [--quick] [--only NAME...]`.
"""

import argparse
import json
import multiprocessing as mp
import platform
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOARDS = ROOT / "data" / "boards" / "rushhour"
GIB = 1 << 30

# (name, board file, algorithm, params, time limit s, memory cap bytes)
CASES = [
    *[(f"bfs {b}", b, "bfs", {}, 600, 8 * GIB) for b in ("6x6_1", "6x6_2", "6x6_3", "9x9_4", "9x9_5", "9x9_6")],
    *[(f"bfs exhaustive {b}", b, "bfs", {"exhaustive": True}, 600, 8 * GIB) for b in ("6x6_1", "6x6_2", "6x6_3", "9x9_4")],
    *[
        (f"astar {h} {b}", b, "astar", {"heuristic": h}, 600, 8 * GIB)
        for b in ("6x6_1", "6x6_2", "6x6_3", "9x9_4", "9x9_5", "9x9_6")
        for h in ("blockers", "blockers-lb")
    ],
    ("bfs 12x12_7", "12x12_7", "bfs", {}, 600, 8 * GIB),
]
QUICK = {"bfs 6x6_1", "bfs 9x9_4", "bfs exhaustive 6x6_2", "astar blockers-lb 9x9_4"}


def _run_case(case, queue) -> None:
    name, board, algorithm, params, time_limit, memory = case
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    from puzzles.result import Limits
    from puzzles.rushhour.formats import load_board
    from puzzles.rushhour.problem import RushHourProblem
    from puzzles.solver import solve

    problem = RushHourProblem(load_board(str(BOARDS / f"Rushhour{board}.csv")))
    result = solve(problem, algorithm, params, Limits(time_limit=time_limit))
    queue.put(
        {
            "case": name,
            "status": str(result.outcome),
            "reason": result.reason,
            "moves": result.moves,
            "expanded": result.expanded,
            "stored": result.stored,
            "elapsed_s": round(result.elapsed_s, 3),
            "expanded_per_s": round(result.expanded / result.elapsed_s) if result.elapsed_s else None,
            "bytes_per_state": result.extra.get("bytes_per_state"),
            "reachable": result.extra.get("reachable"),
            "depth_reached": result.extra.get("depth_reached"),
            "peak_rss_mib": round(result.peak_mem_bytes / 2**20),
        }
    )


def run(case) -> dict:
    """Run one case in a fresh process; a crash or a memory cap hit is reported, not raised."""
    queue = mp.get_context("spawn").Queue()
    process = mp.get_context("spawn").Process(target=_run_case, args=(case, queue))
    started = time.monotonic()
    process.start()
    process.join(case[4] + 120)
    if process.is_alive():
        process.kill()
    if not queue.empty():
        return queue.get()
    return {"case": case[0], "status": "crashed", "reason": f"exit code {process.exitcode}",
            "elapsed_s": round(time.monotonic() - started, 1)}


def main() -> None:
    """Run the selected cases and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a few short cases only")
    parser.add_argument("--only", nargs="*", help="case names to run")
    args = parser.parse_args()
    cases = [c for c in CASES if (not args.quick or c[0] in QUICK) and (not args.only or c[0] in args.only)]
    columns = ["case", "status", "moves", "expanded", "stored", "elapsed_s", "expanded_per_s", "bytes_per_state",
               "reachable", "depth_reached", "peak_rss_mib", "reason"]
    print(f"machine: {platform.processor() or platform.machine()}, Python {sys.version.split()[0]}")
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    results = []
    for case in cases:
        row = run(case)
        results.append(row)
        print("| " + " | ".join("" if row.get(c) is None else str(row.get(c)) for c in columns) + " |", flush=True)
    (ROOT / "bench" / "results.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
