"""Reading results: `report`, `compare`, `export`, `verify` and `analyze` (pandas only for the commands that need it)."""

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from orchestrator import plan, sweep_view
from orchestrator.cli.options import CORES, DbOption, SweepArgument, WorkersOption, database, emit, print_table, user_errors
from puzzles.npuzzle.board import parse_shape

app = typer.Typer()
OutOption = Annotated[Path | None, typer.Option("--out", help="Write to this file (html, parquet: default SWEEP.html / required).")]


@app.command("report")
def report_command(
    sweep_name: SweepArgument,
    by: Annotated[
        str | None, typer.Option(help="Group by these columns, e.g. algo,k (default: algorithm, params, board).")
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", help="table, csv, markdown, json, html (one file with the plots) or parquet.")
    ] = "table",
    out: OutOption = None,
    plot: Annotated[bool, typer.Option("--plot", help="Also write the plots as PNG files (next to --out, else here).")] = False,
    db: DbOption = None,
) -> None:
    """Summarize a sweep: per algorithm, parameters and board, the share solved, moves, optimality gap, nodes, time, memory.

    A sweep still running is reported on the jobs that are done.

    Example: orchestrate report beam-k --by algo,k --format html --out beam-k.html
    """
    from orchestrator.publish import report_sweep

    with user_errors():
        _print(report_sweep(database(db), sweep_name, by=by, fmt=fmt, out=out, plot=plot))


@app.command("compare")
def compare_command(
    first: Annotated[str, typer.Argument(metavar="SWEEP_A", help="The first sweep.")],
    second: Annotated[str, typer.Argument(metavar="SWEEP_B", help="The second sweep.")],
    fmt: Annotated[str, typer.Option("--format", help="table, csv, markdown or json.")] = "table",
    db: DbOption = None,
) -> None:
    """Two sweeps side by side, per algorithm, parameters and board.

    Example: orchestrate compare beam-blockers beam-lb
    """
    from orchestrator.publish import compare_sweeps

    with user_errors():
        _print(compare_sweeps(database(db), (first, second), fmt))


@app.command("export")
def export_command(
    sweep_name: SweepArgument,
    fmt: Annotated[str, typer.Option("--format", help="csv or parquet.")] = "csv",
    out: OutOption = None,
    db: DbOption = None,
) -> None:
    """The raw rows of a sweep (jobs joined with results and boards), one per job, for pandas.

    Example: orchestrate export beam-k --format parquet --out beam-k.parquet
    """
    from orchestrator.publish import export_sweep

    with user_errors():
        _print(export_sweep(database(db), sweep_name, fmt, out))


@app.command("verify")
def verify_command(
    sweep_name: SweepArgument,
    sample: Annotated[int | None, typer.Option("--sample", help="Check this many done jobs drawn at random; default: all.")] = None,
    sample_seed: Annotated[int, typer.Option("--sample-seed", help="The same seed draws the same sample.")] = 0,
    workers: WorkersOption = CORES,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verification as one JSON object.")] = False,
    db: DbOption = None,
) -> None:
    """Run a sweep's done jobs again, as workers run them, and compare each result with the one stored.

    Compares the outcome, moves, steps, node counts and the solution (random algorithms rerun with their
    stored seed). Results stored under a time or memory limit are skipped; a rerun stopped by one is
    inconclusive. Writes nothing. Exits 1 if any result differs or any job checked was produced by another
    code version than the one running now, 0 otherwise.

    Example: orchestrate verify beam-k --sample 50 --workers 4
    """
    from orchestrator import verify, verify_view

    with user_errors():
        results = database(db)
        selection = verify.select_jobs(results, plan.find_sweep(results, sweep_name), sample=sample, sample_seed=sample_seed)
        try:
            with sweep_view.build_bar(Console(stderr=True), f"verify {selection.sweep}") as progress:
                outcome = verify.verify(results, selection, workers=workers, progress=progress)
        except KeyboardInterrupt:
            typer.echo("stopped", err=True)
            raise typer.Exit(130) from None
    if as_json:
        typer.echo(json.dumps(outcome.to_dict()))
    else:
        for table in verify_view.tables(outcome):
            print_table(table)
        typer.echo(verify_view.summary_text(outcome))
    if not outcome.ok:
        raise typer.Exit(1)


@app.command("analyze")
def analyze_command(
    size: Annotated[str, typer.Argument(metavar="WxH", help="The board size, e.g. 3x3 or 2x4 (at most 9 cells).")],
    goal: Annotated[str, typer.Option(help="blank-last or blank-first (Korf's).")] = "blank-last",
    fmt: Annotated[str, typer.Option("--format", help="csv or parquet, for --out.")] = "csv",
    out: Annotated[Path | None, typer.Option("--out", help="Write every board with its distance and estimates here.")] = None,
    pdb: Annotated[
        str | None, typer.Option("--pdb", help="Pattern-database partitions to score, comma-separated (e.g. 4-4,6-2).")
    ] = None,
) -> None:
    """Every solvable N-puzzle board: its true distance and each heuristic's estimate, summarized.

    Prints per heuristic the mean estimate, the mean ratio of estimate to distance, the share of
    boards where it is exact and where it is admissible, then the number of boards per distance.

    Example: orchestrate analyze 3x3 --out eight.parquet --format parquet
    """
    from orchestrator import analyze

    with user_errors():
        width, height = parse_shape(size)
        found = analyze.analysis(width, height, goal, pdb, fmt=fmt, out=out)
    if out is not None:
        typer.echo(f"wrote {out} ({len(found.rows):,} boards)", err=True)
    typer.echo(f"{len(found.rows):,} solvable {size} boards, goal {goal}")
    print_table(sweep_view.frame_table(found.summary))
    print_table(sweep_view.frame_table(found.depths))


def _print(published) -> None:
    """Print what a reporting command produced: its messages on stderr, its table or text on stdout."""
    for message in published.messages:
        typer.echo(message, err=True)
    if published.table is not None:
        print_table(published.table)
    emit(published.text)
