"""Experiments that propose their jobs as they learn: `tune` (Optuna's samplers and pruners over slidelab's jobs) and
`split` (one IDA* search spread over the workers, bound by bound)."""

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
    require,
    user_errors,
    with_parameters,
)
from orchestrator.cli.sweeping import interruptible
from puzzles.algorithms import OFFERED, param_text

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
    from orchestrator.sweeps.status_view import trial_text
    from slidelab import experiments
    from workers.store import masked

    with user_errors():
        shown = masked(configured(db, broker).database_url)
        require("optuna")

    def opened(study: Any, count: int) -> None:
        if count < trials:
            typer.echo(f"--trials {trials}: the grid has {count:,} points, each tried once: {count:,} trials")
        typer.echo(f"study {name}: {len(study.trials)} of {count} trials; {len(study.user_attrs['slidelab']['boards'])}"
                   f" boards; database {shown}")

    ran = interruptible(lambda: experiments.tune(
        name, algo, params or {}, (boards or []) + (more_boards or []), objective=objective, aggregate=aggregate,
        unsolved=unsolved, trials=trials, sampler=sampler, pruner=pruner, seed=seed, seeds=seeds, repeat=repeat,
        parallel=parallel, goal=goal, time_limit=time_limit, max_nodes=max_nodes, memory_limit=memory_limit,
        workers=workers, db=db, broker=broker, on_opened=opened,
        on_told=lambda trial, outcome: typer.echo(trial_text(trial, outcome))),
        name, "the same orchestrate tune command (the same --name continues the study)")
    typer.echo(best_line(ran.study))


def best_line(study: Any) -> str:
    """The best trial (or, for several objectives, the Pareto front's size)."""
    complete = [trial for trial in study.trials if trial.state.name == "COMPLETE"]
    if not complete:
        return f"study {study.study_name}: no trial completed"
    if len(study.directions) > 1:
        return f"study {study.study_name}: {len(study.best_trials)} trials on the Pareto front"
    best = study.best_trial
    params = ", ".join(param_text(name, value) for name, value in best.params.items())
    return f"study {study.study_name}: best trial {best.number}, value {best.value:.4g} ({params})"


@app.command("split")
def split_command(
    board: Annotated[str, typer.Argument(help="An N-puzzle board: a file, FILE#ID for a row of a board list, or literal.")],
    depth: Annotated[int, typer.Option("--depth", min=1, max=30, help="Split the tree this many moves below the start.")] = 8,
    heuristic: Annotated[str, typer.Option("--heuristic", help="IDA*'s heuristic (an N-puzzle one).")] = "pdb-max",
    pdb: Annotated[str | None, typer.Option("--pdb", help="Pattern databases for pdb and pdb-max; default: the size's.")] = None,
    name: Annotated[str | None, typer.Option(help="The split search's name; default: split-<board>-d<depth>.")] = None,
    split_above: Annotated[int | None, typer.Option(
        "--split-above", min=0, max=2**62,
        help="Search a bound here, whole, when it should expand fewer nodes than this (foreseen from the bounds"
             " before); default 50,000,000, seconds of one core; 0 splits every bound.")] = None,
    goal: GoalOption = None,
    workers: WorkersOption = CORES,
    db: DbOption = None,
    broker: BrokerOption = None,
) -> None:
    """Solve one hard N-puzzle board with IDA* spread over the workers: per bound, a job per subtree at --depth.

    Every bound's subtrees run as the jobs of one experiment NAME of kind split (algorithm idastar-subtree, with
    the prefix, bound and split depth as parameters): by the workers when there is a broker, else here. The answer
    and the node counts are those of IDA* on one core; work adds the subtrees searched after the solution's.
    `orchestrate resume NAME` goes on with a split search stopped.

    Example: orchestrate split data/boards/npuzzle/korf24.csv#1 --depth 10 --heuristic pdb-max --pdb 6-6-6-6
    """
    from orchestrator.sweeps import status_view
    from slidelab import experiments

    with user_errors():
        configured(db, broker)
    found = interruptible(lambda: experiments.split(
        board, depth=depth, heuristic=heuristic, pdb=pdb, name=name, split_above=split_above, goal=goal,
        workers=workers, db=db, broker=broker, on_round=lambda r: typer.echo(status_view.bound_text(r))),
        name or "", None if name else "orchestrate resume split-<board>-d<depth> (orchestrate sweeps lists it)")
    typer.echo(status_view.split_text(found))
