"""Studies: `tune`, Optuna's samplers and pruners over slidelab's jobs."""

from typing import Annotated, Any

import typer

from orchestrator.cli.options import (
    CORES,
    BrokerOption,
    DbOption,
    GoalOption,
    MaxNodesOption,
    MemoryLimitOption,
    TimeLimitOption,
    WorkersOption,
    configured,
    database,
    require,
    user_errors,
    with_parameters,
)
from orchestrator.cli.sweeping import interruptible
from puzzles.algorithms import OFFERED, param_text
from puzzles.textio import plural

app = typer.Typer()


@app.command("tune")
@with_parameters(grid=True)
def tune_command(
    name: Annotated[str, typer.Option("--name", help="The study's name; the same name again continues it.")],
    algo: Annotated[str, typer.Option("--algo", help="The algorithm to tune, one of: " + ", ".join(OFFERED) + ".")],
    more_boards: Annotated[
        list[str] | None, typer.Argument(metavar="BOARDS", help="More boards, after those of --boards.", show_default=False)
    ] = None,
    boards: Annotated[
        list[str] | None, typer.Option("--boards", help="Boards as sweep takes them (files, directories, globs, set:NAME);"
                                       " more may follow. In this order they are the pruner's steps.")
    ] = None,
    params: dict[str, Any] | None = None,
    objective: Annotated[
        str, typer.Option(help="Result columns to optimise, comma separated, each COLUMN or COLUMN:min or COLUMN:max:"
                          " moves, steps, expanded, generated, elapsed_s, peak_mem_bytes, solved (the share solved,"
                          " maximized). Two or more give a Pareto front.")
    ] = "moves",
    aggregate: Annotated[
        str, typer.Option(help="Over the boards: mean, max, or gmean-ratio (geometric mean of moves over each board's"
                          " known optimum).")
    ] = "mean",
    unsolved: Annotated[
        str, typer.Option(help="What an unsolved job counts as: penalty:VALUE, or fail (the trial fails).")
    ] = "fail",
    trials: Annotated[int, typer.Option(min=1, max=1_000_000, help="Trials the study is to have in all.")] = 20,
    sampler: Annotated[
        str, typer.Option(help="tpe (Bayesian, the default), random, grid (the ranges walked as sweep expands them),"
                          " cmaes (needs the cmaes package), nsga2 (for Pareto fronts).")
    ] = "tpe",
    pruner: Annotated[
        str, typer.Option(help="none, median (stop a trial worse than the median of earlier ones at the same board),"
                          " halving (successive halving). The boards are the steps; a pruned trial's jobs are cancelled.")
    ] = "none",
    seed: Annotated[int | None, typer.Option(help="The sampler's seed: the same seed proposes the same points.")] = None,
    seeds: Annotated[str | None, typer.Option(help="Seeds of a randomized algorithm, e.g. 1..5 (each a job per board).")] = None,
    repeat: Annotated[int, typer.Option(min=1, max=1000, help="Runs per board and point.")] = 1,
    parallel: Annotated[
        int | None, typer.Option(min=1, max=1024, help="Trials run at once; default: --workers, or with a broker one per"
                                 " worker online.")
    ] = None,
    goal: GoalOption = None,
    time_limit: TimeLimitOption = None,
    memory_limit: MemoryLimitOption = None,
    max_nodes: MaxNodesOption = None,
    workers: WorkersOption = CORES,
    db: DbOption = None,
    broker: BrokerOption = None,
) -> None:
    """Search an algorithm's parameters with Optuna: each trial is a point run as ordinary jobs on every board.

    Ranges are written as for sweep: 0..10 (whole numbers), 0.5..2.0 (real), 0..100:5 (in steps), log:1..1000
    (log-uniform), a comma list (choices), one value (fixed). A trial's value is the --objective over its
    boards' jobs, aggregated by --aggregate; its jobs are those a sweep of that point would run (a point run
    twice, or by a sweep under the same limits, is not run again). The study lives in the results database
    (optuna-dashboard URL opens it); running the command again with the same name continues it up to --trials.
    `orchestrate report NAME` reports its jobs like a sweep's.

    Example: orchestrate tune --name mf-weights --algo moves-freed --w-exit 0..10 --w-blockers 0..10
    --w-freed -20..0 --boards set:rushhour-course --objective moves --trials 200 --sampler tpe --seed 1
    """
    from orchestrator.sweeps import tune
    from orchestrator.sweeps.grid import SweepGrid
    from orchestrator.sweeps.limits import job_limits
    from orchestrator.sweeps.sources import load_boards
    from orchestrator.sweeps.tune_objective import parse_scoring
    from orchestrator.sweeps.tune_space import parse_space
    from puzzles.errors import PuzzleError
    from workers.store import studies

    with user_errors():
        configured(db, broker)
        require("optuna")
        if not boards and not more_boards:
            raise PuzzleError("give the study's boards: --boards FILES, DIRECTORIES or set:NAME")
        dimensions = parse_space(algo, params or {})
        scoring = parse_scoring(objective, aggregate, unsolved)
        grid = SweepGrid.from_options(algo, {}, seeds, repeat)
        limits = job_limits(time_limit, max_nodes, memory_limit)
        chosen_sampler = tune.make_sampler(sampler, seed, dimensions)
        chosen_pruner = tune.make_pruner(pruner)
        results = database(db, broker)
        instances = load_boards((boards or []) + (more_boards or []), goal=goal, db=results)
        spec = tune.StudySpec(name, algo, dimensions, scoring, instances, limits, grid.seeds, grid.repeat)
        tune.check_study(results, spec)
        spec.jobs({d.name: d.low if d.low is not None else d.choices[0] for d in dimensions})  # the planner's checks
        if scoring.aggregate == "gmean-ratio":
            missing = [board.name for board in instances if studies.optima(results, [board.id]).get(board.id) is None]
            if missing:
                raise PuzzleError(f"--aggregate gmean-ratio needs each board's known optimum: {', '.join(missing[:3])}"
                                  " have none (orchestrate sweep --algo bfs finds them)")
        study, sweep_id = tune.open_study(results, spec, chosen_sampler, chosen_pruner)
        points = tune.grid_points(sampler, dimensions)
        if points is not None and points < trials:
            typer.echo(f"--trials {trials}: the grid has {points:,} points, each tried once: {points:,} trials")
            trials = points
        typer.echo(f"study {name}: {len(study.trials)} of {trials} trials; {len(instances)} boards; database {results.shown_url}")

    def told(trial, outcome: str) -> None:
        typer.echo(trial_line(study, trial, outcome))

    interruptible(lambda: tune.run_study(results, study, spec, sweep_id, trials=trials, workers=workers, on_told=told,
                                         parallel=parallel),
                  name, "the same orchestrate tune command (the same --name continues the study)")
    typer.echo(best_line(study))


