"""Additive pattern databases for the N-puzzle (Korf & Felner 2002; Felner, Korf & Hanan 2004).

The tiles are split into disjoint groups, a *partition* such as 6-6-3. For one
group, the database holds, for every placement of the group's tiles, the fewest
moves *of those tiles* that bring them all home, the other tiles being
indistinct and their moves free. No move is counted by two groups, so the sum
of the groups' values never exceeds the true distance.

A placement of k tiles on n cells is numbered by its rank among the
n!/(n-k)! ordered placements: tile i's digit is the index of its cell among
the cells tiles 0..i-1 left free (mixed radix, tile 0 most significant).

The builder is a breadth-first search by cost over (placement, blank cell):
the blank wandering among the other tiles costs nothing, a pattern tile
sliding into the blank costs one. Per placement it keeps the blank cells
reached as a bit mask, so a layer is one pass over the placements: the
blank's free region is a flood fill of bit masks, and only the tiles bordering
newly reached blank cells are moved. Three masks and one byte per placement.

A database is a file in the cache directory (format 2): a header line, a JSON
line with the board, goal, tiles, size and the payload's sha256, zeros up to
the next 4096 bytes, then one byte per placement. A process maps the payload
read-only rather than reading it, so the job processes of one machine share
one copy in the page cache; it verifies the sha256 the first time it maps a
file, and a file that fails is built again.
"""

import hashlib
import json
import math
import mmap
import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from puzzles.errors import PuzzleError
from puzzles.files import written_whole
from puzzles.intrinsics import popcount
from puzzles.jit import nb
from puzzles.npuzzle.board import goal_tiles
from puzzles.npuzzle.pdb_folder import directory

MAX_ENTRIES = 2**31 - 1  # placements per group: 7 tiles on 4x4 is 57.7 M, 8 tiles 519 M
GROUP_SIZE = 6  # the default partition's groups: 6-6-3 on 4x4, 6-6-6-6 on 5x5
MAX_GROUPS = 8  # groups in a partition: a spec holds this many databases (`puzzles.npuzzle.kernels.databases`)
MAGIC = b"slidelab-pdb 2\n"
PAGE = 4096  # the payload starts at a multiple of it, as a mapping must
UNREACHED = 255

# Partitions known by their sizes whose groups are not consecutive tiles: Korf & Felner's
# 6-6-6-6 of the 5x5 board (blank-first goal: an irregular group around the blank's corner,
# three 2x3 blocks), tiles named by their goal cells.
PUBLISHED: dict[tuple[int, int, str], tuple[tuple[int, ...], ...]] = {
    (5, 5, "6-6-6-6"): ((1, 2, 5, 6, 7, 12), (3, 4, 8, 9, 13, 14), (10, 11, 15, 16, 20, 21), (17, 18, 19, 22, 23, 24)),
}

Progress = Callable[[int, int], None]  # (placements reached, placements in all)

_loaded: dict[tuple, tuple[np.ndarray, ...]] = {}


