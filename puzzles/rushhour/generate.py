"""Random Rush Hour boards of a chosen difficulty, found the way Fogleman's database was.

An attempt places the red car (length 2, horizontal) at random in the exit
row, row ``(size - 1) // 2`` as on the course boards, and packs cars and
trucks around it until none fits, never one horizontal in the exit row (it
would bar the way out or do nothing); then it takes random vehicles off as
long as at most `empty_cells` cells are left empty. Every move is reversible,
so the boards reachable from the placement form one connected cluster: a
compiled breadth-first search enumerates it, and a second one, from every
solved board of the cluster at once, gives each board its fewest moves to a
solution (the `slide` move model). A board at the cluster's largest distance
(or at exactly `moves`, drawn at random among those) is the attempt's
puzzle. An attempt gives nothing when its cluster has no solved board, holds
more than `max_states` boards, or does not reach the distance asked for.

Hard puzzles are dense. Loose placements (8 to 13 vehicles on 6x6, say) give
large clusters of easy boards: a 30-move 6x6 board about once in 1,000 to
2,000 attempts of 20 ms. Packed ones with a few holes give small clusters and
hard boards more often and faster. Measured on one core, defaults, seed 1:

- 6x6: 20 boards of at least 20 moves in 3,504 attempts (5 s), of 25 moves
  in 10,235 (15 s), of 30 moves in 33,282 (52 s);
- 9x9: 10 boards of at least 20 moves in 302 attempts (11 s), of 30 moves in
  804 (35 s): 30 to 101 moves, far harder than the course's 9x9 boards;
- 12x12: 5 boards of at least 10 moves in 197 attempts (17 s), of 20 moves
  in 397 (36 s).

A request beyond what placements reach runs all `max_attempts`, at about
1.5 ms an attempt on 6x6, 40 ms on 9x9 and 90 ms on 12x12. The default,
`default_max_attempts`, keeps that to a few minutes on any size.

Attempts draw from ``random.Random(seed)``: the same seed and arguments give
the same boards. Vehicles are relabelled in reading order of their top-left
cell (the red car ``X`` first, then ``A``, ``B``, ... skipping ``X``), so one
picture has one canonical text, and boards are kept once per text.
"""

import random

import numpy as np

from puzzles import nodestore
from puzzles.errors import PuzzleError
from puzzles.jit import nb
from puzzles.kernels import expand, is_goal, workspace
from puzzles.rushhour.board import RushHourBoard, Vehicle
from puzzles.rushhour.formats import MIN_SIZE, canonical_text
from puzzles.rushhour.problem import RushHourProblem
from puzzles.textio import numbered_names

RED = "X"
MAX_SIZE = 16  # larger boards pack slowly, and their clusters are rarely small enough
TRUCK_SHARE = 0.25  # of the vehicles packed where a car and a truck both fit
_UNNAMED = "?"  # vehicles other than the red car, until the board is relabelled
_UNSEEN = -1


class TooFewBoards(PuzzleError):
    """The attempts ran out before giving the boards asked for."""


def hardest_boards(
    size: int,
    count: int,
    seed: int,
    *,
    min_moves: int | None = None,
    moves: int | None = None,
    empty_cells: int = 7,
    max_states: int = 200_000,
    max_attempts: int | None = None,
    prefix: str | None = None,
) -> list[tuple[RushHourBoard, int]]:
    """`count` distinct solvable size x size boards, each with its optimal number of moves (slide model).

    Each board needs at least `min_moves` (default 1), or exactly `moves`; it is
    the hardest board of its cluster unless `moves` asks for less. A placement
    leaves at most `empty_cells` cells empty (if packing leaves no more);
    `max_attempts` (default: `default_max_attempts`) bounds the placements
    searched (see the module docstring for both, and for what a request
    costs). A cluster costs 100 to 200 bytes a board, so `max_states` also
    bounds the memory (40 MB by default). Boards are named
    `<prefix>-001` and so on, the prefix ``rushhour-6x6-s1`` by default. PuzzleError for bad arguments;
    TooFewBoards when the attempts give fewer than `count` boards (the message
    says how many attempts were made and what they reached).
    """
    max_attempts = default_max_attempts(size) if max_attempts is None else max_attempts
    _check(size, count, min_moves, moves, empty_cells, max_states, max_attempts)
    target = moves or min_moves or 1
    rng = random.Random(seed)
    found: dict[str, tuple[RushHourBoard, int]] = {}
    hardest = too_large = 0
    for _ in range(max_attempts):
        problem, keys, distances = _attempt(size, empty_cells, max_states, rng)
        farthest = int(distances.max())
        hardest, too_large = max(hardest, farthest), too_large + (keys.shape[0] > max_states)
        if farthest >= target:
            distance = moves or farthest
            board = _pick(problem, keys, distances, distance, rng)
            found.setdefault(canonical_text(board), (board, distance))
            if len(found) == count:
                return _named(list(found.values()), prefix or f"rushhour-{size}x{size}-s{seed}")
    wanted = f"exactly {moves}" if moves else f"at least {target}"
    raise TooFewBoards(
        f"{max_attempts:,} placements on {size}x{size} gave {len(found)} of {count} boards needing {wanted} moves"
        f" (the hardest reached needs {hardest}; {too_large} clusters had more than {max_states} states)"
    )


