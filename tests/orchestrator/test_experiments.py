"""Every kind of experiment through the one driver, on the local pool: cancelled, interrupted, a worker lost, resumed.

Each kind runs a small experiment (6x6 Rush Hour boards, 8-puzzles, a
15-puzzle a few bounds deep) and is stopped at its first progress: by
`cancel` from the progress callback, or by Ctrl-C (SIGINT to this process,
which the driver defers until the job processes have handed their jobs back).
`resume` then finishes it, also when a job was left held by a worker that is
gone (its lease lapses and the job is run again).
"""

import os
import signal
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import optuna
import pytest
from sqlalchemy import select, update

from orchestrator.boards import catalogue
from orchestrator.sweeps import optima
from orchestrator.sweeps.sources import load_boards
from puzzles.domains import problem_for
from puzzles.result import Outcome
from puzzles.solver import solve
from slidelab import experiments
from workers.settings import configure
from workers.store import connect
from workers.store.migrate import upgrade
from workers.store.progress import COMPLETE
from workers.store.schema import jobs
from workers.store.sweeps import ExperimentKind, find

SIX = [f"data/boards/rushhour/Rushhour6x6_{n}.csv" for n in (1, 2, 3)]
EIGHTS = ["8 1 3/4 0 2/7 6 5", "1 2 3/4 5 6/0 7 8", "4 1 3/7 2 6/0 5 8", "1 2 3/5 0 6/4 7 8"]
FIFTEEN = "1 3 0 4/5 2 12 14/9 6 15 7/13 11 8 10"  # 24 moves: three bounds, of 1, 14 and 47 subtrees at depth 2


@dataclass
class Kind:
    """How a test starts an experiment of one kind, goes on with it, and tells it is finished."""

    name: str
    start: Any  # (url, on_progress) -> the run's value
    finished: Any  # (url) -> bool


def _grid(url: str, on_progress) -> Any:
    plan = experiments.sweep_plan("beam", {"k": "1..60", "heuristic": "blockers"}, SIX, name="grid", db=url)
    return experiments.sweep(plan, workers=2, chunk=1, db=url, on_progress=on_progress)


def _study(url: str, on_progress) -> Any:
    return experiments.tune("study", "moves-freed", {"w_exit": "0..10", "w_blockers": "0..10"}, SIX, trials=3, seed=1,
                            parallel=2, workers=2, db=url, on_progress=on_progress)


def _split(url: str, on_progress) -> Any:
    return experiments.split(FIFTEEN, depth=2, heuristic="manhattan", name="split", split_above=0, workers=2, db=url,
                             on_progress=on_progress)


def _optimum(url: str, on_progress) -> Any:
    db = connect(url)
    catalogue.import_boards(db, load_boards(EIGHTS), {}, "eights")
    return list(optima.find_optima(db, catalogue.members(db, "eights"), {}, workers=2, chunk=1, on_progress=on_progress))


def _trials_complete(url: str) -> bool:
    trials = optuna.load_study(study_name="study", storage=url).trials
    return len(trials) == 3 and {trial.state.name for trial in trials} == {"COMPLETE"}


def _split_solved(url: str) -> bool:
    return _complete(url, "split") and _solved_jobs(url, "split") >= 1


def _optima_known(url: str) -> bool:
    db = connect(url)
    return all(board.known_optimum is not None for board in catalogue.members(db, "eights"))


KINDS = [
    Kind("grid", _grid, lambda url: _complete(url, "grid")),
    Kind("study", _study, _trials_complete),
    Kind("split", _split, _split_solved),
    Kind("optimum", _optimum, _optima_known),
]
EXPERIMENT = {"grid": "grid", "study": "study", "split": "split", "optimum": "optimum"}


@pytest.fixture
def url(tmp_path, monkeypatch):
    """A new SQLite results database; leases looked at every second."""
    found = f"sqlite:///{tmp_path / 'results.db'}"
    upgrade(found)
    monkeypatch.setenv("SLIDELAB_HEARTBEAT_SECONDS", "1")
    yield found
    monkeypatch.undo()
    configure()


def _complete(url: str, name: str) -> bool:
    return experiments.status(name, db=url).phase == COMPLETE


def _solved_jobs(url: str, name: str) -> int:
    return experiments.status(name, db=url).outcomes.get(Outcome.SOLVED, 0)


def _once(action):
    """A progress callback that calls `action` at the first progress after a job is done, and never again."""
    fired = []

    def on_progress(status, _warm_up=None) -> None:
        if status.finished and not fired:
            fired.append(status)
            action()

    return on_progress


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_a_cancelled_experiment_stops_proposing_and_resume_finishes_it(url, kind):
    name = EXPERIMENT[kind.name]
    kind.start(url, _once(lambda: experiments.cancel(name, db=url)))
    stopped = find(connect(url), name)
    assert stopped is not None and stopped.kind == ExperimentKind(kind.name) and stopped.cancelled_at is not None
    assert not kind.finished(url)  # nothing more was proposed once cancelled
    resumed = experiments.resume(name, workers=2, db=url)
    assert not resumed.ended.cancelled and kind.finished(url)
    if kind.name == "split":
        assert resumed.split is not None and resumed.split.moves == 24


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_ctrl_c_then_a_lost_worker_then_resume_finishes_the_experiment(url, kind):
    name = EXPERIMENT[kind.name]
    with pytest.raises(KeyboardInterrupt):
        kind.start(url, _once(lambda: os.kill(os.getpid(), signal.SIGINT)))
    assert not kind.finished(url)
    db = connect(url)
    with db.engine.begin() as connection:  # a worker that took a job and was lost: its lease has lapsed
        experiment = find(db, name)
        waiting = connection.scalar(select(jobs.c.id).where(jobs.c.sweep_id == experiment.id,
                                                            jobs.c.status == "pending").limit(1))
        if waiting is not None:
            connection.execute(update(jobs).where(jobs.c.id == waiting).values(
                status="running", worker_host="gone", lease_until=datetime.now(UTC) - timedelta(seconds=1)))
    resumed = experiments.resume(name, workers=2, db=url)
    assert kind.finished(url) and resumed.ended.status.phase == COMPLETE
    if waiting is not None:
        with db.engine.connect() as connection:
            assert connection.scalar(select(jobs.c.status).where(jobs.c.id == waiting)) == "done"


def test_a_split_search_is_one_experiment_whose_answer_is_one_cores(url):
    found = experiments.split(FIFTEEN, depth=2, heuristic="manhattan", name="one", split_above=0, workers=2, db=url)
    one = solve(problem_for("npuzzle", load_boards([FIFTEEN])[0].text), "idastar", {"heuristic": "manhattan"})
    assert (found.moves, found.expanded, found.generated) == (one.moves, one.expanded, one.generated)
    assert [bound.experiment for bound in found.rounds] == ["one"] * len(found.rounds) and len(found.rounds) == 3
    assert experiments.status("one", db=url).total == sum(bound.subtrees for bound in found.rounds)
