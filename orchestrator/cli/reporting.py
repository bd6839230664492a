"""Reading results: `report`, `compare`, `export`, `verify` and `analyze` (pandas only for the commands that need it)."""

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Annotated

import typer

from orchestrator.cli.options import (
    CORES,
    DbOption,
    SweepArgument,
    WorkersOption,
    emit,
    existing_database,
    fail,
    print_table,
    read_only_database,
    require,
    user_errors,
)

app = typer.Typer()
OutOption = Annotated[Path | None, typer.Option("--out", help="Write to this file (html, parquet: default SWEEP.html / required).")]


ColumnsOption = Annotated[
    str | None,
    typer.Option("--columns", help="Table columns to show, comma separated (names as in --format csv); default: the key ones."),
]
WideOption = Annotated[bool, typer.Option("--wide", help="Show every column of the table.")]
PlotFormatOption = Annotated[
    str | None,
    typer.Option("--plot-format", help="png, pdf, svg or pgf (a LaTeX picture; writing it needs LaTeX): the plots' files,"
                 " fonts embedded (implies --plot; default png)."),
]
PlotWidthOption = Annotated[
    str | None,
    typer.Option("--plot-width", help="one or two: every plot as wide as one column of a paper (3.5 in) or two (7 in)"
                 " (implies --plot; default: scatter and coverage plots one column, the others as drawn)."),
]


@app.command("report")
def report_command(
    sweep_name: SweepArgument,
    by: Annotated[
        str | None, typer.Option(help="Group by these columns, e.g. algo,k (default: algorithm, params, board).")
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option(help="An algorithm of the sweep, e.g. astar: each group's moves, nodes and time as the geometric"
                     " mean over its boards of the ratio to this algorithm's on the board."),
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", help="table; markdown or latex (the table shown, for a page or a paper); csv, json"
                          " or parquet (every column, raw values); html (one file with the plots).")
    ] = "table",
    out: OutOption = None,
    columns: ColumnsOption = None,
    wide: WideOption = False,
    plot: Annotated[bool, typer.Option("--plot", help="Also write the plots as files (next to --out, else here): per"
                                       " parameter, per algorithm, scatter (against --baseline) and coverage.")] = False,
    plot_format: PlotFormatOption = None,
    plot_width: PlotWidthOption = None,
    db: DbOption = None,
) -> None:
    """Summarize a sweep's done jobs: per algorithm, parameters and board, the share solved, moves, gap, nodes, time.

    Jobs not done yet are counted apart (unfinished). Intervals are over one board's repeats and seeds; a
    group that spans boards is averaged per board first, its spread taken across the boards.

    Example: orchestrate report beam-k --by algo,k --baseline astar --format html --out beam-k.html
    """
    import slidelab
    from orchestrator.publish.outputs import REPORT_FORMATS, Layout, publish
    from orchestrator.publish.study_report import publish_study
    from orchestrator.reports.study import StudyReport

    with user_errors():
        layout = Layout(fmt, out, columns, wide).checked(REPORT_FORMATS)
        plots = _plot_files(plot, plot_format, plot_width)
        found = slidelab.report(sweep_name, db=db, by=by, baseline=baseline)
        published = publish_study(found, fmt, out) if isinstance(found, StudyReport) else publish(found, layout, plots)
    _print(published)


@app.command("compare")
def compare_command(
    sweeps: Annotated[list[str], typer.Argument(metavar="SWEEP_A SWEEP_B [SWEEP_C ...]", help="The sweeps; the first is the reference.")],
    by: Annotated[
        str | None, typer.Option(help="Line the sweeps up on these columns (default: the ones they share and vary in).")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="table; markdown or latex (the table shown, for a page or a"
                                     " paper); csv or json (every column, raw values); html.")] = "table",
    out: OutOption = None,
    columns: ColumnsOption = None,
    wide: WideOption = False,
    plot: Annotated[bool, typer.Option("--plot", help="Also write the plots as files (next to --out, else here): the"
                                       " first sweep against each other, board by board, and coverage.")] = False,
    plot_format: PlotFormatOption = None,
    plot_width: PlotWidthOption = None,
    db: DbOption = None,
) -> None:
    """Sweeps side by side: per group each one's jobs, share solved, moves, nodes and time, and against the first
    the difference, the ratio and the p-value of Welch's t-test (paired over boards when a group spans them).

    Example: orchestrate compare beam-blockers beam-lb --plot --plot-format pdf
    """
    import slidelab
    from orchestrator.publish.outputs import COMPARE_FORMATS, Layout, publish

    with user_errors():
        layout = Layout(fmt, out, columns, wide).checked(COMPARE_FORMATS)
        plots = _plot_files(plot, plot_format, plot_width)
        published = publish(slidelab.compare(*sweeps, db=db, by=by), layout, plots)
    _print(published)


@app.command("export")
def export_command(
    sweep_name: SweepArgument,
    fmt: Annotated[str, typer.Option("--format", help="csv or parquet.")] = "csv",
    out: OutOption = None,
    db: DbOption = None,
) -> None:
    """Write a sweep's raw rows, one per job, for pandas or a spreadsheet: the job (id, board, algorithm, params and
    each parameter as a column, seed, repeat, state), its result (outcome, moves, steps, expanded, generated,
    stored, max frontier, times, peak memory, reason), where it came from (host, code version, speed) and the
    board's optimum and gap.

    Example: orchestrate export beam-k --format parquet --out beam-k.parquet
    """
    from orchestrator.publish.outputs import export_sweep

    with user_errors():
        _print(export_sweep(existing_database(db), sweep_name, fmt, out))


