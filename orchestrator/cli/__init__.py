"""The `orchestrate` command line: option declarations and one call per command.

Commands are grouped by what they work on: `solving` (solve, demo), `sweeping`
(sweep, sweep show, resume, cancel, status, sweeps, sweeps delete, jobs, job, worker), `tuning` (tune, split), `catalogue`
(boards, pdb, db), `listing` (algorithms: slidelab's own and the plugins') and `reporting` (report, compare, export,
verify, analyze);
`options` holds what they share. Only here is an error turned into `error:
<message>` on stderr and an exit status: 2 for bad input, 1 for a service that
failed; a search that ends unsolved is data and exits 0.
"""

import faulthandler
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from importlib import metadata
from typing import Annotated, Any

import typer
from typer import echo
from typer.core import TyperGroup

from orchestrator.cli import catalogue, listing, options, reporting, solving, sweeping, tuning

# `sweep` takes boards as arguments, `sweeps` lists: `sweep show` and `sweeps delete` are commands apart
SUBCOMMANDS: dict[tuple[str, ...], str] = {("sweep", "show"): "sweep-show", ("sweeps", "delete"): "sweeps-delete"}


class Orchestrate(TyperGroup):
    """The root group: commands by name, `sweep show` as the command `sweep-show`, usage errors in one line.

    Its contexts are typed Any: they are the click contexts of the click typer carries, which it names only privately.
    """

    def make_context(self, info_name, args, parent=None, **extra) -> Any:
        """The root's context; a usage error in the root's own options is one line."""
        with _one_line():
            return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx: Any) -> Any:
        """Run the command the arguments name; a usage error in its arguments is one line."""
        with _one_line():
            return super().invoke(ctx)

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
        """The command the arguments name, `sweep show SWEEP` included."""
        name = SUBCOMMANDS.get(tuple(args[:2]))
        if name is not None:
            return " ".join(args[:2]), self.commands[name], args[2:]
        return super().resolve_command(ctx, args)


@contextmanager
def _one_line() -> Iterator[None]:
    """An error of Typer's parser (an unknown option, a missing value: exit status 2) as one `error:` line."""
    try:
        yield
    except typer.TyperException as err:  # the public base of the errors Typer's copy of Click raises
        if type(err).__name__ == "NoArgsIsHelpError":  # a group named without a command shows its help (as Typer tells it)
            raise
        options.fail(err.format_message(), err.exit_code)


app = typer.Typer(
    cls=Orchestrate,
    rich_markup_mode=None,
    no_args_is_help=True,
    add_completion=True,
)
for commands in (solving.app, sweeping.app, tuning.app, catalogue.app, listing.app, reporting.app):
    app.add_typer(commands)


def _print_version(asked: bool) -> None:
    if asked:
        echo(f"slidelab {metadata.version('slidelab')}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print slidelab's version and exit.")
    ] = False,
) -> None:
    """slidelab: run and compare sliding-puzzle search algorithms.

    Example: orchestrate solve data/boards/rushhour/Rushhour6x6_1.csv --algo bfs
    """
    with suppress(AttributeError, OSError):  # kill -USR1 PID prints where each thread of a stuck command is
        faulthandler.register(signal.SIGUSR1, file=2, all_threads=True)  # the process's stderr, not one a test replaced


def run() -> None:
    """The `orchestrate` program: the command line, with any error no command foresaw shown as one line, exit 1."""
    try:
        app()
    except Exception as err:  # noqa: BLE001 - the last resort: a bug, never a traceback for the user
        message = f"internal error ({type(err).__name__}: {err}); please report it with the command that caused it"
        echo(f"error: {options.one_line(message)}", err=True)
        raise SystemExit(1) from None
    finally:
        _close_databases()


def _close_databases() -> None:
    """Close the connections of a command that opened a database (one that did not never loads the storage layer)."""
    store = sys.modules.get("workers.store.database")
    if store is not None:
        store.close_all()
