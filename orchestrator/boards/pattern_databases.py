"""`orchestrate pdb`: building the N-puzzle's pattern databases beforehand, so that jobs only load them."""

import time
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console

from orchestrator.text import build_bar
from puzzles.domains import PatternDatabases, find_domain
from puzzles.errors import PuzzleError

DOMAIN = "npuzzle"  # the domain whose pattern databases `orchestrate pdb` builds


def build(width: int, height: int, goal: str, partition: str | None, *, force: bool) -> Iterator[str]:
    """Build (or verify) each group's database of the partition (default: the size's), a progress bar on stderr.

    Yields a line per group: its file, entries, deepest value, size and time.
    """
    pdb = databases()
    for group in pdb.groups(width, height, goal, partition):
        started = time.perf_counter()
        with build_bar(Console(stderr=True), f"tiles {' '.join(map(str, group))}") as progress:
            made = pdb.ready(width, height, goal, group, progress, rebuild=force)
        yield (f"{made.path}: {made.entries:,} entries, at most {made.deepest} moves,"
               f" {made.path.stat().st_size / 2**20:,.1f} MiB, ready in {time.perf_counter() - started:.1f} s")


def databases(domain: str = DOMAIN) -> PatternDatabases:
    """The domain's pattern databases; PuzzleError if it has none."""
    found = find_domain(domain)
    if found.pattern_databases is None:
        raise PuzzleError(f"{found.title} has no pattern databases")
    return found.pattern_databases()


def folder() -> Path:
    """Where the database files are kept."""
    return databases().directory()


def files() -> list[Path]:
    """The database files in the cache directory."""
    return sorted(folder().glob("*.pdb"))
