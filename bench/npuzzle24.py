"""The 24-puzzle benchmark: 6-6-6-6 database builds, node rates per heuristic, Korf & Felner's instances, a split search.

Run by `make bench` after bench/npuzzle.py with the quick settings (rates only,
the databases built if missing); the long parts are options:

    .venv/bin/python bench/npuzzle24.py                      # rates on the 15- and 24-puzzle (builds what is missing)
    .venv/bin/python bench/npuzzle24.py --build              # also time each 6-6-6-6 group's build in a process of its own
    .venv/bin/python bench/npuzzle24.py --solve 1,5          # solve Korf & Felner's #1 and #5 (minutes each)
    .venv/bin/python bench/npuzzle24.py --split 1 --depth 10 # #1 split into subtree jobs run by two local workers

Rates are CPU-time rates (`time.process_time`) of one search in this process,
after a warm-up; the machine's load average is printed with them, issue 17's
targets beside them, and first the time a random byte load takes from tables
the databases' sizes (`latencies`): the databases' rates follow the memory's,
which differs between machines (and between days of a virtual one). Exits 1 if
a rate misses its target, a solved length differs from the published one or a
replay fails.
"""

import argparse
import json
import multiprocessing as mp
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from puzzles.jit import nb  # noqa: E402
from puzzles.npuzzle import pdb  # noqa: E402
from puzzles.npuzzle.boardlist import read_board_list  # noqa: E402
from puzzles.npuzzle.problem import NPuzzleProblem  # noqa: E402
from puzzles.result import Limits  # noqa: E402
from puzzles.solver import solve  # noqa: E402

KORF100 = ROOT / "data" / "boards" / "npuzzle" / "korf100.csv"
KORF24 = ROOT / "data" / "boards" / "npuzzle" / "korf24.csv"
# Korf & Felner (2002) on one core of a 2021 desktop, ../shared/data/README.md: nodes excluding the last iteration, seconds.
PUBLISHED = {1: (3.95e9, 176), 5: (6.51e9, 168), 3: (6.81e10, None), 8: (7.44e10, None), 4: (7.55e10, None)}
M = 1_000_000
RATE_RUNS = (  # (puzzle, heuristic, partition, instances, node limit per instance, target expanded/s of issue 17)
    ("15", "manhattan", None, (1, 7), None, 45 * M),
    ("15", "pdb", "6-6-3", (88, 59, 32), None, None),
    ("15", "pdb-max", "6-6-3", (88, 59, 32, 60, 82), None, 15 * M),
    ("15", "pdb-max", "7-8", (88, 60, 32, 15, 22), None, 15 * M),
    ("24", "manhattan", None, (1,), 300_000_000, None),
    ("24", "pdb-max", "6-6-6-6", (1,), 100_000_000, 15 * M),
)


def rows(path: Path) -> dict[int, object]:
    """The board list's rows by id."""
    return {int(row.id): row for row in read_board_list(str(path))}


