"""The options several commands share, the algorithm parameters as options, and how an error becomes an exit status.

The algorithms' parameters (`puzzles.algorithms.ALGORITHMS`) are declared once,
there; `solve` and `sweep` get an option per parameter from that table (`solve`
one value of the parameter's type, `sweep` a list of values), so `--help`
lists them with the algorithms that take them.

The command line starts in a tenth of a second because its modules import
only Typer and light tables at the top: numba, SQLAlchemy, pandas, Celery and
the settings are imported by the command that needs them, when it runs.
"""

import dataclasses
import functools
import importlib
import inspect
import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from orchestrator.sweeps.grid import flag_name
from puzzles.algorithms import ALGORITHMS, OFFERED, PROBLEM_OPTIONS, Param
from puzzles.errors import PuzzleError

if TYPE_CHECKING:
    from rich.table import Table

    from workers.settings import Settings
    from workers.store import Database

PARAMETER_PANEL = "Algorithm parameters"
CORES = os.cpu_count() or 1

DbOption = Annotated[
    str | None, typer.Option("--db", help="Results database URL; default: SLIDELAB_DATABASE_URL, else sqlite:///slidelab.db.")
]
BrokerOption = Annotated[
    str | None, typer.Option("--broker", help="Celery broker URL (redis://...); default: SLIDELAB_BROKER_URL, else run locally.")
]
WorkersOption = Annotated[
    int, typer.Option("--workers", min=1, max=1024, help="Local mode: job processes run at once; default: the number of cores.")
]
WaitOption = Annotated[bool, typer.Option("--wait", help="With a broker: follow the progress until every job is done.")]
ChunkOption = Annotated[
    int | None, typer.Option("--chunk", min=1, max=100_000, help="Jobs per batch (per message); default: 1 for small sweeps, up to 100.")
]
SweepArgument = Annotated[str, typer.Argument(metavar="SWEEP", help="The sweep's name.")]
TimeLimitOption = Annotated[float | None, typer.Option(min=0, max=1e9, help="Seconds per job (outcome limit).")]
MemoryLimitOption = Annotated[
    str | None, typer.Option(help="Memory a job may use on top of its process's ~0.4 GB runtime, e.g. 2G.")
]
MaxNodesOption = Annotated[int | None, typer.Option(min=0, max=2**62, help="States a job may expand (outcome limit).")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object instead, for scripts.")]
SvgOption = Annotated[Path | None, typer.Option("--svg", help="Also write the picture to this SVG file.", dir_okay=False)]
SetOption = Annotated[str | None, typer.Option("--set", help="The board set's name (set:NAME in --boards).")]
GoalOption = Annotated[
    str | None,
    typer.Option(
        help="Goal of the N-puzzle boards that give none (JSON's goal key, a board list's goal column):"
        " blank-last (1 2 3/4 5 6/7 8 0, the default) or blank-first (Korf's). Rush Hour boards ignore it."
    ),
]


MAX_MESSAGE_CHARS = 300
PASSWORD_IN_URL = re.compile(r"(://[^:/@\s]*:)[^@\s]*@")  # user:password@ in a URL
# The libraries only some commands need: the extra of pyproject.toml that installs each, and what needs it.
EXTRAS = {
    "starlette": ("web", "orchestrate dashboard"),
    "uvicorn": ("web", "orchestrate dashboard"),
    "matplotlib": ("plots", "report --plot"),
    "psycopg": ("postgresql", "a PostgreSQL database (postgresql+psycopg://)"),
    "optuna": ("tune", "orchestrate tune"),
}


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn bad input into `error: <message>` and exit status 2, a failed service into exit status 1."""
    try:
        yield
    except PuzzleError as err:
        fail(str(err), 2)
    except OSError as err:  # a file that cannot be written or read: a missing folder, a full disk, no permission
        fail(f"{err.filename}: {err.strerror}" if err.filename and err.strerror else str(err), 1)
    except ModuleNotFoundError as err:  # an optional library this installation lacks: the extra to install
        module = (err.name or "").partition(".")[0]
        if module not in EXTRAS:
            raise
        extra, needing = EXTRAS[module]
        fail(f"{needing} needs the {extra} extra ({module} is not installed): pip install 'slidelab[{extra}]'", 1)
    except Exception as err:
        from workers.failures import service_failure

        failure = service_failure(err)
        if failure is None:
            raise
        fail(*failure)


def require(module: str) -> None:
    """Import the optional library `module` now, so that a command missing its extra stops before any work."""
    importlib.import_module(module)


def fail(message: str, code: int) -> None:
    """Print `error: <message>` on stderr, as one printable line of bounded length, and exit with `code`."""
    typer.echo(f"error: {one_line(message)}", err=True)
    raise typer.Exit(code) from None


def one_line(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """`text` with control characters escaped (no terminal colours, no line breaks), no password, cut to `limit`."""
    shown = printable(PASSWORD_IN_URL.sub(r"\1***@", text)).replace("\n", "\\n")
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def printable(text: str) -> str:
    """`text` with every control character written as its escape (`\\x1b`), line breaks kept."""
    return "".join(char if char.isprintable() or char == "\n" else repr(char)[1:-1] for char in text)


def database(db: str | None, broker: str | None = None) -> "Database":
    """The results database of the options (or the settings), at the newest schema; the process configured with them."""
    from slidelab.connection import database as opened

    return opened(db, broker)


def existing_database(db: str | None, broker: str | None = None) -> "Database":
    """The results database of the option (or the settings) as it is, for a command that only reads; never created."""
    from slidelab.connection import database as opened

    return opened(db, broker, existing=True)


def read_only_database(db: str | None) -> "Database":
    """The results database of the option (or the settings) as it is, on connections that cannot write."""
    from workers.store.database import open_read_only

    return open_read_only(configured(db).database_url)


def configured(db: str | None = None, broker: str | None = None) -> "Settings":
    """This process configured from the environment and the command line's `--db` and `--broker`."""
    from workers.settings import configure

    return configure(database_url=db, broker_url=broker)


def print_table(table: "Table") -> None:
    """A table at its natural width: wrapped to a terminal's width, never to 80 columns in a pipe."""
    from rich.console import Console

    _escape_control_characters(table)
    console = Console()
    if not console.is_terminal:
        console = Console(width=max(80, Console(width=10_000).measure(table).maximum))
    console.print(table)


def _escape_control_characters(table: "Table") -> None:
    """Every text cell of `table` made printable: names come from files and users, never let one drive the terminal."""
    rows = list(zip(*(column.cells for column in table.columns)))
    styles = list(table.rows)
    table.columns = [column.copy() for column in table.columns]
    table.rows = []
    for cells, row in zip(rows, styles):
        table.add_row(*(printable(cell) if isinstance(cell, str) else cell for cell in cells),
                      style=row.style, end_section=row.end_section)


def print_json(value: Any) -> None:
    """One JSON document on stdout; datetimes in ISO form, dataclasses as objects."""
    typer.echo(json.dumps(value, default=_plain))


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


def write_file(path: Path, text: str) -> None:
    """Write `text` to `path` and say so on stderr; PuzzleError if it cannot be written."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        raise PuzzleError(f"{path}: cannot write ({err.strerror})") from None
    typer.echo(f"wrote {path}", err=True)


def emit(text: str | None) -> None:
    """Print a written table (csv, markdown, json) on stdout, unless it went to a file."""
    if text is not None:
        typer.echo(text, nl=not text.endswith("\n"))


def with_parameters(*, grid: bool) -> Callable[[Callable], Callable]:
    """Give a command an option per algorithm parameter; it receives the ones given as `params` (name to value).

    With `grid` each option takes a list of values as text (`--k 1..50:5`), else one value of the parameter's type.
    """

    def decorate(command: Callable) -> Callable:
        @functools.wraps(command)
        def wrapper(**values: Any) -> Any:
            given = {name: values.pop(name) for name in _PARAMETERS}
            params = {name: value for name, value in given.items() if value is not None}
            return command(**values, params=params)

        own = [param for param in inspect.signature(command).parameters.values() if param.name != "params"]
        signature = inspect.Signature([*own, *(_option(name, grid) for name in _PARAMETERS)])
        wrapper.__signature__ = signature  # type: ignore[attr-defined]  # what inspect.signature, and so Typer, reads
        return wrapper

    return decorate


def _takers() -> dict[str, list[str]]:
    """Each parameter's name with the algorithms that take it (the problem options: every one)."""
    takers: dict[str, list[str]] = {name: list(ALGORITHMS) for name in PROBLEM_OPTIONS}
    for algorithm, entry in ALGORITHMS.items():
        for name in entry.params:
            takers.setdefault(name, []).append(algorithm)
    return takers


def _param(name: str) -> Param:
    """The declaration of a parameter or problem option."""
    return PROBLEM_OPTIONS.get(name) or next(entry.params[name] for entry in ALGORITHMS.values() if name in entry.params)


_PARAMETERS = _takers()


def _defaults(name: str, algorithms: list[str]) -> str:
    """` (default 10)`, or each algorithm's default where they differ; nothing for flags and optional parameters."""
    defaults = {algorithm: _param(name).default if name in PROBLEM_OPTIONS else ALGORITHMS[algorithm].params[name].default
                for algorithm in algorithms}
    if any(value is None or isinstance(value, bool) for value in defaults.values()):
        return ""
    if len(set(defaults.values())) == 1:
        return f" (default {defaults[algorithms[0]]})"
    return " (default: " + ", ".join(f"{algorithm} {value}" for algorithm, value in defaults.items()) + ")"


def _option(name: str, grid: bool) -> inspect.Parameter:
    """The option of one algorithm parameter, its help naming the algorithms that take it."""
    algorithms = [algorithm for algorithm in _PARAMETERS[name] if algorithm in OFFERED] or _PARAMETERS[name]
    param = _param(name)
    flag = flag_name(name)
    takers = "every algorithm" if name in PROBLEM_OPTIONS else ", ".join(algorithms)
    help_text = f"{takers}: {param.help}{_defaults(name, algorithms)}"
    kind: Any = str if grid else param.kind  # a grid's values as text, else one value of the parameter's type
    if grid:
        help_text += "; values such as 1..50, 1..50:5 or a comma list"
    flags = f"{flag}/--no-{flag[2:]}" if param.kind is bool and not grid else flag  # --memo/--no-memo
    option = typer.Option(flags, help=help_text, rich_help_panel=PARAMETER_PANEL, show_default=False)
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Annotated[kind | None, option])
