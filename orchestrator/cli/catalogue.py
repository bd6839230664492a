"""What jobs run on: `boards` (the board catalogue), `pdb` (pattern databases) and `db` (the results database)."""

from typing import Annotated

import typer

from orchestrator.cli.options import (
    CORES,
    BrokerOption,
    ChunkOption,
    DbOption,
    JsonOption,
    MaxNodesOption,
    MemoryLimitOption,
    SetOption,
    SvgOption,
    TimeLimitOption,
    WorkersOption,
    configured,
    database,
    existing_database,
    print_json,
    print_table,
    user_errors,
    write_file,
)
from puzzles.textio import plural

app = typer.Typer()
boards_app = typer.Typer(
    no_args_is_help=True,
    help=(
        "The board catalogue: boards stored once, in named sets that sweeps take as --boards set:NAME.\n\n"
        "Example: orchestrate boards import data/boards/rushhour/ --set course"
    ),
)
pdb_app = typer.Typer(
    no_args_is_help=True,
    help="N-puzzle pattern databases in the cache directory.\n\nExample: orchestrate pdb build 4x4 --pdb 6-6-3",
)
db_app = typer.Typer(no_args_is_help=True, help="The results database.\n\nExample: orchestrate db upgrade")
app.add_typer(boards_app, name="boards")
app.add_typer(pdb_app, name="pdb")
app.add_typer(db_app, name="db")
GoalChoice = Annotated[str, typer.Option(help="N-puzzle goal: blank-last or blank-first (Korf's).")]


@boards_app.command("import")
def boards_import_command(
    sources: Annotated[
        list[str],
        typer.Argument(
            metavar="PATHS...",
            help="Board files, board lists (their optimal column gives known optima), directories, globs,"
            " literal boards or sets (set:NAME).",
        ),
    ],
    set_name: SetOption = None,
    goal: Annotated[
        str | None, typer.Option(help="Goal of the N-puzzle boards that give none: blank-last (default) or blank-first.")
    ] = None,
    db: DbOption = None,
) -> None:
    """Store boards once each, with the known optima their board lists give, and add them to a set.

    Importing again adds only what is missing: no board is stored or put in a set twice.

    Example: orchestrate boards import data/boards/npuzzle/korf100.csv 412763580 --set mine
    """
    from orchestrator.boards import catalogue
    from orchestrator.sweeps.sources import board_sources, load_boards
    from puzzles.domains import listed_optima

    with user_errors():
        results = database(db)
        boards = load_boards(sources, goal=goal, db=results)
        known = listed_optima(board_sources(sources), goal=goal)
        done = catalogue.import_boards(results, boards, known, set_name)
    into = f"; set {set_name}: {done.added:,} added" if set_name else ""
    typer.echo(f"{plural(done.boards, 'board')}, {done.new:,} new, {done.optima:,} with a known optimum given{into}")


@boards_app.command("list")
def boards_list_command(set_name: SetOption = None, as_json: JsonOption = False, db: DbOption = None) -> None:
    """The board sets (the shipped ones too), or with --set the boards of one set, in order, with their known optima.

    Example: orchestrate boards list --set korf100
    """
    from orchestrator.boards import catalogue, catalogue_view

    with user_errors():
        results = existing_database(db)
        sets = catalogue.list_sets(results) if set_name is None else []
        boards = catalogue.members(results, set_name) if set_name is not None else None
    if as_json:
        print_json({"sets": sets} if boards is None else {"set": set_name, "boards": list(map(catalogue_view.board_record, boards))})
    else:
        print_table(catalogue_view.sets_table(sets) if boards is None else catalogue_view.boards_table(boards))


@boards_app.command("show")
def boards_show_command(
    board: Annotated[
        str,
        typer.Argument(
            metavar="BOARD", help="A stored board's name or id (its first 6+ hex digits), a board file, FILE#ID or a literal board."
        ),
    ],
    svg: SvgOption = None,
    db: DbOption = None,
) -> None:
    """A board: its picture, size, vehicles or tiles, known optimum and sets; --svg also draws it in a file.

    Example: orchestrate boards show Rushhour6x6_1 --svg board.svg
    """
    from orchestrator.boards import catalogue, catalogue_view

    with user_errors():
        info = catalogue.board_info(existing_database(db), board)
        if svg is not None:
            write_file(svg, catalogue_view.board_picture(info))
    typer.echo(catalogue_view.board_card(info))