def load() -> str:
    """The load averages, as `uptime` gives them."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


LATENCY_TABLES_MIB = (8, 64, 512)  # about 6-6-3's tables (11.5 MB), 7-8's 7-tile one (55 MB), 7-8 and 6-6-6-6 (495 MiB)
LATENCY_LOADS = 10_000_000


@nb.njit(cache=True)
def _chased(table, loads):
    """The sum of `loads` bytes of `table`, each read at an address drawn from the byte read before it."""
    mask = np.uint64(table.shape[0] - 1)
    address, total = np.uint64(0x9E3779B97F4A7C15), 0
    for _ in range(loads):
        value = table[address & mask]
        total += value
        address = (address ^ np.uint64(value)) * np.uint64(0xBF58476D1CE4E5B9)
        address ^= address >> np.uint64(31)
    return total


def latencies() -> list[dict]:
    """Nanoseconds per random byte load, each waiting for the one before (as IDA*'s lookups wait), per table size."""
    found = []
    for mib in LATENCY_TABLES_MIB:
        table = np.random.default_rng(mib).integers(0, 40, size=mib << 20, dtype=np.uint8)
        _chased(table, 1000)
        started = time.perf_counter()
        _chased(table, LATENCY_LOADS)
        row = {"table_mib": mib, "ns_per_load": round((time.perf_counter() - started) / LATENCY_LOADS * 1e9, 1),
               "load": load()}
        print(f"memory: a random load from a {mib} MiB table waits {row['ns_per_load']} ns (load {row['load']})",
              flush=True)
        found.append(row)
    return found


def rates(skip_78: bool) -> list[dict]:
    """Expanded and generated per CPU second, per heuristic and puzzle."""
    found = []
    for puzzle, heuristic, partition, ids, max_nodes, target in RATE_RUNS:
        if partition == "7-8" and skip_78:
            continue
        boards = rows(KORF100 if puzzle == "15" else KORF24)
        params = {"heuristic": heuristic, **({"pdb": partition} if partition else {})}
        solve(NPuzzleProblem(boards[ids[0]].board), "idastar", params, Limits(max_nodes=1000))  # warm-up, builds
        expanded = generated = 0
        cpu = 0.0
        for number in ids:
            result = solve(NPuzzleProblem(boards[number].board), "idastar", params, Limits(max_nodes=max_nodes))
            expanded, generated, cpu = expanded + result.expanded, generated + result.generated, cpu + result.cpu_s
        row = {"puzzle": puzzle, "heuristic": heuristic, "pdb": partition, "instances": list(ids), "expanded": expanded,
               "generated": generated, "cpu_s": round(cpu, 2), "expanded_per_s": round(expanded / cpu),
               "generated_per_s": round(generated / cpu), "target": target, "load": load()}
        verdict = ""
        if target:
            verdict = f", target {target // M} M: " + ("met" if expanded / cpu >= target else "MISSED")
        print(f"{puzzle}-puzzle {heuristic} {partition or ''}: {expanded:,} expanded in {cpu:.2f} s CPU,"
              f" {expanded / cpu / M:.2f} M expanded/s, {generated / cpu / M:.2f} M generated/s{verdict}"
              f" (load {row['load']})", flush=True)
        found.append(row)
    return found


def _build_child(tiles: tuple[int, ...], queue) -> None:
    pdb.build(5, 5, "blank-first", (tiles[0],))  # compile or load the builder first
    started, cpu = time.perf_counter(), time.process_time()
    values = pdb.build(5, 5, "blank-first", tiles)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    pdb.save(pdb.path_for(5, 5, "blank-first", tiles), 5, 5, "blank-first", tiles, values)
    queue.put({"tiles": list(tiles), "seconds": round(seconds, 1), "cpu_s": round(cpu, 1),
               "deepest": int(values[values < pdb.UNREACHED].max()),
               "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024})


def builds() -> list[dict]:
    """Each 6-6-6-6 group built in a fresh process: wall and CPU seconds, deepest entry, peak RSS."""
    context = mp.get_context("spawn")
    found = []
    for tiles in pdb.parse_partition("6-6-6-6", 5, 5):
        queue = context.Queue()
        process = context.Process(target=_build_child, args=(tiles, queue))
        process.start()
        process.join()
        row = queue.get() if not queue.empty() else {"tiles": list(tiles), "error": process.exitcode}
        row["load"] = load()
        print(f"build {row}", flush=True)
        found.append(row)
    return found


def solved(ids: list[int]) -> list[dict]:
    """Korf & Felner's instances solved by IDA* with pdb-max 6-6-6-6, replayed, beside the published effort."""
    boards = rows(KORF24)
    found = []
    for number in ids:
        problem = NPuzzleProblem(boards[number].board)
        result = solve(problem, "idastar", {"heuristic": "pdb-max", "pdb": "6-6-6-6"})
        nodes, seconds = PUBLISHED.get(number, (None, None))
        row = {"id": number, "optimal": int(boards[number].columns["optimal"]), "moves": result.moves,
               "expanded": result.expanded, "generated": result.generated, "cpu_s": round(result.cpu_s, 1),
               "elapsed_s": round(result.elapsed_s, 1), "replayed": problem.check_solution(result.move_codes),
               "published_nodes": nodes, "published_s": seconds, "load": load()}
        print(json.dumps(row), flush=True)
        found.append(row)
    return found


def split(number: int, depth: int, workers: int) -> dict:
    """`orchestrate split` on instance `number` with `workers` local job processes, in a throwaway database."""
    database = Path(tempfile.mkdtemp(prefix="slidelab-split-")) / "split.db"
    command = [str(ROOT / ".venv" / "bin" / "orchestrate"), "split", f"{KORF24}#{number}", "--depth", str(depth),
               "--heuristic", "pdb-max", "--pdb", "6-6-6-6", "--workers", str(workers), "--db", f"sqlite:///{database}"]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "SLIDELAB_BROKER_URL": ""})
    row = {"id": number, "depth": depth, "workers": workers, "seconds": round(time.perf_counter() - started, 1),
           "summary": done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr, "load": load()}
    print(json.dumps(row), flush=True)
    return row


def main() -> int:
    """Run the parts asked for; 1 if a length or a replay is wrong."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="store_true", help="time each 6-6-6-6 group's build (about 4 CPU minutes)")
    parser.add_argument("--solve", help="Korf & Felner instance ids to solve, comma-separated (e.g. 1,5)")
    parser.add_argument("--split", type=int, help="an instance to solve split into subtree jobs")
    parser.add_argument("--depth", type=int, default=10, help="the split's depth")
    parser.add_argument("--workers", type=int, default=2, help="local job processes for --split")
    parser.add_argument("--no-rates", action="store_true", help="skip the node rates")
    parser.add_argument("--with-7-8", action="store_true", help="also the 15-puzzle's 7-8 rates (builds 7-8: 5 min, 3.6 GB)")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    options = parser.parse_args()
    figures = {"latencies": latencies(),
               "builds": builds() if options.build else [],
               "rates": [] if options.no_rates else rates(skip_78=not options.with_7_8),
               "solved": solved([int(n) for n in options.solve.split(",")]) if options.solve else [],
               "split": split(options.split, options.depth, options.workers) if options.split else None}
    if options.json:
        options.json.write_text(json.dumps(figures, indent=1))
    wrong = [r for r in figures["solved"] if r["moves"] != r["optimal"] or not r["replayed"]]
    slow = [r for r in figures["rates"] if r["target"] and r["expanded_per_s"] < r["target"]]
    return 1 if wrong or slow else 0


if __name__ == "__main__":
    sys.exit(main())
