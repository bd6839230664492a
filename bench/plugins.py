"""A numba plugin heuristic inside slidelab's compiled searches, against the built-in it copies.

Run by `make bench`. The example plugin's `blockers_nb`
(examples/greedy-search) computes exactly slidelab's own `blockers`; each
search runs on Fogleman's 40 puzzles with one and then the other, the same
states expanded and generated, so the ratio of their generated states per CPU
second is the price of a plugin. The searches are called compiled, directly,
after a warm-up; each figure is the best of `--repeats` runs of all 40
puzzles (`time.process_time`), the two heuristics taking turns, with the
machine's load average, since the machine is shared. Issue 48's target is
A*'s row: the plugin at 0.7 of the built-in's rate or more. IDA* (with its
memo, as Rush Hour runs it) and beam are shown beside it.

    .venv/bin/python bench/plugins.py                 # A*, IDA*, beam
    .venv/bin/python bench/plugins.py --only astar --repeats 9

The plugin is the installed `greedy-search`'s `blockers-nb`, else the one in
the checkout's examples/. Exits 1 if the target is missed, if the two
searches differ in any count or solution, or if A* misses a listed optimum.
"""

import argparse
import importlib.util
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from puzzles.memo import FIRST_CAPACITY  # noqa: E402
from puzzles.plugged import heuristic_for  # noqa: E402
from puzzles.plugins import Origin, _register  # noqa: E402
from puzzles.registry import HEURISTICS, loaded  # noqa: E402
from puzzles.rushhour.formats import load_board  # noqa: E402
from puzzles.rushhour.problem import RushHourProblem  # noqa: E402
from puzzles.search import iddfs  # noqa: E402
from puzzles.search.astar import astar  # noqa: E402
from puzzles.search.beam import beam  # noqa: E402

FORTY = ROOT / "data" / "boards" / "fogleman" / "forty.txt"
EXAMPLE = ROOT / "examples" / "greedy-search" / "src" / "greedy_search" / "heuristics.py"
PLUGIN, BUILT_IN = "blockers-nb", "blockers"
TARGET = 0.7  # the plugin's generated states per second over the built-in's, in A*
BEAM_K = 100


def load() -> str:
    """The load averages, as `uptime` gives them."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def plugin_source() -> str:
    """Register the example's `blockers_nb` as blockers-nb unless the installed package did; where it comes from."""
    loaded()
    if ("rushhour", PLUGIN) in HEURISTICS:
        return HEURISTICS["rushhour", PLUGIN].origin.label
    spec = importlib.util.spec_from_file_location("greedy_search_heuristics", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _register(PLUGIN, module.blockers_nb, Origin("greedy-search", "checkout", "", local=True))
    return f"{EXAMPLE.relative_to(ROOT)} (not installed)"


def searches(algorithm: str, problems: list[RushHourProblem], name: str):
    """A function running `algorithm` with heuristic `name` on every problem: its (status, moves, expanded,
    generated) per problem."""
    cases = [(problem, heuristic_for(problem, "astar", name, {})) for problem in problems]

    def one(problem, h):
        start, branching = problem.start_key(), problem.kernels.max_branching
        if algorithm == "astar":
            status, moves, expanded, generated = astar(h.spec, start, h.code, h.args, branching, 2**62, math.inf)[:4]
        elif algorithm == "beam":
            status, moves, expanded, generated = beam(h.spec, start, h.code, h.args, branching, BEAM_K, 2**62,
                                                      math.inf)[:4]
        else:
            status, moves, counters = iddfs.deepening(h.spec, start, branching, True, h.admissible, h.code, h.args,
                                                      FIRST_CAPACITY, 2**62, math.inf)[:3]
            expanded, generated = counters[iddfs.EXPANDED], counters[iddfs.GENERATED]
        return int(status), tuple(int(m) for m in moves), int(expanded), int(generated)

    return lambda: [one(problem, h) for problem, h in cases]


def timed(runs: dict, repeats: int) -> dict:
    """Each run's best CPU seconds over `repeats` turns (the runs taking turns), after one warm-up each; and its
    last result."""
    results = {name: run() for name, run in runs.items()}
    best = dict.fromkeys(runs, math.inf)
    for _ in range(repeats):
        for name, run in runs.items():
            started = time.process_time()
            results[name] = run()
            best[name] = min(best[name], time.process_time() - started)
    return {name: (best[name], results[name]) for name in runs}


def compare(algorithm: str, problems: list[RushHourProblem], optima: list[int], repeats: int) -> tuple[list[dict], bool]:
    """The built-in's row and the plugin's for `algorithm`; and whether everything checks out."""
    figures = timed({name: searches(algorithm, problems, name) for name in (BUILT_IN, PLUGIN)}, repeats)
    (base_s, base), (plugin_s, plugged) = figures[BUILT_IN], figures[PLUGIN]
    same = base == plugged
    optimal = algorithm == "beam" or [len(moves) for _, moves, _, _ in plugged] == optima
    rows = []
    for name, (seconds, results) in figures.items():
        generated = sum(r[3] for r in results)
        rows.append({"search": f"{algorithm} fogleman 40", "heuristic": name,
                     "expanded": sum(r[2] for r in results), "generated": generated,
                     "moves": sum(len(r[1]) for r in results), "cpu_s": round(seconds, 4),
                     "generated_per_s": round(generated / seconds), "load": load()})
    ratio = base_s / plugin_s
    met = ratio >= TARGET
    rows[1]["ratio"] = f"{ratio:.2f}"
    rows[1]["target"] = ("met" if met else "missed") if algorithm == "astar" else ""
    if not same:
        rows[1]["target"] = "counts differ"
    if not optimal:
        rows[1]["target"] = "not optimal"
    return rows, same and optimal and (met or algorithm != "astar")


def main() -> None:
    """Print a Markdown table of the built-in and the plugin per search; exit 1 on a miss or a difference."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", choices=("astar", "idastar", "beam"), help="the searches to run")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs of the 40 puzzles per heuristic")
    args = parser.parse_args()
    lines = [line.split() for line in FORTY.read_text().splitlines() if line and not line.startswith("#")]
    problems = [RushHourProblem(load_board(text)) for text, _ in lines]
    optima = [int(moves) for _, moves in lines]
    print(f"plugin {PLUGIN}: {plugin_source()}; target: in A*, >= {TARGET} x the built-in's generated states per"
          f" CPU second; load {load()}")
    columns = ["search", "heuristic", "expanded", "generated", "moves", "cpu_s", "generated_per_s", "ratio", "target",
               "load"]
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    ok = True
    for algorithm in args.only or ("astar", "idastar", "beam"):
        rows, checked = compare(algorithm, problems, optima, args.repeats)
        ok &= checked
        for row in rows:
            print("| " + " | ".join(str(row.get(column, "")) for column in columns) + " |", flush=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