@app.command("verify")
def verify_command(
    sweep_name: SweepArgument,
    sample: Annotated[int | None, typer.Option("--sample", max=2**62, help="Check this many done jobs drawn at random; default: all.")] = None,
    sample_seed: Annotated[int, typer.Option("--sample-seed", min=0, max=2**32 - 1, help="The same seed draws the same sample.")] = 0,
    workers: WorkersOption = CORES,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verification as one JSON object.")] = False,
    db: DbOption = None,
) -> None:
    """Run a sweep's done jobs again, as workers run them, and compare each result with the one stored.

    Compares the outcome, moves, steps, node counts and the solution (random algorithms rerun with their
    stored seed). Results stored under a time or memory limit are skipped; a rerun stopped by one is
    inconclusive. Writes nothing. Exits 1 if any result differs or any job checked was produced by another
    code version (or plugin version) than the one running now, 0 otherwise.

    Example: orchestrate verify beam-k --sample 50 --workers 4
    """
    import slidelab
    from orchestrator.reports import verify_tables

    with user_errors():
        try:
            with _bar_once_started(f"verify {sweep_name}") as progress:
                outcome = slidelab.verify(sweep_name, sample=sample, sample_seed=sample_seed, workers=workers, db=db,
                                          on_progress=progress)
        except KeyboardInterrupt:
            typer.echo("stopped", err=True)
            raise typer.Exit(130) from None
    if as_json:
        typer.echo(json.dumps(outcome.to_dict()))
    else:
        for table in verify_tables.tables(outcome):
            print_table(table)
        typer.echo(verify_tables.summary_text(outcome))
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
    from orchestrator.publish import files
    from orchestrator.publish.outputs import check_format
    from orchestrator.reports import analyze
    from orchestrator.text import frame_table
    from puzzles.textio import parse_shape

    with user_errors():
        check_format(fmt, files.EXPORT_FORMATS)
        width, height = parse_shape(size)
        found = analyze.analysis(width, height, goal, pdb)
        if out is not None:
            files.write(found.rows, fmt, out)
    if out is not None:
        typer.echo(f"wrote {out} ({len(found.rows):,} boards)", err=True)
    typer.echo(f"{len(found.rows):,} solvable {size} boards, goal {goal}")
    print_table(frame_table(found.summary))
    print_table(frame_table(found.depths))


@app.command("dashboard")
def dashboard_command(
    db: DbOption = None,
    host: Annotated[str, typer.Option(help="Address to listen on; 0.0.0.0 shows it to other machines.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on (0: any free one).")] = 8050,
    token: Annotated[
        str | None,
        typer.Option(envvar="SLIDELAB_DASHBOARD_TOKEN", show_default=False,
                     help="The token every request must carry (?token=TOKEN once, then a cookie). Default: none on"
                     " 127.0.0.1, a new one printed with the URL when --host goes beyond it."),
    ] = None,
) -> None:
    """A read-only web view of a results database: sweeps with progress, pace and ETA, workers online or offline
    with their last heartbeat, the jobs they hold and their throughput, recent results, errors and limits, and
    each sweep's report plots, redrawn as results arrive.

    Reads only (a write would fail in the database). Beyond 127.0.0.1 it needs a token, printed at start in the
    URL that carries it. Stop it with Ctrl-C.

    Example: orchestrate dashboard --db postgresql+psycopg://slidelab@db-host/slidelab --host 0.0.0.0 --port 8050
    """
    with user_errors():
        from orchestrator.publish import dashboard  # Starlette and uvicorn: the web extra

        require("uvicorn")
        needed = dashboard.access_token(host, token)
        results = read_only_database(db)
    try:
        listening = dashboard.listen(host, port)
    except OSError as err:
        fail(f"cannot listen on {host}:{port}: {err.strerror or err}", 1)
    typer.echo(f"dashboard of {results.shown_url} at {dashboard.address(listening, needed)} (read only; Ctrl-C stops it)",
               err=True)
    dashboard.serve(results, listening, needed)


@contextmanager
def _bar_once_started(name: str) -> Iterator[Callable[[int, int], None]]:
    """`update(done, total)` of a progress bar on stderr, drawn from its first update (an error before it draws none)."""
    from rich.console import Console

    from orchestrator.text import build_bar

    with ExitStack() as stack:
        bars: list[Callable[[int, int], None]] = []

        def update(done: int, total: int) -> None:
            if not bars:
                bars.append(stack.enter_context(build_bar(Console(stderr=True), name)))
            bars[0](done, total)

        yield update


def _plot_files(plot: bool, fmt: str | None, width: str | None):
    """The plot files asked for: by --plot, --plot-format or --plot-width; None for none."""
    from orchestrator.publish.outputs import PlotFiles

    if not (plot or fmt or width):
        return None
    return PlotFiles(fmt or "png", width)


def _print(published) -> None:
    """Print what a reporting command produced: its messages on stderr, its table or text on stdout."""
    for message in published.messages:
        typer.echo(message, err=True)
    if published.table is not None:
        print_table(published.table)
    emit(published.text)
    for piece in published.pieces:
        typer.echo(piece, nl=False)
