"""A search that runs into a memory cap ends with status `limit` and keeps its counters."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CAPPED_SOLVE = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
from puzzles.result import Limits
from puzzles.rushhour.problem import RushHourProblem
from puzzles.rushhour.formats import load_board
from puzzles.solver import solve
problem = RushHourProblem(load_board("data/boards/rushhour/Rushhour12x12_7.csv"))
result = solve(problem, "bfs", {}, Limits(time_limit=120))
print(json.dumps({"status": str(result.outcome), "reason": result.reason, "stored": result.stored,
                  "depth": result.extra.get("depth_reached")}))
"""


@pytest.mark.slow
def test_bfs_stops_cleanly_at_a_memory_cap():
    cap = 3 << 29  # 1.5 GiB of address space: numba itself takes about half
    run = subprocess.run(
        [sys.executable, "-c", CAPPED_SOLVE, str(cap)], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.splitlines()[-1])
    assert result["status"] == "limit"
    assert "out of memory" in result["reason"]
    assert result["stored"] > 1_000_000 and result["depth"] >= 5