def trial_line(study, trial, outcome: str) -> str:
    """One trial, as told: `trial 3 complete: moves 12.3 (w_exit=3, ...)`."""
    frozen = study._storage.get_trial(trial._trial_id)
    params = ", ".join(param_text(name, value) for name, value in frozen.params.items())
    values = ", ".join(f"{value:.4g}" for value in frozen.values or [])
    shown = f": {values}" if values else ""
    if outcome == "pruned":
        shown = (f" after {plural(len(frozen.intermediate_values), 'board')}"
                 f" ({plural(frozen.user_attrs.get('cancelled_jobs', 0), 'job')} cancelled)")
    elif outcome == "fail":
        shown = f": {frozen.user_attrs.get('failure', '')}"
    return f"trial {frozen.number} {outcome}{shown} ({params})"


def best_line(study) -> str:
    """The best trial (or, for several objectives, the Pareto front's size)."""
    complete = [trial for trial in study.trials if trial.state.name == "COMPLETE"]
    if not complete:
        return f"study {study.study_name}: no trial completed"
    if len(study.directions) > 1:
        return f"study {study.study_name}: {len(study.best_trials)} trials on the Pareto front"
    best = study.best_trial
    params = ", ".join(param_text(name, value) for name, value in best.params.items())
    return f"study {study.study_name}: best trial {best.number}, value {best.value:.4g} ({params})"
