"""The solver core is a pure library: it never imports the runner's queue, database, CLI or report packages."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMPORT_EVERYTHING = """
import pkgutil, importlib, sys, puzzles
for module in pkgutil.iter_modules(puzzles.__path__):
    importlib.import_module(f"puzzles.{module.name}")
print(" ".join(sorted({name.split(".")[0] for name in sys.modules})))
"""


def test_puzzles_imports_no_runner_package():
    run = subprocess.run([sys.executable, "-c", IMPORT_EVERYTHING], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    imported = set(run.stdout.split())
    assert not imported & {"celery", "sqlalchemy", "typer", "pandas", "redis", "workers", "orchestrator"}
