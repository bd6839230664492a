"""Shared fixtures."""

import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import settings
from sqlalchemy import text

from puzzles.npuzzle import pdb
from workers.settings import configure
from workers.store.database import engine_for
from workers.store.migrate import upgrade

TABLES = ("results", "jobs", "sweeps", "board_set_members", "board_sets", "boards", "workers")
ROOT = Path(__file__).resolve().parents[1]
# Throwaway Redis and PostgreSQL servers (or SLIDELAB_TEST_REDIS_URL / SLIDELAB_TEST_DATABASE_URL), and the
# kernels compiled once before the test processes start (`-p no:tests.warmup` leaves that to each process).
pytest_plugins = ["tests.services", "tests.warmup"]
# No deadline for a Hypothesis example (200 ms by default): on a busy machine any example may take longer.
settings.register_profile("slidelab", deadline=None)
settings.load_profile("slidelab")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: a test process per core and one more.

    About a fifth of the suite's time is spent waiting (for a lease to lapse,
    a heartbeat, a worker to start), with the core it runs on idle: the extra
    process runs other tests meanwhile.
    """
    return len(os.sched_getaffinity(0)) + 1


def pytest_configure(config: pytest.Config) -> None:
    """Modules handed out in the order `pytest_collection_modifyitems` gives (xdist would sort them by test count)."""
    config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules with the most slow tests first, the rest in their order.

    Spread over processes a module at a time (`--dist loadscope`, in the
    order collected), the longest modules then start at once, side by side,
    and the short ones fill in behind them, rather than one long module
    running alone at the end.
    """
    slow = Counter(item.nodeid.partition("::")[0] for item in items if item.get_closest_marker("slow"))
    items.sort(key=lambda item: -slow[item.nodeid.partition("::")[0]])


@pytest.fixture(scope="session", autouse=True)
def pattern_database_dir(tmp_path_factory) -> Path:
    """Pattern databases built by the tests go to a fresh cache directory, for this process and its job processes."""
    cache = tmp_path_factory.mktemp("cache")
    patch = pytest.MonkeyPatch()
    patch.setenv("SLIDELAB_CACHE_DIR", str(cache))
    configure()
    yield cache / "pdb"
    patch.undo()


@pytest.fixture
def builds(monkeypatch):
    """The tile groups `pdb.build` is called for (it still builds)."""
    calls = []
    real = pdb.build

    def counted(width, height, goal, tiles, progress=None):
        calls.append(tiles)
        return real(width, height, goal, tiles, progress)

    monkeypatch.setattr(pdb, "build", counted)
    return calls


@pytest.fixture(scope="session")
def boards_dir() -> Path:
    """The course Rush Hour boards, `data/boards/rushhour`."""
    return ROOT / "data" / "boards" / "rushhour"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """An empty results database at the newest schema: a new SQLite file, or the test PostgreSQL emptied."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'results.db'}"
        upgrade(url)
        yield url
        return
    url = request.getfixturevalue("postgres_url")
    upgrade(url)
    truncate_tables(url)
    yield url
    truncate_tables(url)


def truncate_tables(url: str) -> None:
    """Empty the results tables of a PostgreSQL database, ids restarting at 1."""
    with engine_for(url).begin() as connection:
        connection.execute(text(f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY CASCADE"))
