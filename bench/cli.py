"""How fast the command line starts: `orchestrate --help` and a subcommand's help, each run 10 times.

Usage: `python bench/cli.py`. Prints a Markdown table of the median and best
wall times (target: `orchestrate --help` under 0.5 s).
"""

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ORCHESTRATE = [sys.executable, "-c", "from orchestrator.cli import app; app()"]
CASES = (["--help"], ["--version"], ["sweep", "--help"], ["solve", "--help"], ["report", "--help"])
RUNS = 10
TARGET_S = 0.5


def timed(args: list[str]) -> list[float]:
    """The wall times of RUNS runs of `orchestrate ARGS`."""
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        subprocess.run(ORCHESTRATE + args, cwd=ROOT, capture_output=True, check=True)
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    """Time each case and print the table; exit 1 if `--help` misses its target."""
    print("| command | median | best |\n|---|---:|---:|")
    medians = {}
    for args in CASES:
        times = timed(args)
        medians[" ".join(args)] = statistics.median(times)
        print(f"| orchestrate {' '.join(args)} | {statistics.median(times):.3f} s | {min(times):.3f} s |", flush=True)
    if medians["--help"] > TARGET_S:
        print(f"FAILED: orchestrate --help took {medians['--help']:.3f} s, over the target of {TARGET_S} s")
        sys.exit(1)


if __name__ == "__main__":
    main()
