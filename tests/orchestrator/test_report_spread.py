"""Reports' spread across seeds (std, 95% intervals checked by hand) and their notes on provenance and timing."""

import io
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import update
from sqlalchemy.orm import Session
from typer.testing import CliRunner

from orchestrator.cli import app
from orchestrator.reports import rows as report_rows
from orchestrator.reports.summary import mean_interval, summarize
from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.lookups import find_sweep
from orchestrator.sweeps.sources import load_boards
from tests.stored import store_sweep
from tests.tables import Job
from workers.store import connect
from workers.store.database import engine_for
from workers.store.jobs import record
from workers.store.migrate import upgrade
from workers.store.records import JobResult

RUNS = 5  # of each job, standing for seeds
MOVES = [21, 25, 27, 30, 31]  # beam k=1, one per run
ELAPSED = [1.0, 1.2, 0.9, 1.1, 1.3]
EXPANDED = [100, 200, 300, 400, 500]


def result(k: int, index: int, host: str, version: str | None, speed: float) -> JobResult:
    """Beam k=1 solves every run; beam k=2 solves only the first (one value: no interval)."""
    provenance = {"speed": speed}
    if k == 1:
        return JobResult(outcome="solved", moves=MOVES[index], expanded=EXPANDED[index], generated=2 * EXPANDED[index],
                         elapsed_s=ELAPSED[index], cpu_s=ELAPSED[index] / 2, warmup_s=0.5, host=host,
                         code_version=version, provenance=provenance)
    if index == 0:
        return JobResult(outcome="solved", moves=24, expanded=50, elapsed_s=0.4, cpu_s=0.4, host=host, code_version=version,
                         provenance=provenance)
    return JobResult(outcome="failed", expanded=5, elapsed_s=0.1, cpu_s=0.1, reason="beam emptied", host=host,
                     code_version=version, provenance=provenance)


@pytest.fixture
def store(tmp_path, boards_dir):
    """`store(host, version, speed)`: a sweep `spread`, beam k=1,2 five times each on Rushhour6x6_1, each argument
    a function of (k, run) giving that job's result's host, code version and host speed; the database URL."""

    def make(host=lambda k, i: "w1", version=lambda k, i: "0.1.0+gaaa", speed=lambda k, i: 10.0) -> str:
        url = f"sqlite:///{tmp_path / 'spread.db'}"
        upgrade(url)
        db = connect(url)
        boards = load_boards([str(boards_dir / "Rushhour6x6_1.csv")])
        plan, _, ids = store_sweep(db, "spread", boards, SweepGrid(["beam"], {"k": [1, 2]}, repeat=RUNS))
        results = []
        for job_id, job in zip(ids, plan.jobs, strict=True):
            k, i = job.params["k"], job.repeat
            results.append((job_id, result(k, i, host(k, i), version(k, i), speed(k, i))))
        record(db, results)
        return url

    return make


def rows_of(url: str) -> pd.DataFrame:
    db = connect(url)
    return report_rows.load_rows(db, find_sweep(db, "spread"))


def by_k(url: str) -> pd.DataFrame:
    return summarize(rows_of(url), ["algorithm", "k"]).set_index("k")


def run(*args):
    return CliRunner().invoke(app, list(map(str, args)))


def test_std_and_intervals_are_over_the_runs_and_never_leave_the_values(store):
    summary = by_k(store())
    k1 = summary.loc[1]
    # moves 21, 25, 27, 30, 31: mean 26.8, deviations -5.8 -1.8 0.2 3.2 4.2, squares sum 64.8, s² = 64.8 / 4 = 16.2
    assert k1["moves_mean"] == pytest.approx(26.8) and k1["moves_std"] == pytest.approx(math.sqrt(16.2))
    # a percentile bootstrap of the mean (2,000 resamples, seed 0): reproducible, inside the values' range
    assert (k1["moves_ci_low"], k1["moves_ci_high"]) == pytest.approx((23.6, 29.8))
    assert (k1["moves_ci_low"], k1["moves_ci_high"]) == mean_interval(pd.Series(MOVES))
    assert (k1["elapsed_ci_low"], k1["elapsed_ci_high"]) == pytest.approx((0.98, 1.22))
    assert k1["elapsed_std"] == pytest.approx(math.sqrt(0.025))
    assert (k1["expanded_ci_low"], k1["expanded_ci_high"]) == pytest.approx((180.0, 420.0))  # a t interval: 104 to 496
    assert k1["generated_std"] == pytest.approx(2 * math.sqrt(25000)) and k1["cpu_mean"] == pytest.approx(0.55)
    k2 = summary.loc[2]  # moves of one job only (the others failed): no spread
    assert k2["moves_mean"] == 24.0
    assert math.isnan(k2["moves_std"]) and math.isnan(k2["moves_ci_low"]) and math.isnan(k2["moves_ci_high"])
    # time 0.4 and 0.1 four times: mean 0.16; a t interval would start below zero (0.16 - 2.776 × 0.06 = -0.007)
    assert (k2["elapsed_ci_low"], k2["elapsed_ci_high"]) == pytest.approx((0.1, 0.28))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=1e9, allow_nan=False), min_size=2, max_size=30))
def test_an_interval_of_the_mean_of_values_that_cannot_be_negative_never_is(values):
    low, high = mean_interval(pd.Series(values))
    slack = 1e-9 * max(values)  # a mean of resampled values may round a little past the extremes
    assert 0 <= low and min(values) - slack <= low <= high <= max(values) + slack
    mean = sum(values) / len(values)
    assert low - slack <= mean <= high + slack


