"""The solver core is a pure library, and its compiled-code cache follows every one of its source files."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMPORT_EVERYTHING = """
import pkgutil, importlib, sys, puzzles
names = [module.name for module in pkgutil.walk_packages(puzzles.__path__, "puzzles.")]
for name in names:
    importlib.import_module(name)
print(" ".join(names))
print(" ".join(sorted({name.split(".")[0] for name in sys.modules})))
"""
CACHE_DIR = "import numba, puzzles.jit; print(numba.config.CACHE_DIR)"


def test_puzzles_and_its_sub_packages_import_no_runner_package():
    run = subprocess.run([sys.executable, "-c", IMPORT_EVERYTHING], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    walked, imported = (set(line.split()) for line in run.stdout.splitlines())
    assert {"puzzles.search.astar", "puzzles.rushhour.kernels", "puzzles.npuzzle.kernels", "puzzles.npuzzle.pdb"} <= walked
    assert not imported & {"celery", "sqlalchemy", "typer", "pandas", "redis", "workers", "orchestrator"}


def cache_dir(root: Path) -> str:
    """The compiled-code cache folder that importing the `puzzles` package under `root` chooses."""
    environment = {"HOME": str(root), "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, "-c", CACHE_DIR], cwd=root, env=environment, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_an_edit_inside_a_sub_package_gives_another_cache_folder(tmp_path):
    copy = tmp_path / "puzzles"
    shutil.copytree(ROOT / "puzzles", copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = cache_dir(tmp_path)
    assert cache_dir(tmp_path) == before  # the same sources give the same folder
    kernels = copy / "npuzzle" / "kernels.py"
    kernels.write_text(kernels.read_text() + "\n# an edit deep in a sub-package\n")
    after = cache_dir(tmp_path)
    assert after != before and Path(after).parent == Path(before).parent


def test_files_of_the_same_name_in_different_sub_packages_hash_apart(tmp_path):
    copy = tmp_path / "puzzles"
    shutil.copytree(ROOT / "puzzles", copy, ignore=shutil.ignore_patterns("__pycache__"))
    rushhour, npuzzle = copy / "rushhour" / "kernels.py", copy / "npuzzle" / "kernels.py"
    before = cache_dir(tmp_path)
    contents = rushhour.read_text(), npuzzle.read_text()
    rushhour.write_text(contents[1])  # the two kernels.py swapped: the same bytes, other paths
    npuzzle.write_text(contents[0])
    assert cache_dir(tmp_path) != before