def default_max_attempts(size: int) -> int:
    """Placements tried before giving up: 100,000 up to 6x6, 1,500,000 / size³ beyond (2,057 on 9x9, 868 on 12x12).

    An attempt costs 0.5 to 2 ms up to 6x6 and 15 to 300 ms beyond, about as
    size³ (its cluster often fills `max_states`), so an impossible request gives
    up within a few minutes on one core whatever the size (1.5 to 4 measured).
    """
    return 100_000 if size <= 6 else 1_500_000 // size**3


def _check(
    size: int, count: int, min_moves: int | None, moves: int | None, empty_cells: int, max_states: int,
    max_attempts: int,
) -> None:  # fmt: skip
    """PuzzleError for arguments no generation can satisfy."""
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise PuzzleError(f"board size must be {MIN_SIZE} to {MAX_SIZE}, not {size}")
    if min_moves is not None and moves is not None:
        raise PuzzleError("give min_moves or moves, not both")
    at_least = {"count": (count, 1), "min_moves": (min_moves, 1), "moves": (moves, 1), "empty_cells": (empty_cells, 0),
                "max_states": (max_states, 1), "max_attempts": (max_attempts, 1)}  # fmt: skip
    for name, (value, least) in at_least.items():
        if value is not None and value < least:
            raise PuzzleError(f"{name} must be at least {least}, not {value}")


def _attempt(
    size: int, empty_cells: int, max_states: int, rng: random.Random
) -> tuple[RushHourProblem, np.ndarray, np.ndarray]:
    """A random placement as a problem, with its cluster's keys and distances (see `cluster_distances`)."""
    problem = RushHourProblem(_placement(size, empty_cells, rng))
    kernels = problem.kernels
    return problem, *cluster_distances(kernels.spec, problem.start_key(), kernels.max_branching, max_states)


def _pick(
    problem: RushHourProblem, keys: np.ndarray, distances: np.ndarray, distance: int, rng: random.Random
) -> RushHourBoard:
    """One of the cluster's boards at `distance`, drawn at random, relabelled."""
    candidates = np.flatnonzero(distances == distance)
    return _relabelled(problem.board_at(keys[candidates[rng.randrange(len(candidates))]]))


