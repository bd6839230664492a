"""`orchestrate tune` on two real Celery workers (issue 34), PostgreSQL and Redis: a study's trials are the workers'
jobs, each value the mean of its stored jobs, a point proposed twice one set of jobs."""

import json

import optuna
import pytest

from tests.workers import test_distributed
from tests.workers.cluster import SLOW_START_S

cluster = test_distributed.cluster  # the fixture: a fresh PostgreSQL database and Redis database number
SIX = ("Rushhour6x6_1.csv", "Rushhour6x6_2.csv", "Rushhour6x6_3.csv")


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_study_runs_on_two_workers_and_each_trial_is_its_jobs_mean(cluster, boards_dir):
    a, b = cluster.workers_ready("a", "b")
    boards = [arg for name in SIX for arg in ("--boards", str(boards_dir / name))]
    done = cluster.orchestrate("tune", "--name", "shared", "--algo", "moves-freed", "--w-exit", "0..2", "--w-blockers", "1..2",
                               "--w-freed", "-1..0", *boards, "--trials", "20", "--seed", "1",
                               "--db", cluster.database_url, "--broker", cluster.broker_url, timeout=SLOW_START_S)
    assert "study shared: best trial" in done.stdout, done.stdout
    trials = optuna.load_study(study_name="shared", storage=cluster.database_url).trials
    assert len(trials) == 20 and {t.state.name for t in trials} == {"COMPLETE"}
    jobs = {row.id: row for row in cluster.sql(
        "SELECT jobs.id, jobs.status, jobs.worker_host, results.moves FROM jobs JOIN results ON results.job_id = jobs.id")}
    for trial in trials:
        ids = trial.user_attrs["job_ids"]
        assert trial.value == pytest.approx(sum(jobs[job_id].moves for job_id in ids) / 3)
    points = {json.dumps(t.params, sort_keys=True) for t in trials}
    assert len(points) < 20 and cluster.scalar("SELECT count(*) FROM jobs") == 3 * len(points)
    assert {row.worker_host for row in jobs.values()} == {a.hostname, b.hostname}  # both workers ran trials' jobs


@pytest.mark.timeout(300)
def test_a_pruned_trial_on_the_workers_has_its_later_boards_cancelled(cluster, boards_dir):
    cluster.workers_ready("a", "b")
    boards = [arg for name in SIX for arg in ("--boards", str(boards_dir / name))]
    cluster.orchestrate("tune", "--name", "pruned", "--algo", "moves-freed", "--w-exit", "0..10", "--w-blockers", "0..10",
                        "--w-freed", "-20..0", *boards, "--objective", "expanded", "--pruner", "median", "--trials", "12",
                        "--seed", "1", "--db", cluster.database_url, "--broker", cluster.broker_url, timeout=SLOW_START_S)
    trials = optuna.load_study(study_name="pruned", storage=cluster.database_url).trials
    pruned = [t for t in trials if t.state.name == "PRUNED"]
    assert pruned and len(trials) == 12
    states = {row.id: (row.status, row.outcome) for row in cluster.sql(
        "SELECT jobs.id, jobs.status, results.outcome FROM jobs LEFT JOIN results ON results.job_id = jobs.id")}
    for trial in pruned:
        steps = len(trial.intermediate_values)
        assert [states[job_id] for job_id in trial.user_attrs["job_ids"]] == (
            [("done", "solved")] * steps + [("cancelled", None)] * (3 - steps))
