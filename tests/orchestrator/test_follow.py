"""Following an experiment run elsewhere (`status --watch`): a kind that proposes a batch at a time is not left between
two batches, where it looks done for as long as its driver takes to propose the next."""

import threading
import time

import pytest
from sqlalchemy import update

from orchestrator.sweeps import driver
from slidelab import experiments
from workers.settings import configure
from workers.store import connect
from workers.store.migrate import upgrade
from workers.store.schema import jobs, sweeps
from workers.store.sweeps import find

BOARD = "data/boards/rushhour/Rushhour6x6_1.csv"


@pytest.fixture
def url(tmp_path):
    """A new SQLite results database holding the sweep `done`: two BFS jobs, both done."""
    found = f"sqlite:///{tmp_path / 'results.db'}"
    upgrade(found)
    experiments.sweep(experiments.sweep_plan("bfs,astar", boards=[BOARD], name="done", db=found), workers=1, db=found)
    yield found
    configure()


def set_kind(url: str, kind: str) -> None:
    with connect(url).engine.begin() as connection:
        connection.execute(update(sweeps).where(sweeps.c.name == "done").values(kind=kind))


def set_first_job(url: str, **values) -> None:
    db = connect(url)
    experiment = find(db, "done")
    with db.engine.begin() as connection:
        first = connection.execute(jobs.select().where(jobs.c.sweep_id == experiment.id).order_by(jobs.c.id)).first()
        connection.execute(update(jobs).where(jobs.c.id == first.id).values(**values))


def follow(url: str) -> None:
    db = connect(url)
    driver.follow(db, find(db, "done"), on_progress=lambda *_: None)


def test_a_grid_sweep_done_is_followed_no_further(url):
    started = time.monotonic()
    follow(url)
    assert time.monotonic() - started < driver.SETTLE_S


def test_a_study_between_two_batches_is_followed_on(url, monkeypatch):
    monkeypatch.setattr(driver, "SETTLE_S", 2.0)
    set_kind(url, "study")
    follower = threading.Thread(target=follow, args=(url,), daemon=True)
    follower.start()
    time.sleep(0.2)
    set_first_job(url, status="running", outcome=None)  # the driver's next batch, well within SETTLE_S
    time.sleep(3.0)
    assert follower.is_alive()  # past SETTLE_S since it first looked done: the new batch kept it following
    set_first_job(url, status="done", outcome="solved")
    follower.join(timeout=10)
    assert not follower.is_alive()