def _placement(size: int, empty_cells: int, rng: random.Random) -> RushHourBoard:
    """The red car at random in the exit row, vehicles packed around it, then some taken off.

    Random vehicles are taken off as long as at most `empty_cells` cells are left empty.
    """
    vehicles = _packed(size, Vehicle(RED, True, (size - 1) // 2, rng.randrange(size - 1), 2), rng)
    empty = size * size - sum(vehicle.length for vehicle in vehicles)
    while len(vehicles) > 1:
        index = rng.randrange(1, len(vehicles))
        if empty + vehicles[index].length > empty_cells:
            break
        empty += vehicles.pop(index).length
    return RushHourBoard(size, tuple(vehicles), RED)


def _packed(size: int, red: Vehicle, rng: random.Random) -> list[Vehicle]:
    """The red car and vehicles packed around it until none fits, the most constrained cell first.

    Each step fills the free cell the fewest vehicles fit on (ties in a random
    order of the cells) with one of those vehicles: a truck with chance
    `TRUCK_SHARE` if both kinds fit. Filling the cells about to be shut in
    first leaves few holes, so the clusters stay small.
    """
    fits = [v for v in _vehicles(size, red.row) if set(v.cells()).isdisjoint(red.cells())]
    covering: dict[tuple[int, int], set[int]] = {}
    for index, vehicle in enumerate(fits):
        for covered in vehicle.cells():
            covering.setdefault(covered, set()).add(index)
    order = sorted(covering)
    rng.shuffle(order)
    vehicles = [red]
    while cell := min((c for c in order if covering[c]), key=lambda c: len(covering[c]), default=None):
        fitting = [fits[index] for index in sorted(covering[cell])]
        trucks = [vehicle for vehicle in fitting if vehicle.length == 3]
        cars = [vehicle for vehicle in fitting if vehicle.length == 2]
        vehicle = rng.choice(trucks if trucks and (not cars or rng.random() < TRUCK_SHARE) else cars)
        vehicles.append(vehicle)
        for taken in vehicle.cells():
            for index in list(covering[taken]):
                for other in fits[index].cells():
                    covering[other].discard(index)
    return vehicles


def _vehicles(size: int, exit_row: int) -> list[Vehicle]:
    """Every car and truck that fits on the board, but those horizontal in the exit row."""
    return [
        Vehicle(_UNNAMED, horizontal, *((line, start) if horizontal else (start, line)), length)
        for length in (2, 3)
        for horizontal in (True, False)
        for line in range(size)
        for start in range(size - length + 1)
        if not (horizontal and line == exit_row)
    ]


def _relabelled(board: RushHourBoard) -> RushHourBoard:
    """The board with the red car first as `RED` and the others after it, labelled A, B, ... in reading order."""
    others = sorted((v for v in board.vehicles if v.name != board.red), key=lambda v: (v.row, v.col))
    labels = _labels()
    renamed = [Vehicle(next(labels), v.horizontal, v.row, v.col, v.length) for v in others]
    red = board.red_vehicle
    return RushHourBoard(board.size, (Vehicle(RED, True, red.row, red.col, red.length), *renamed), RED)


def _labels():
    """Vehicle labels other than `RED`: A..Z, then AA, AB, ..."""
    letters = [chr(c) for c in range(ord("A"), ord("Z") + 1)]
    yield from (c for c in letters if c != RED)
    yield from (a + b for a in letters for b in letters)


def _named(boards: list[tuple[RushHourBoard, int]], prefix: str) -> list[tuple[RushHourBoard, int]]:
    """The boards named `<prefix>-001` and so on, in order."""
    names = numbered_names(prefix, len(boards))
    return [(RushHourBoard(b.size, b.vehicles, b.red, b.walls, name), d) for name, (b, d) in zip(names, boards)]


@nb.njit(cache=True)
def cluster_distances(spec, start, max_branching, max_states):
    """Every board reachable from `start` and its fewest moves to a solved board (-1: none reachable).

    Returns (keys, distances), one row per board in the order found. If the
    cluster has more than `max_states` boards, it stops there: the arrays then
    hold `max_states + 1` rows and every distance is -1.
    """
    store, first, edges = _cluster(spec, start, max_branching, max_states)
    found = store.count[0]
    distances = store.cost[:found]
    if found <= max_states:
        _distances_to_goals(spec, store.keys, first, edges, distances)
    return store.keys[:found], distances


@nb.njit(cache=True)
def _cluster(spec, start, max_branching, max_states):
    """Breadth-first search of the boards reachable from `start`, up to `max_states + 1` of them.

    Returns (store, first, edges): the boards in a node store (cost -1), and
    board b's neighbours as the node ids ``edges[first[b]:first[b + 1]]``.
    """
    store, _ = nodestore.add(nodestore.new_store(start.shape[0], 1 << 10), start.reshape(1, -1), 0,
                             nodestore.NO_PARENT, 0, _UNSEEN)  # fmt: skip
    out_keys = np.empty((max_branching, start.shape[0]), dtype=np.uint64)
    out_moves = np.empty(max_branching, dtype=np.int64)
    hashes = np.empty(max_branching, dtype=np.uint64)
    work = workspace(spec)
    first = np.zeros(1 << 10, dtype=np.int64)
    edges = np.empty(1 << 12, dtype=np.int32)
    table, node_keys = store.table, store.keys
    head = 0
    while head < store.count[0] <= max_states:
        count = expand(spec, work, node_keys[head], out_keys, out_moves)
        if first[head] + count > edges.shape[0]:
            edges = nodestore.resized(edges, 2 * edges.shape[0] + count)
        for j in range(count):  # start loading every successor's slot before probing any
            hashes[j] = nodestore.hash_row(out_keys, j)
            nodestore.prefetch_slot(store, hashes[j])
        for j in range(count):
            node = nodestore.lookup(table, node_keys, out_keys, j, hashes[j])
            if node < 0:
                store, node = nodestore.add(store, out_keys, j, head, 0, _UNSEEN)
                table, node_keys = store.table, store.keys
            edges[first[head] + j] = node
        head += 1
        if head + 1 > first.shape[0]:
            first = nodestore.resized(first, 2 * first.shape[0])
        first[head] = first[head - 1] + count
    return store, first, edges


@nb.njit(cache=True)
def _distances_to_goals(spec, keys, first, edges, distances):
    """Fill `distances` (all -1) by a breadth-first search from every solved board at once."""
    queue = np.empty(distances.shape[0], dtype=np.int64)
    tail = 0
    for node in range(distances.shape[0]):
        if is_goal(spec, keys[node]):
            distances[node] = 0
            queue[tail] = node
            tail += 1
    for head in range(distances.shape[0]):
        if head == tail:
            return
        node = queue[head]
        for child in edges[first[node] : first[node + 1]]:
            if distances[child] == _UNSEEN:
                distances[child] = distances[node] + 1
                queue[tail] = child
                tail += 1