def default_partition(width: int, height: int) -> str:
    """Groups of six and the rest: `6-2` on 3x3, `6-6-3` on 4x4, `6-6-6-6` (Korf & Felner's groups) on 5x5."""
    tiles = width * height - 1
    sizes = [GROUP_SIZE] * (tiles // GROUP_SIZE) + ([tiles % GROUP_SIZE] if tiles % GROUP_SIZE else [])
    return "-".join(str(size) for size in sizes)


def parse_partition(text: str, width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """The tile groups of `6-6-3` (sizes of groups of consecutive tiles) or `1 2 5 6/3 4 7 8` (the tiles of each group).

    Sizes that name a published partition (`PUBLISHED`: 6-6-6-6 on 5x5) give
    its groups. PuzzleError unless every tile 1..W*H-1 is in exactly one
    group, there are at most MAX_GROUPS groups and each group's database has at
    most MAX_ENTRIES entries.
    """
    tiles = width * height - 1
    if (width, height, text.strip()) in PUBLISHED:
        groups = list(PUBLISHED[width, height, text.strip()])
    elif re.fullmatch(r"\d+(-\d+)*", text.strip()):
        sizes = [int(size) for size in text.split("-")]
        if sum(sizes) != tiles or 0 in sizes:
            raise PuzzleError(f"pdb {text!r}: group sizes must be positive and add up to {tiles}, the tiles of {width}x{height}")
        starts = np.cumsum([1, *sizes])
        groups = [tuple(range(int(starts[i]), int(starts[i + 1]))) for i in range(len(sizes))]
    else:
        groups = [_group(part, text) for part in text.split("/")]
        if sorted(tile for group in groups for tile in group) != list(range(1, tiles + 1)):
            raise PuzzleError(f"pdb {text!r}: the groups must hold each tile 1..{tiles} exactly once")
    if len(groups) > MAX_GROUPS:
        raise PuzzleError(f"pdb {text!r}: {len(groups)} groups (at most {MAX_GROUPS})")
    for group in groups:
        if entries(width * height, len(group)) > MAX_ENTRIES:
            raise PuzzleError(
                f"pdb {text!r}: a group of {len(group)} tiles on {width}x{height} needs"
                f" {entries(width * height, len(group)):,} entries (at most {MAX_ENTRIES:,})"
            )
    return tuple(groups)


def partition_text(groups: tuple[tuple[int, ...], ...]) -> str:
    """The text `parse_partition` reads as `groups`: `6-6-3` for consecutive tiles or a published partition, else `1 2 5 6/3 4 7 8`."""
    for (_, _, name), published in PUBLISHED.items():
        if groups == published:
            return name
    tiles = [tile for group in groups for tile in group]
    if tiles == list(range(1, len(tiles) + 1)):
        return "-".join(str(len(group)) for group in groups)
    return "/".join(" ".join(map(str, group)) for group in groups)


def _group(part: str, text: str) -> tuple[int, ...]:
    numbers = part.replace(",", " ").split()
    if not numbers or not all(re.fullmatch("[0-9]+", number) for number in numbers):
        raise PuzzleError(f"pdb {text!r}: write group sizes (6-6-3) or groups of tiles separated by / (1 2 3/4 5 6 7 8)")
    return tuple(int(number) for number in numbers)


def entries(cells: int, k: int) -> int:
    """The ordered placements of k tiles on `cells` cells: cells! / (cells - k)!."""
    return math.perm(cells, k)


def multipliers(cells: int, k: int) -> np.ndarray:
    """Tile i's digit weight in a placement's rank: (cells-1-i)! / (cells-k)!."""
    return np.array([entries(cells - 1 - i, k - 1 - i) for i in range(k)], dtype=np.int64)


@nb.njit(inline="always", cache=True)
def rank(cell_of, start, table, tiles, mult, count):
    """The rank of the placement of `count` tiles: tile i is `table[tiles + i]`, on cell `cell_of[start + tile]`.

    Its digit weight is `table[mult + i]` (`multipliers`).
    """
    used = np.uint64(0)
    total = 0
    for i in range(count):
        cell = np.uint64(cell_of[start + table[tiles + i]])
        below = popcount(used & ((np.uint64(1) << cell) - np.uint64(1)))
        total += (np.int64(cell) - np.int64(below)) * table[mult + i]
        used |= np.uint64(1) << cell
    return total


@nb.njit(inline="always", cache=True)
def _unrank(number, cells, count, mult, cell_of):
    """Write the cells of the placement numbered `number` into `cell_of`; returns the mask of cells taken."""
    used = np.uint64(0)
    for i in range(count):
        digit = (number // mult[i]) % (cells - i)
        cell = 0
        while True:
            if not used & (np.uint64(1) << np.uint64(cell)):
                if digit == 0:
                    break
                digit -= 1
            cell += 1
        cell_of[i] = cell
        used |= np.uint64(1) << np.uint64(cell)
    return used


@nb.njit(inline="always", cache=True)
def _flood(region, free, width, inner_left, inner_right):
    """The cells of `free` connected to `region` (a subset of it) through free cells."""
    while True:
        grown = region | (region >> np.uint64(width)) | (region << np.uint64(width))
        grown |= ((region & inner_left) >> np.uint64(1)) | ((region & inner_right) << np.uint64(1))
        grown &= free
        if grown == region:
            return region
        region = grown


@nb.njit(cache=True)
def _layer(width, height, count, mult, frontier, following, seen, table, depth):
    """Settle every placement the blank reaches at cost `depth`; returns (placements first reached, any left)."""
    cells = width * height
    full = ~np.uint64(0) >> np.uint64(64 - cells)  # every cell (a shift by 64 would be undefined)
    inner_left = np.uint64(0)  # cells with a left neighbour
    inner_right = np.uint64(0)
    for cell in range(cells):
        if cell % width:
            inner_left |= np.uint64(1) << np.uint64(cell)
        if cell % width != width - 1:
            inner_right |= np.uint64(1) << np.uint64(cell)
    ranking = np.concatenate((np.arange(count), mult))  # tile i is i, then the multipliers
    cell_of = np.empty(count, dtype=np.int64)
    reached = 0
    more = False
    for number in range(frontier.shape[0]):
        blanks = np.uint64(frontier[number])
        if blanks == 0:
            continue
        frontier[number] = 0
        taken = _unrank(number, cells, count, mult, cell_of)
        region = _flood(blanks, full & ~taken, width, inner_left, inner_right)
        new = region & ~np.uint64(seen[number])
        if new == 0:
            continue
        if seen[number] == 0:
            table[number] = depth
            reached += 1
        seen[number] |= new
        for i in range(count):
            cell = cell_of[i]
            for step in range(4):
                if step == 0 and cell < width or step == 1 and cell >= cells - width:
                    continue
                if step == 2 and cell % width == 0 or step == 3 and cell % width == width - 1:
                    continue
                target = cell + (-width, width, -1, 1)[step]
                if not new & (np.uint64(1) << np.uint64(target)):
                    continue
                cell_of[i] = target
                moved = rank(cell_of, 0, ranking, 0, count, count)
                cell_of[i] = cell
                blank = np.uint64(1) << np.uint64(cell)
                if not np.uint64(seen[moved]) & blank:
                    following[moved] |= blank
                    more = True
    return reached, more


def _mask_type(cells: int) -> type[np.unsignedinteger]:
    return np.uint16 if cells <= 16 else np.uint32 if cells <= 32 else np.uint64


def build(width: int, height: int, goal: str, tiles: tuple[int, ...], progress: Progress | None = None) -> np.ndarray:
    """The database of `tiles` (one byte per placement; UNREACHED where the parity forbids a placement)."""
    cells = width * height
    home = goal_tiles(width, height, goal)
    cell_of = np.array([home.index(tile) for tile in tiles], dtype=np.int64)
    size = entries(cells, len(tiles))
    mult = multipliers(cells, len(tiles))
    masks = _mask_type(cells)
    seen, frontier, following = (np.zeros(size, dtype=masks) for _ in range(3))
    table = np.full(size, UNREACHED, dtype=np.uint8)
    frontier[rank(cell_of, 0, np.concatenate((np.arange(len(tiles)), mult)), 0, len(tiles), len(tiles))] = 1 << home.index(0)
    reached, depth, more = 0, 0, True
    while more:
        if depth >= UNREACHED:
            raise PuzzleError(f"pdb {tiles}: deeper than {UNREACHED - 1} moves, more than a byte holds")
        found, more = _layer(width, height, len(tiles), mult, frontier, following, seen, table, depth)
        reached += found
        if progress:
            progress(reached, size)
        frontier, following = following, frontier
        depth += 1
    return table


def path_for(width: int, height: int, goal: str, tiles: tuple[int, ...]) -> Path:
    """The file of one group's database in `directory()`."""
    return directory() / f"{width}x{height}-{goal}-{'.'.join(map(str, tiles))}.pdb"


def _header(width: int, height: int, goal: str, tiles: tuple[int, ...]) -> dict:
    return {"width": width, "height": height, "goal": goal, "tiles": list(tiles), "entries": entries(width * height, len(tiles))}


def save(path: Path, width: int, height: int, goal: str, tiles: tuple[int, ...], table: np.ndarray) -> None:
    """Write a database file atomically: header, JSON description with the payload's sha256, payload."""
    header = {**_header(width, height, goal, tiles), "sha256": hashlib.sha256(table.data).hexdigest()}
    described = MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n"
    with written_whole(path) as out:
        out.write(described + bytes(-len(described) % PAGE))
        out.write(table.data)


def read(path: Path, width: int, height: int, goal: str, tiles: tuple[int, ...]) -> np.ndarray | None:
    """The verified payload of a database file, mapped read-only; None if it is missing, for other tiles, cut short or corrupted."""
    try:
        with open(path, "rb") as source:
            if source.readline() != MAGIC:
                return None
            header = json.loads(source.readline())
            offset = -source.tell() % PAGE + source.tell()
            expected = _header(width, height, goal, tiles)
            described = isinstance(header, dict) and {key: header.get(key) for key in expected} == expected
            if not described or os.fstat(source.fileno()).st_size != offset + expected["entries"]:
                return None
            mapped = mmap.mmap(source.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    table = np.frombuffer(mapped, dtype=np.uint8, offset=offset)
    return table if hashlib.sha256(table.data).hexdigest() == header.get("sha256") else None


def table(
    width: int, height: int, goal: str, tiles: tuple[int, ...], progress: Progress | None = None, rebuild: bool = False
) -> np.ndarray:
    """One group's database: read and verified from its file, else (or if `rebuild`) built and saved."""
    path = path_for(width, height, goal, tiles)
    values = None if rebuild else read(path, width, height, goal, tiles)
    if values is None:
        save(path, width, height, goal, tiles, build(width, height, goal, tiles, progress))
        values = read(path, width, height, goal, tiles)
        if values is None:
            raise PuzzleError(f"pdb {tiles}: {path} could not be read back after it was written")
    elif progress:
        progress(len(values), len(values))
    return values


@dataclass(frozen=True)
class Ready:
    """A group's database in its file: the file, its entries and the most moves it holds."""

    path: Path
    entries: int
    deepest: int


def groups(width: int, height: int, goal: str, partition: str | None = None) -> tuple[tuple[int, ...], ...]:
    """The tile groups of `partition` (default: the size's own); PuzzleError for an unknown goal or partition."""
    goal_tiles(width, height, goal)  # an unknown goal is refused before building
    return parse_partition(partition or default_partition(width, height), width, height)


def ready(
    width: int, height: int, goal: str, tiles: tuple[int, ...], progress: Progress | None = None, rebuild: bool = False
) -> Ready:
    """One group's database made ready (`table`), as its file holds it."""
    values = table(width, height, goal, tiles, progress, rebuild)
    return Ready(path_for(width, height, goal, tiles), len(values), int(values[values != UNREACHED].max()))


def tables(width: int, height: int, goal: str, groups: tuple[tuple[int, ...], ...]) -> tuple[np.ndarray, ...]:
    """The groups' databases, mapped (or built) once per process.

    If memory runs out while a database is missing (being built), the
    MemoryError says how to build them beforehand.
    """
    held = (width, height, goal, groups)
    if held not in _loaded:
        try:
            _loaded[held] = tuple(table(width, height, goal, group) for group in groups)
        except MemoryError as err:
            if all(path_for(width, height, goal, group).is_file() for group in groups):
                raise  # every database had been built: the memory ran out reading them
            partition = shlex.quote(partition_text(groups))
            raise MemoryError(
                f"building the pattern databases of {width}x{height}; build them beforehand with:"
                f" orchestrate pdb build {width}x{height} --pdb {partition} --goal {goal}"
            ) from err
    return _loaded[held]


def forget() -> None:
    """Drop the databases this process holds (the files stay; a mapping goes with the last array using it)."""
    _loaded.clear()