def test_rows_carry_provenance_and_old_results_the_job_host(store):
    url = store(host=lambda k, i: None if (k, i) == (2, 4) else "w1")
    with Session(engine_for(url)) as session, session.begin():
        session.execute(update(Job).values(worker_host="celery@old"))
    rows = rows_of(url)
    assert rows["host"].value_counts().to_dict() == {"w1": 9, "celery@old": 1}  # the result's host, else the job's
    assert set(rows["code_version"]) == {"0.1.0+gaaa"} and set(rows["speed"]) == {10.0}
    assert sorted(rows["cpu_s"]) == [0.1] * 4 + [0.4, 0.45, 0.5, 0.55, 0.6, 0.65]
    assert rows["warmup_s"].isna().sum() == 5 and set(rows["warmup_s"].dropna()) == {0.5}  # none measured: NULL


def test_a_group_mixing_code_versions_is_warned_about(store):
    url = store(version=lambda k, i: {(1, 0): "0.1.0+gbbb", (1, 1): None}.get((k, i), "0.1.0+gaaa"))
    notes = report_rows.notes(rows_of(url), "spread", ["algorithm", "k"])
    assert notes[0] == ("warning: 1 of 2 groups mix results of different code versions (0.1.0+gaaa, 0.1.0+gbbb, "
                        "unknown); timings in those groups are not comparable")
    assert notes[1:] == [report_rows.TIMING_NOTE]


def test_equal_code_versions_and_hosts_of_one_speed_class_give_only_the_timing_note(store):
    url = store(host=lambda k, i: f"w{i % 2}", speed=lambda k, i: 10.0 if i % 2 else 11.0)  # 11 / 10 ≤ 1.25
    assert report_rows.notes(rows_of(url), "spread") == [report_rows.TIMING_NOTE]


def test_hosts_of_different_speed_classes_are_warned_about_in_the_groups_asked_for(store):
    url = store(host=lambda k, i: f"w{k}", speed=lambda k, i: 10.0 * k)  # k=1 all on w1 (10), k=2 all on w2 (20)
    rows = rows_of(url)
    assert report_rows.notes(rows, "spread", ["algorithm", "k"]) == [report_rows.TIMING_NOTE]  # no group mixes the two
    assert report_rows.notes(rows, "spread", ["algo"])[0] == (
        "warning: 1 of 1 groups mix hosts of different speed classes (median speed in million steps/s: w1 10, w2 20); "
        "timings in those groups are not comparable"
    )


def test_a_host_speed_is_its_median_over_the_sweep(store):
    # w2 measures 20 once but 10 on its other four jobs: its median, 10, is w1's class
    url = store(host=lambda k, i: "w2" if k == 2 else "w1", speed=lambda k, i: 20.0 if (k, i) == (2, 0) else 10.0)
    assert report_rows.notes(rows_of(url), "spread", ["algorithm"]) == [report_rows.TIMING_NOTE]


def test_the_timing_note_says_how_time_is_measured():
    assert report_rows.TIMING_NOTE.startswith("time: elapsed_s is the wall time of the search alone, in the job process")
    assert "excludes queue waiting, process start-up" in report_rows.TIMING_NOTE and "warmup_s" in report_rows.TIMING_NOTE
    assert "cpu_s is the job process's CPU time" in report_rows.TIMING_NOTE


def test_cli_report_warns_on_stderr_and_writes_the_spread(store, tmp_path):
    url = store(host=lambda k, i: f"w{i % 2}", speed=lambda k, i: 20.0 if i % 2 else 10.0)
    table = run("report", "spread", "--by", "algo,k", "--db", url)
    assert table.exit_code == 0, table.output
    warning = ("warning: 2 of 2 groups mix hosts of different speed classes (median speed in million steps/s: "
               "w0 10, w1 20); timings in those groups are not comparable")
    assert table.stderr.splitlines()[1:3] == [warning, report_rows.TIMING_NOTE]  # after what went wrong
    assert "26.8 (23.6–29.8)" in table.stdout and "1.10 s (980 ms–1.22 s)" in table.stdout
    assert "24.0" in table.stdout and "24.0 (" not in table.stdout  # one value: the mean alone
    csv = run("report", "spread", "--by", "algo,k", "--format", "csv", "--db", url)
    assert csv.exit_code == 0, csv.output
    summary = pd.read_csv(io.StringIO(csv.stdout)).set_index("k")
    spread = [f"{metric}_{stat}" for metric in ("moves", "expanded", "generated", "elapsed")
              for stat in ("std", "ci_low", "ci_high")]
    assert set(spread + ["cpu_mean"]) <= set(summary.columns)
    assert (summary.loc[1, "moves_ci_low"], summary.loc[1, "moves_ci_high"]) == pytest.approx((23.6, 29.8))
    assert math.isnan(summary.loc[2, "moves_ci_low"])
    page = tmp_path / "spread.html"
    assert run("report", "spread", "--format", "html", "--out", page, "--db", url).exit_code == 0
    assert f"<li>{warning}</li>" in page.read_text()


def test_intervals_of_many_samples_at_once_are_those_of_each_alone():
    from orchestrator.reports.summary import mean_interval, mean_intervals

    rng = np.random.default_rng(7)
    samples = [rng.gamma(2.0, 3.0, size) for size in (2, 3, 5, 5, 8, 1, 0)] + [np.full(4, 2.5)]
    samples += [rng.integers(10, 40, 6).astype(float) for _ in range(300)]  # more than one batch of a size
    at_once = mean_intervals(samples)
    alone = [mean_interval(pd.Series(values)) for values in samples]
    np.testing.assert_array_equal(np.array(at_once), np.array(alone))
