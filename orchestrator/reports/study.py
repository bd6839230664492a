"""A study's report: its trials by state, the best of them with their values on each board, and Optuna's figures.

The study's definition (its experiment row) says its boards, objectives and
how unsolved jobs count; Optuna's storage in the same database has its trials,
each with the ids of its jobs. A board's value is worked out from the stored
jobs as `tune` worked it out (`tune_objective`), so the table shows what the
sampler was told.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from orchestrator.sweeps.status_view import params_text
from orchestrator.sweeps.tune_objective import Scoring, TrialFailed, job_value, parse_scoring
from puzzles.errors import PuzzleError
from workers.store import Database
from workers.store import sweeps as sweep_store
from workers.store.records import JobRow
from workers.store.states import JobState
from workers.store.sweeps import ExperimentKind, SweepRow

TOP = 10  # best trials shown


@dataclass
class BestTrial:
    """One of the best trials: its number, values, parameters and its first objective's value on each board."""

    number: int
    values: list[float]
    params: dict[str, Any]
    boards: list[float | None]  # None: a board without a value (not run, or unsolved under --unsolved fail)
    job_ids: list[int] = field(default_factory=list)


@dataclass
class StudyReport:
    """What `orchestrate report` shows of a study."""

    name: str
    spec: dict[str, Any]
    scoring: Scoring
    states: dict[str, int]
    best: list[BestTrial] = field(default_factory=list)
    pareto: bool = False
    study: Any = None  # the optuna.Study, for its figures

    @property
    def headline(self) -> str:
        """`study NAME (moves-freed): 200 trials: 150 complete, 40 pruned, 10 failed; objective moves:min, mean over 40 boards`."""
        counts = ", ".join(f"{count} {state.lower()}" for state, count in self.states.items())
        return (f"study {self.name} ({self.spec['algorithm']}): {sum(self.states.values())} trials: {counts};"
                f" objective {', '.join(o.text() for o in self.scoring.objectives)}, {self.scoring.aggregate} over"
                f" {len(self.spec['boards'])} boards; unsolved: {self.scoring.unsolved_text()}")


def is_study(sweep: SweepRow) -> bool:
    """Whether the sweep row is a study's (made by `orchestrate tune`)."""
    return sweep.kind == ExperimentKind.STUDY


def study_report(db: Database, sweep: SweepRow, top: int = TOP) -> StudyReport:
    """The report of the study whose sweep row is `sweep`: its best `top` trials (its Pareto front for several objectives)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    spec = sweep.definition
    scoring = parse_scoring(",".join(spec["objectives"]), spec["aggregate"], spec["unsolved"])
    study = optuna.load_study(study_name=sweep.name, storage=optuna.storages.RDBStorage(db.url))
    trials = study.get_trials(deepcopy=False)
    states: dict[str, int] = {}
    for trial in trials:
        states[trial.state.name] = states.get(trial.state.name, 0) + 1
    pareto = len(study.directions) > 1
    best = _best(study, trials, pareto)[:top]
    report = StudyReport(sweep.name, spec, scoring, states, pareto=pareto, study=study)
    for trial in best:
        ids = trial.user_attrs.get("job_ids", [])
        jobs = sweep_store.results_of(db, ids)
        report.best.append(BestTrial(trial.number, list(trial.values), dict(trial.params),
                                     board_values(jobs, spec["board_ids"], scoring), ids))
    return report


def best_trial(db: Database, sweep: SweepRow) -> BestTrial:
    """The study's best trial (`compare` lines up its jobs as a sweep); PuzzleError for several objectives or none."""
    report = study_report(db, sweep, top=1)
    if report.pareto:
        raise PuzzleError(f"study {sweep.name!r} has several objectives, so no one best trial to compare")
    if not report.best:
        raise PuzzleError(f"study {sweep.name!r} has no complete trial yet")
    return report.best[0]


def trial_text(name: str, trial: BestTrial) -> str:
    """`mf-small is a study: compared by its best trial, number 6 (w_exit=1 w_blockers=2), value 25.67`."""
    values = ", ".join(f"{value:.4g}" for value in trial.values)
    return (f"{name} is a study: compared by its best trial, number {trial.number} ({params_text(trial.params)}), "
            f"value {values}")


def _best(study, trials: list, pareto: bool) -> list:
    """The complete trials, best first, a point tried twice shown once (or the Pareto front, by the first objective)."""
    complete = [trial for trial in trials if trial.state.name == "COMPLETE"]
    if pareto:
        return sorted(study.best_trials, key=lambda trial: trial.values[0])
    sign = -1 if study.direction.name == "MAXIMIZE" else 1
    unique: dict[tuple, Any] = {}
    for trial in sorted(complete, key=lambda trial: (sign * trial.value, trial.number)):
        unique.setdefault(tuple(sorted(trial.params.items())), trial)
    return list(unique.values())


def board_values(jobs: list[JobRow], board_ids: list[str], scoring: Scoring) -> list[float | None]:
    """The first objective's value on each board (mean over its runs), None where a run is not done or may not count."""
    column = scoring.objectives[0].column
    values: list[float | None] = []
    for board in board_ids:
        runs = [job for job in jobs if job.board_id == board and job.state == JobState.DONE]
        try:
            values.append(sum(job_value(job, column, scoring.penalty) for job in runs) / len(runs) if runs else None)
        except TrialFailed:
            values.append(None)
    return values


def figures(report: StudyReport) -> list[tuple[str, Any]]:
    """Optuna's plotly figures of the study: (title, figure) for its history, importances, slices and contours, or
    for several objectives its Pareto front."""
    from optuna import visualization

    study = report.study
    complete = report.states.get("COMPLETE", 0)
    if report.pareto:
        names = [o.column for o in report.scoring.objectives]
        return [("Pareto front", visualization.plot_pareto_front(study, target_names=names))] if complete else []
    shown: list[tuple[str, Callable[..., Any]]] = [("Optimisation history", visualization.plot_optimization_history)]
    if complete >= 2:
        shown += [("Parameter importances", visualization.plot_param_importances),
                  ("Slices", visualization.plot_slice), ("Contours", visualization.plot_contour)]
    return [(title, plot(study)) for title, plot in shown]
