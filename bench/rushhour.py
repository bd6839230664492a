"""Rush Hour's node-store searches and small BFS at speed: beam, A*, and Fogleman's 40 puzzles.

Run by `make bench` after bench/run.py. Each case runs the compiled search
directly, after a warm-up, a few times; the figure is the best CPU time
(`time.process_time`), printed with the machine's load average, since the
machine is shared. Bytes per state are the search's own tables (allocated
capacity, used or not) over the states stored; `target` says whether the row
meets issue 18's target for its search. First it prints the memory
floor of a long beam search: the time its probes and writes into a large
table take per expansion, with nothing else (machines differ most in this).

    .venv/bin/python bench/rushhour.py            # every case
    .venv/bin/python bench/rushhour.py --only forty 'beam 12x12_7 k=1 blockers'

Exits 1 if a Fogleman puzzle's BFS length differs from its listed optimum.
"""

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from puzzles.intrinsics import prefetch  # noqa: E402
from puzzles.jit import nb  # noqa: E402
from puzzles.rushhour.formats import load_board  # noqa: E402
from puzzles.rushhour.problem import RushHourProblem  # noqa: E402
from puzzles.search.astar import astar  # noqa: E402
from puzzles.search.beam import beam  # noqa: E402
from puzzles.search.bfs import bfs  # noqa: E402
from puzzles.stateset import new_table  # noqa: E402

BOARDS = ROOT / "data" / "boards" / "rushhour"
FORTY = ROOT / "data" / "boards" / "fogleman" / "forty.txt"
TARGETS = {"beam 12x12": 400_000, "beam 9x9": 1_000_000, "astar": 500_000, "bytes": 40, "forty_ms": 50}
# (algorithm, board, heuristic, k, expansions at most)
CASES = [
    ("beam", "12x12_7", "blockers", 1, 300_000),
    *[("beam", b, h, k, 300_000) for b in ("9x9_4", "9x9_5", "9x9_6") for h, k in (("blockers", 1), ("blockers-lb", 10))],
    ("beam", "12x12_7", "blocking-tree", 1, 300_000),
    *[("astar", b, h, None, 10_000_000) for b in ("9x9_5", "9x9_6") for h in ("blockers-lb", "blocking-tree")],
]


FLOOR_MIB, FLOOR_PROBES, FLOOR_WRITES = 128, 20, 12  # a long 9x9 beam: ~20 children, ~12 new, a table of ~100 MB


@nb.njit(cache=True)
def _probes(table, expansions, probes, writes):
    """Per expansion, `probes` random slots of a set's `table` prefetched together, then read, `writes` of them
    written."""
    slots = np.empty(probes, np.int64)
    x, total = np.uint64(0x9E3779B97F4A7C15), np.uint64(0)
    for _ in range(expansions):
        for j in range(probes):
            x = x * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
            slots[j] = np.int64(((x >> np.uint64(32)) * np.uint64(table.shape[0])) >> np.uint64(32))
            prefetch(table, slots[j])
        for j in range(probes):
            total += table[slots[j], 0]
            if j < writes:
                table[slots[j], 0] = x
    return total


def memory_floor() -> float:
    """Nanoseconds per expansion of a beam's memory work alone: its probes and writes into a big table, no growth."""
    table = new_table(FLOOR_MIB << 17, 1)  # one-word slots, on huge pages as the set's
    _probes(table, 1000, FLOOR_PROBES, FLOOR_WRITES)
    started = time.perf_counter()
    _probes(table, 1_000_000, FLOOR_PROBES, FLOOR_WRITES)
    ns = (time.perf_counter() - started) * 1e3
    print(f"memory floor: {FLOOR_PROBES} prefetched probes and {FLOOR_WRITES} writes into a {FLOOR_MIB} MiB table take"
          f" {ns:.0f} ns per expansion (load {load()})", flush=True)
    return ns


