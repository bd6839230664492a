"""`orchestrate pdb`: building the N-puzzle's pattern databases beforehand, so that jobs only load them."""

import time
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console

from orchestrator.text import build_bar
from puzzles.npuzzle import pdb
from puzzles.npuzzle.board import goal_tiles


def build(width: int, height: int, goal: str, partition: str | None, *, force: bool) -> Iterator[str]:
    """Build (or verify) each group's database of the partition (default: the size's), a progress bar on stderr.

    Yields a line per group: its file, entries, deepest value, size and time.
    """
    goal_tiles(width, height, goal)  # an unknown goal is refused before building
    groups = pdb.parse_partition(partition or pdb.default_partition(width, height), width, height)
    for group in groups:
        started = time.perf_counter()
        with build_bar(Console(stderr=True), f"tiles {' '.join(map(str, group))}") as progress:
            values = pdb.table(width, height, goal, group, progress, rebuild=force)
        path = pdb.path_for(width, height, goal, group)
        yield (f"{path}: {len(values):,} entries, at most {int(values[values != pdb.UNREACHED].max())}"
               f" moves, {path.stat().st_size / 2**20:,.1f} MiB, ready in {time.perf_counter() - started:.1f} s")


def folder() -> Path:
    """Where the database files are kept."""
    return pdb.directory()


def files() -> list[Path]:
    """The database files in the cache directory."""
    return sorted(folder().glob("*.pdb"))