@boards_app.command("generate")
def boards_generate_command(
    domain: Annotated[str, typer.Argument(help="rushhour or npuzzle.")],
    size: Annotated[int, typer.Option("--size", min=2, max=63, help="Board side: 6, 9 or 12 for Rush Hour; 3, 4, 5 ... for the N-puzzle.")],
    count: Annotated[int, typer.Option("--count", min=1, max=1_000_000, help="How many distinct boards.")] = 10,
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**32 - 1, help="The same seed gives the same boards.")] = 1,
    min_moves: Annotated[
        int | None, typer.Option("--min-moves", help="Rush Hour: each board's optimal solution is at least this long.")
    ] = None,
    moves: Annotated[int | None, typer.Option("--moves", min=1, max=1_000_000, help="Rush Hour: each board's optimal solution is exactly this long.")] = None,
    walk: Annotated[
        int | None, typer.Option("--walk", help="N-puzzle: random walks of this many moves from the goal (default: uniform).")
    ] = None,
    height: Annotated[int | None, typer.Option("--height", min=2, max=63, help="N-puzzle: rows, for rectangular boards (default: --size).")] = None,
    goal: GoalChoice = "blank-last",
    max_attempts: Annotated[
        int | None,
        typer.Option("--max-attempts", min=1, help="Rush Hour: placements tried before giving up (default: 100,000 up to 6x6, "
                     "1,500,000 / size³ beyond, 2,057 on 9x9: a few minutes).")  # fmt: skip
    ] = None,
    set_name: SetOption = None,
    db: DbOption = None,
) -> None:
    """Generate boards of a chosen difficulty and store them in a set (default: named after the options).

    Rush Hour: vehicles placed at random, then the hardest board of the placement's whole
    state space (its optimal length is stored as the known optimum). N-puzzle: uniformly random
    solvable boards, or random walks from the goal. Boards and the default set are named after every
    option that changes them: rushhour-6x6-s1-min20-001, npuzzle-4x4-s1-walk40-001, ...

    Example: orchestrate boards generate rushhour --size 6 --min-moves 20 --count 5 --seed 1
    """
    from orchestrator.boards import catalogue

    with user_errors():
        boards, known = catalogue.generated(
            domain, size, count, seed, min_moves=min_moves, moves=moves, walk=walk, height=height, goal=goal,
            max_attempts=max_attempts,
        )
        name = set_name or catalogue.generated_name(domain, size, seed, min_moves=min_moves, moves=moves, walk=walk,
                                                    height=height, goal=goal)
        done = catalogue.import_boards(database(db), boards, known, name)
    for board in boards:
        typer.echo(f"{board.name}  {known[board.id]} moves" if board.id in known else board.name)
    typer.echo(f"set {name}: {done.added:,} added ({len(boards):,} boards; sweep them with --boards set:{name})")


@boards_app.command("optimum")
def boards_optimum_command(
    set_name: SetOption = None,
    time_limit: TimeLimitOption = None,
    memory_limit: MemoryLimitOption = None,
    max_nodes: MaxNodesOption = None,
    workers: WorkersOption = CORES,
    chunk: ChunkOption = None,
    db: DbOption = None,
    broker: BrokerOption = None,
) -> None:
    """Find and store the known optimum of every board (of a set) that lacks one, as a sweep on the runner.

    Each board gets an optimal search that fits it: BFS for Rush Hour and N-puzzles up to 3x3, IDA* with
    pattern databases (pdb-max on square boards, else pdb) for larger ones. The jobs run here, or on the
    workers of a broker, as any sweep's do (sweep `optimum`, or `optimum-<digest>` under limits); this
    command follows them to the end and stores the fewest moves each optimal search found. An unsolvable
    board keeps no optimum.

    Example: orchestrate boards optimum --set korf100 --time-limit 600
    """
    from orchestrator.boards import catalogue
    from orchestrator.cli.sweeping import LiveProgress
    from orchestrator.sweeps import optima
    from orchestrator.sweeps.job_limits import job_limits
    from workers.store import boards as board_store

    with user_errors():
        limits = job_limits(time_limit, max_nodes, memory_limit)
        results = database(db, broker)  # configures the settings the live bar reads
        boards = catalogue.members(results, set_name) if set_name else board_store.all_boards(results)
        with LiveProgress() as progress:
            for line in optima.find_optima(results, boards, limits, workers=workers, chunk=chunk, on_progress=progress):
                typer.echo(line)


@pdb_app.command("build")
def pdb_build_command(
    size: Annotated[str, typer.Argument(metavar="WxH", help="The board size, e.g. 4x4.")],
    partition: Annotated[
        str | None, typer.Option("--pdb", help="Group sizes (6-6-3) or tile groups (1 2 3/4 5 6 7 8); default: the size's own.")
    ] = None,
    goal: GoalChoice = "blank-last",
    force: Annotated[bool, typer.Option("--force", help="Build again even if a verified file exists.")] = False,
) -> None:
    """Build (or verify) the pattern databases of a partition, so that jobs only load them.

    Example: orchestrate pdb build 4x4 --pdb 6-6-3 --goal blank-first
    """
    from orchestrator.boards import pattern_databases
    from puzzles.textio import parse_shape

    with user_errors():
        configured()
        for line in pattern_databases.build(*parse_shape(size), goal, partition, force=force):
            typer.echo(line)


@pdb_app.command("list")
def pdb_list_command() -> None:
    """The database files in the cache directory.

    Example: orchestrate pdb list
    """
    from orchestrator.boards import pattern_databases

    configured()
    files = pattern_databases.files()
    if not files:
        typer.echo(f"no pattern databases in {pattern_databases.folder()} (build one with: orchestrate pdb build 4x4)")
    for path in files:
        typer.echo(f"{path.name}  {path.stat().st_size / 2**20:,.1f} MiB")


@db_app.command("upgrade")
def db_upgrade_command(db: DbOption = None) -> None:
    """Bring the results database to the newest schema (a new SQLite file is created).

    Example: orchestrate db upgrade --db postgresql+psycopg://slidelab@db-host/slidelab
    """
    from workers.store import masked
    from workers.store.migrate import upgrade

    with user_errors():
        url = configured(db).database_url
        upgrade(url)
    typer.echo(f"{masked(url)}: schema at the newest revision")
