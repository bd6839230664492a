"""The wheel installs like a package: built, installed in a fresh virtualenv, and run from a folder outside the
checkout, with the core dependencies only (issue 31 §5).

The wheel is built from a copy of the packages pyproject.toml names, so that
nothing but what the wheel holds (code, migrations, shipped boards) can be
found, and no build folder is left in the checkout. The virtualenv gets the
wheel alone (`--no-deps`), fast and offline: its dependencies come from this
test run's environment, whose site-packages a `.pth` line puts on its path
(not as a site folder, so the editable install's finder there is never
loaded). A second `.pth` line hides the extras' own libraries (`None` in
`sys.modules`, as a missing module is reported), so the commands run as after
`pip install slidelab`, and a command that needs an extra says which one.
"""

import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tomllib
from importlib import metadata
from pathlib import Path

import pandas as pd
import pytest
from packaging.requirements import Requirement

from orchestrator.boards.catalogue import COURSE_OPTIMA, SHIPPED
from tests.conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
BOARD = ROOT / "data" / "boards" / "rushhour" / "Rushhour6x6_1.csv"
pytestmark = pytest.mark.timeout(600)


def extras_modules() -> list[str]:
    """The top-level modules of the libraries the extras add (the test extra's own tools and the core's apart)."""
    providers = metadata.packages_distributions()
    extras = PYPROJECT["project"]["optional-dependencies"]
    core = {Requirement(line).name.lower() for line in PYPROJECT["project"]["dependencies"]}
    names = {Requirement(line).name.lower() for extra, lines in extras.items() if extra != "test" for line in lines}
    names -= core
    return sorted(module for module, dists in providers.items() if {d.lower() for d in dists} & names)


def build_wheel(folder: Path) -> Path:
    """The wheel of a copy of the sources, built with this environment's setuptools (no download)."""
    source = folder / "source"
    for name in PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]:
        package = name.rstrip("*")
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-cache-dir",
                    "--quiet", "--wheel-dir", str(folder / "dist"), str(source)], check=True, timeout=300)
    return next((folder / "dist").glob("slidelab-*.whl"))


def install(wheel: Path, venv: Path) -> None:
    """A virtualenv with the wheel alone, this environment's libraries behind it and the extras' hidden."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                    "--quiet", str(wheel)], check=True, timeout=300)
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    ours = sorted({*site.getsitepackages(), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    hidden = ", ".join(repr(module) for module in extras_modules())
    (Path(purelib) / "zz_test_dependencies.pth").write_text(
        "\n".join(ours) + f"\nimport sys; sys.modules.update(dict.fromkeys([{hidden}]))\n")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A folder outside the checkout and a function running `orchestrate` there, as the installed wheel."""
    folder = tmp_path_factory.mktemp("wheel")
    venv = folder / "venv"
    install(build_wheel(folder), venv)
    work = folder / "work"
    work.mkdir()
    env = {"PATH": f"{venv / 'bin'}{os.pathsep}{os.defpath}", "HOME": str(folder / "home"), "LANG": "C.UTF-8",
           "NUMBA_CACHE_DIR": str(folder / "numba"),
           # This environment's libraries are plain folders behind the wheel: the editable example plugin's metadata
           # shows there, its import hook does not run. The wheel alone, then.
           "SLIDELAB_DISABLE_PLUGIN_AUTOLOAD": "1"}

    def run(*args: str, code: int = 0) -> subprocess.CompletedProcess:
        done = subprocess.run([str(venv / "bin" / args[0]), *args[1:]], cwd=work, env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == code, (args, done.stdout, done.stderr)
        return done

    return work, run


@pytest.mark.slow
def test_the_installed_wheel_runs_from_a_folder_outside_the_checkout(installed):
    work, run = installed
    where = run("python", "-c", "import orchestrator, workers.store.database as d; print(orchestrator.__file__)")
    assert "site-packages" in where.stdout and str(ROOT) not in where.stdout
    assert run("orchestrate", "--version").stdout.strip() == f"slidelab {PYPROJECT['project']['version']}"

    upgraded = run("orchestrate", "db", "upgrade").stdout  # the migrations, from the wheel
    assert upgraded.strip() == "sqlite:///slidelab.db: schema at the newest revision", upgraded
    shutil.copy(BOARD, work / BOARD.name)
    solved = json.loads(run("orchestrate", "solve", BOARD.name, "--algo", "bfs", "--json").stdout)
    assert (solved["outcome"], solved["moves"]) == ("solved", COURSE_OPTIMA["Rushhour6x6_1"])

    listed = run("orchestrate", "boards", "list").stdout  # the shipped sets, from the wheel
    assert all(name in listed for name in SHIPPED), listed
    shown = run("orchestrate", "boards", "show", "Rushhour6x6_2").stdout
    assert str(COURSE_OPTIMA["Rushhour6x6_2"]) in shown, shown
    run("orchestrate", "sweep", "--name", "from-the-wheel", "--algo", "bfs", "--boards", "set:rushhour-course",
        "--max-nodes", "3000", "--workers", "2")
    status = run("orchestrate", "status", "from-the-wheel").stdout
    assert f"{len(COURSE_OPTIMA)} of {len(COURSE_OPTIMA)} done" in status, status
    run("orchestrate", "report", "from-the-wheel", "--format", "html", "--out", "report.html")
    assert "from-the-wheel" in (work / "report.html").read_text()
    run("orchestrate", "export", "from-the-wheel", "--format", "parquet", "--out", "rows.parquet")  # core: pyarrow
    assert len(pd.read_parquet(work / "rows.parquet")) == len(COURSE_OPTIMA)
    plotted = run("orchestrate", "report", "from-the-wheel", "--plot", code=1).stderr.strip()
    assert plotted == ("error: report --plot needs the plots extra (matplotlib is not installed):"
                       " pip install 'slidelab[plots]'")
    assert sorted(path.name for path in work.iterdir()) == [BOARD.name, "report.html", "rows.parquet", "slidelab.db"]


@pytest.mark.slow
def test_a_command_whose_extra_is_not_installed_names_it(installed):
    work, run = installed
    needs = run("orchestrate", "dashboard", "--db", "sqlite:///none.db", code=1).stderr.strip()
    assert needs == ("error: orchestrate dashboard needs the web extra (starlette is not installed):"
                     " pip install 'slidelab[web]'")
    needs = run("orchestrate", "db", "upgrade", "--db", "postgresql+psycopg://slidelab@127.0.0.1:1/none", code=1)
    assert "needs the postgresql extra (psycopg is not installed): pip install 'slidelab[postgresql]'" in needs.stderr