def load() -> str:
    """The load averages, as `uptime` gives them."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def best_time(run, repeats: int):
    """(best CPU seconds, last result) of `repeats` calls of `run` after one warm-up call."""
    result = run()
    best = math.inf
    for _ in range(repeats):
        started = time.process_time()
        result = run()
        best = min(best, time.process_time() - started)
    return best, result


def node_case(algorithm: str, board: str, heuristic: str, k: int | None, max_nodes: int) -> dict:
    """One beam or A* case: its counts, expansions per CPU second and bytes per stored state."""
    problem = RushHourProblem(load_board(str(BOARDS / f"Rushhour{board}.csv")))
    h = problem.heuristic(heuristic)
    branching = problem.kernels.max_branching
    if algorithm == "beam":
        run = lambda: beam(h.spec, problem.start_key(), h.code, h.args, branching, k, max_nodes, math.inf)  # noqa: E731
        bytes_at = 7  # where the result holds its table bytes
    else:
        run = lambda: astar(h.spec, problem.start_key(), h.code, h.args, branching, max_nodes, math.inf)  # noqa: E731
        bytes_at = 6
    seconds, result = best_time(run, 3 if max_nodes <= 300_000 else 1)
    status, moves, expanded, generated, stored = result[0], result[1], result[2], result[3], result[5]
    return {"case": f"{algorithm} {board}" + (f" k={k}" if k else "") + f" {heuristic}", "status": int(status),
            "moves": len(moves) if status == 0 else None, "expanded": expanded, "generated": generated, "stored": stored,
            "cpu_s": round(seconds, 3), "expanded_per_s": round(expanded / seconds),
            "stored_per_s": round(stored / seconds),
            "bytes_per_state": round(result[bytes_at] / stored, 1), "load": load()}


def forty() -> dict:
    """BFS on Fogleman's 40 puzzles: the total CPU time of the searches (best of 5), each length checked."""
    lines = [line.split() for line in FORTY.read_text().splitlines() if line and not line.startswith("#")]
    problems = [(RushHourProblem(load_board(text)), int(moves)) for text, moves in lines]

    def run():
        return [bfs(p.kernels.spec, p.start_key(), p.kernels.max_branching, False, 2**62, math.inf) for p, _ in problems]

    seconds, results = best_time(run, 5)
    wrong = [i + 1 for i, ((_, moves), r) in enumerate(zip(problems, results)) if len(r[1]) != moves]
    expanded, stored = sum(int(r[2]) for r in results), sum(int(r[5]) for r in results)
    return {"case": "bfs fogleman 40", "status": 0 if not wrong else 1, "moves": sum(m for _, m in problems),
            "expanded": expanded, "stored": stored, "cpu_s": round(seconds, 4), "expanded_per_s": round(expanded / seconds),
            "stored_per_s": round(stored / seconds), "wrong": wrong, "load": load()}


def verdict(case: tuple, row: dict) -> str:
    """`met` or `missed`: the row against issue 18's target for its search (its rate, and bytes per state)."""
    if case == ("forty",):
        return "met" if row["cpu_s"] * 1000 <= TARGETS["forty_ms"] else "missed"
    algorithm, board = case[:2]
    rate = TARGETS["astar"] if algorithm == "astar" else TARGETS[f"beam {board.split('_')[0]}"]
    return "met" if row["expanded_per_s"] >= rate and row["bytes_per_state"] <= TARGETS["bytes"] else "missed"


def main() -> None:
    """Run the cases and print a Markdown table; exit 1 if a Fogleman length is wrong."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", help="case names to run (forty, or e.g. 'astar 9x9_5 blockers-lb')")
    args = parser.parse_args()
    columns = ["case", "status", "moves", "expanded", "stored", "cpu_s", "expanded_per_s", "stored_per_s", "bytes_per_state",
               "target", "load"]
    print(f"targets: {TARGETS}")
    memory_floor()
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    failed = False
    todo = [("forty",)] + CASES
    for case in todo:
        name = "forty" if case == ("forty",) else f"{case[0]} {case[1]}" + (f" k={case[3]}" if case[3] else "") + f" {case[2]}"
        if args.only and name not in args.only:
            continue
        row = forty() if case == ("forty",) else node_case(*case)
        row["target"] = verdict(case, row)
        failed |= bool(row.get("wrong"))
        print("| " + " | ".join("" if row.get(c) is None else str(row[c]) for c in columns) + " |", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
