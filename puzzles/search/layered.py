"""Layered breadth-first search with checkpoints: the optimum, or a proven lower bound that rises layer by layer.

Moves are reversible (Rush Hour slides, the N-puzzle's blank moves), so a
successor of a state at depth d lies at depth d - 1, d or d + 1: each layer is
found from the two before it alone (frontier search with layered duplicate
detection), and only those two are in memory. Every layer is written to the
checkpoint folder as it is found, split by hash into `parts` (a power of two)
files, so that part j of the next layer needs only part j of the two before it
and a pass over the whole last layer: a layer whose table would not fit in the
memory budget is built part by part, one pass each, in `processes` processes
at once (forked, each with its own table). A run cut short resumes from the
last part written (`manifest.json`, replaced atomically).

After layer d is complete with no goal, no solution is shorter than d + 1;
more, every longer solution passes through layer d, so none is shorter than
d + min h over the layer (h admissible). With an `upper_bound` U (a solution
of U moves is known), states with depth + h above U - 1 are not kept: the
search then decides whether any solution shorter than U exists. A resumed
search may lower its bound (a shorter solution was found meanwhile), never
raise it. The solution is traced back through the layers on disk.
"""

import hashlib
import json
import logging
import multiprocessing
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from puzzles import stateset, stops
from puzzles.errors import PuzzleError
from puzzles.files import written_whole
from puzzles.jit import nb
from puzzles.kernels import expand, heuristic, is_goal, workspace
from puzzles.nodestore import copy_row, hash_row, same_rows
from puzzles.problem import Heuristic, Problem
from puzzles.result import Limits, Outcome, SearchReport

log = logging.getLogger(__name__)  # a line per layer proven: a long run shows its bound rising
MANIFEST = "manifest.json"
FORMAT = 1
EXPANDED, GENERATED, NEW, MIN_H = range(4)  # the counters of one pass
_NO_H = np.iinfo(np.int64).max
_DONE = -1  # a pass ended with every parent expanded (stops.SOLVED is 0)
_SLICE = 1 << 20  # states of a layer file expanded per call
_SLACK = 4 / 3 + 0.01  # a part's table is made this much larger than the states expected in it: at most 3/4 full


@nb.njit(cache=True)
def _part_of(h, parts):
    """The part of a state's hash (its low bits; the table's slots use the high ones)."""
    return np.int64(h & np.uint64(parts - 1))


@nb.njit(cache=True)
def load_part(table, stored, rows, depth, part, parts):
    """Put the rows of `rows` in part `part` of `parts` into the table at `depth`.

    Returns (status, table, stored), the status _DONE or MEMORY_LIMIT.
    """
    last = table.shape[1] - 1
    for r in range(rows.shape[0]):
        h = hash_row(rows, r)
        if _part_of(h, parts) != part:
            continue
        table, grown = stateset.room_for(table, stored, 1)
        if not grown:
            return stops.MEMORY_LIMIT, table, stored
        slot = stateset.slot_of(table, rows, r, h)
        if table[slot, last] == 0:
            stateset.put(table, slot, rows, r, stateset.depth_tag(depth))
            stored += 1
    return _DONE, table, stored


@nb.njit(cache=True)
def expand_part(spec, code, hargs, parents, table, stored, depth, part, parts, bound, max_branching, counters,
                goal, max_nodes, deadline):
    """Expand every row of `parents` (at depth - 1) and put its new successors of part `part` in the table at `depth`.

    A successor is new if the table (the part of the two layers before) does
    not hold it; it is kept only if `bound` < 0 or depth + h is at most
    `bound`. Counters: expanded, generated, new states, least h among them.
    Returns (status, table, stored): SOLVED with the goal copied into `goal`,
    a limit, or _DONE when every parent is expanded.
    """
    work = workspace(spec)
    last = table.shape[1] - 1
    out_keys = np.empty((max_branching, table.shape[1]), dtype=np.uint64)
    out_moves = np.empty(max_branching, dtype=np.int64)
    batch_keys = np.empty((stateset.BATCH * max_branching, table.shape[1]), dtype=np.uint64)
    batch_hashes = np.empty(stateset.BATCH * max_branching, dtype=np.uint64)
    for first in range(0, parents.shape[0], stateset.BATCH):
        status = stops.reached(counters[EXPANDED], max_nodes, deadline)
        if status:
            return status, table, stored
        batch = 0
        for i in range(first, min(first + stateset.BATCH, parents.shape[0], first + max_nodes - counters[EXPANDED])):
            count = expand(spec, work, parents[i], out_keys, out_moves)
            counters[EXPANDED] += 1
            counters[GENERATED] += count
            for j in range(count):
                h = hash_row(out_keys, j)
                if _part_of(h, parts) == part:
                    copy_row(batch_keys, batch, out_keys, j)
                    batch_hashes[batch] = h
                    stateset.prefetch_home(table, h)
                    batch += 1
        table, grown = stateset.room_for(table, stored, batch)
        if not grown:
            return stops.MEMORY_LIMIT, table, stored
        for b in range(batch):
            slot = stateset.slot_of(table, batch_keys, b, batch_hashes[b])
            if table[slot, last] != 0:
                continue
            if is_goal(spec, batch_keys[b]):
                copy_row(goal, 0, batch_keys, b)
                return stops.SOLVED, table, stored
            estimate = heuristic(spec, work, code, hargs, batch_keys[b], 0)
            if bound >= 0 and depth + estimate > bound:
                continue
            stateset.put(table, slot, batch_keys, b, stateset.depth_tag(depth))
            stored += 1
            counters[NEW] += 1
            counters[MIN_H] = min(counters[MIN_H], estimate)
    return _DONE, table, stored


@nb.njit(cache=True)
def rows_at(table, depth, count):
    """The `count` states the table holds at `depth`, as rows of keys."""
    rows = np.empty((count, table.shape[1]), dtype=np.uint64)
    found = 0
    for slot in range(table.shape[0]):
        if stateset.tag_at(table, slot) == stateset.depth_tag(depth):
            stateset.copy_key(rows, found, table, slot)
            found += 1
    return rows[:found]


@nb.njit(cache=True)
def first_held(rows, candidates):
    """The first row of `candidates` that `rows` also holds, or -1."""
    hashes = np.empty(candidates.shape[0], dtype=np.uint64)
    for c in range(candidates.shape[0]):
        hashes[c] = hash_row(candidates, c)
    order = np.argsort(hashes)
    sorted_hashes = hashes[order]
    for r in range(rows.shape[0]):
        h = hash_row(rows, r)
        at = np.searchsorted(sorted_hashes, h)
        while at < sorted_hashes.shape[0] and sorted_hashes[at] == h:
            if same_rows(rows, r, candidates, order[at]):
                return order[at]
            at += 1
    return -1


@nb.njit(cache=True)
def estimate_of(spec, code, hargs, keys):
    """The heuristic at row 0 of `keys`."""
    return heuristic(spec, workspace(spec), code, hargs, keys[0], 0)


class Checkpoint:
    """A search's folder of layer files and its manifest: what is proven, and what the next layer has so far."""

    def __init__(self, folder: Path, identity: str, bound: int):
        self.folder = folder
        path = folder / MANIFEST
        if path.exists():
            try:
                self.state = json.loads(path.read_text())
            except (OSError, ValueError) as err:
                raise PuzzleError(f"checkpoint {path} cannot be read: {err}") from None
            if self.state.get("format") != FORMAT or self.state.get("identity") != identity:
                raise PuzzleError(f"checkpoint {folder} belongs to another search (board or heuristic):"
                                  " give another folder, or delete it")
            if self.state["layers"] and _looser(bound, self.state.get("bound", -1)):
                raise PuzzleError(f"checkpoint {folder} was searched with an upper bound of"
                                  f" {self.state['bound'] + 1} moves: resume with that bound or a lower one,"
                                  " or give another folder")
        else:
            self.state = {"format": FORMAT, "identity": identity, "layers": [], "building": None,
                          "expanded": 0, "generated": 0}
        self.state["bound"] = bound  # the least so far: layers pruned more loosely before stay exact

    def save(self) -> None:
        """Write the manifest atomically (a new file renamed over the old)."""
        with written_whole(self.folder / MANIFEST) as out:
            out.write(json.dumps(self.state, indent=1).encode())

    def path(self, depth: int, part: int, parts: int) -> Path:
        """The file of one part of one layer."""
        return self.folder / f"layer-{depth:03d}-part-{part:04d}-of-{parts:04d}.npy"

    def write(self, depth: int, part: int, parts: int, rows: np.ndarray) -> None:
        """Write one part of a layer atomically."""
        with written_whole(self.path(depth, part, parts)) as out:
            np.save(out, rows)

    def slices(self, depth: int, part: int, parts: int) -> Iterator[np.ndarray]:
        """The states of one part of a layer, read a slice at a time (a whole file mapped would count in RLIMIT_AS)."""
        with open(self.path(depth, part, parts), "rb") as source:
            major, _ = np.lib.format.read_magic(source)
            header = np.lib.format.read_array_header_1_0 if major == 1 else np.lib.format.read_array_header_2_0
            shape, _, _ = header(source)
            for _ in range(0, shape[0], _SLICE):
                yield np.fromfile(source, dtype=np.uint64, count=_SLICE * shape[1]).reshape(-1, shape[1])

    def files_of(self, depth: int) -> Iterator[np.ndarray]:
        """Every state of a complete layer, in slices."""
        parts = self.state["layers"][depth]["parts"]
        for part in range(parts):
            yield from self.slices(depth, part, parts)

    def parts_for(self, depth: int, part: int, parts: int) -> Iterator[np.ndarray]:
        """In slices, the parts of a complete layer that may hold states of part `part` of `parts` (powers of two)."""
        own = self.state["layers"][depth]["parts"]
        for p in range(part, own, parts) if own >= parts else [part % own]:
            yield from self.slices(depth, p, own)


def search(problem: Problem, limits: Limits, heuristic: Heuristic, checkpoint: str | None = None,
           upper_bound: int | None = None, memory_gib: float = 4.0, processes: int = 1) -> SearchReport:
    """Layered BFS resumable from `checkpoint` (a folder; a temporary one if None); optimal in moves.

    `upper_bound`: the length of a known solution, to keep only states with
    depth + h below it (`heuristic` must then be admissible). `memory_gib`: the
    budget of one part's table, which sets how many parts a layer has.
    `processes`: parts built at once (a layer has at least as many parts), each
    process with a table of its own; each is given the whole node budget left.
    """
    if upper_bound is not None and not heuristic.admissible:
        raise PuzzleError(f"an upper bound needs an admissible heuristic, and {heuristic.name} is not")
    start = problem.start_key().reshape(1, -1)
    if limits.max_nodes == 0:  # nothing to expand: only compile the kernels
        _compile(problem, heuristic, start)
        return SearchReport(outcome=Outcome.LIMIT, reason="node limit of 0 expansions reached")
    bound = upper_bound - 1 if upper_bound is not None else -1
    identity = _identity(problem, heuristic)
    if checkpoint is None:
        folder = Path(tempfile.mkdtemp(prefix="slidelab-layers-"))
        try:
            return _run(problem, limits, heuristic, Checkpoint(folder, identity, bound), bound, memory_gib, start,
                        processes)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return _run(problem, limits, heuristic, Checkpoint(Path(checkpoint), identity, bound), bound, memory_gib, start,
                processes)


def _compile(problem: Problem, heuristic: Heuristic, start: np.ndarray) -> None:
    """Run each kernel once on nothing, so that its compiled code is loaded before the search is timed."""
    kernels = problem.kernels
    table = np.zeros((16, start.shape[1]), dtype=np.uint64)
    counters = np.array([0, 0, 0, _NO_H], dtype=np.int64)
    nothing = start[:0]
    load_part(table, 0, nothing, 0, 0, 1)
    expand_part(heuristic.spec, heuristic.code, heuristic.args, nothing, table, 0, 1, 0, 1, -1,
                kernels.max_branching, counters, start.copy(), 1, np.inf)
    rows_at(table, 0, 0)
    first_held(nothing, start)
    estimate_of(heuristic.spec, heuristic.code, heuristic.args, start)


def _identity(problem: Problem, heuristic: Heuristic) -> str:
    """A digest of what fixes the layers: the spec, the start and the heuristic (which prunes under a bound)."""
    digest = hashlib.sha256()
    for name, value in problem.kernels.spec._asdict().items():
        digest.update(name.encode() + np.asarray(value).tobytes())
    digest.update(problem.start_key().tobytes())
    digest.update(f"{heuristic.name}:{heuristic.args.tobytes().hex()}".encode())
    return digest.hexdigest()


def _looser(bound: int, earlier: int) -> bool:
    """True if pruning with `bound` keeps states that `earlier` dropped (-1: no bound).

    A state dropped at one depth is dropped at every later one as long as the
    bound never rises: then the layers are still exact, pruned a little more
    from some depth on.
    """
    return earlier >= 0 and (bound < 0 or bound > earlier)


def _run(problem: Problem, limits: Limits, heuristic: Heuristic, checkpoint: Checkpoint, bound: int,
         memory_gib: float, start: np.ndarray, processes: int) -> SearchReport:
    """Build layers from where the checkpoint stands until a goal, exhaustion or a limit."""
    kernels = problem.kernels
    state = checkpoint.state
    max_nodes, deadline = stops.budget(limits)
    counters = np.zeros(4, dtype=np.int64)
    run_expanded = run_generated = 0
    if not state["layers"]:
        if problem.is_goal(start[0]):
            return SearchReport(outcome=Outcome.SOLVED, extra={"lower_bound": 0})
        checkpoint.write(0, 0, 1, start)
        h = int(estimate_of(heuristic.spec, heuristic.code, heuristic.args, start)) if heuristic.admissible else None
        state["layers"].append({"count": 1, "parts": 1, "min_h": h})
        checkpoint.save()
    while True:
        depth = len(state["layers"])  # the layer being built
        if state["layers"][-1]["count"] == 0:
            return _report(state, Outcome.UNSOLVABLE if bound < 0 else Outcome.LIMIT, None, bound, counters, None,
                           run_expanded, run_generated)
        building = state["building"] or {"parts": _parts(state, kernels, memory_gib, processes), "done": {}}
        state["building"] = building
        parts = building["parts"]
        todo = [part for part in range(parts) if str(part) not in building["done"]]
        job = (problem, heuristic, checkpoint, depth, parts, bound, max_nodes - run_expanded, deadline)
        for part, code, count, counters, goal in _built(job, todo, processes):
            state["expanded"] += int(counters[EXPANDED])
            state["generated"] += int(counters[GENERATED])
            run_expanded += int(counters[EXPANDED])
            run_generated += int(counters[GENERATED])
            if code == stops.SOLVED:
                path = _trace_back(problem, checkpoint, goal, depth)
                checkpoint.save()
                return _report(state, Outcome.SOLVED, None, bound, counters, path, run_expanded, run_generated)
            if code != _DONE:
                if code == stops.MEMORY_LIMIT and not building["done"]:
                    building["parts"] *= 2  # the layer's growth was underestimated: the next run splits it finer
                checkpoint.save()
                _, reason = stops.outcome_of(code, limits)
                return _report(state, Outcome.LIMIT, reason, bound, counters, None, run_expanded, run_generated)
            building["done"][str(part)] = {"count": count,
                                           "min_h": int(counters[MIN_H]) if counters[NEW] and heuristic.admissible
                                           else None}  # only an admissible estimate bounds the solutions
            checkpoint.save()
        done = building["done"].values()
        found = [entry["min_h"] for entry in done if entry["min_h"] is not None]
        state["layers"].append({"count": sum(entry["count"] for entry in done), "parts": parts,
                                "min_h": min(found) if found else None})
        state["building"] = None
        checkpoint.save()
        log.info("layer %d: %s states in %d part(s); no solution within %d moves",
                 depth, f"{state['layers'][-1]['count']:,}", parts, _proven(state, bound) - 1)


def _parts(state: dict[str, Any], kernels, memory_gib: float, processes: int) -> int:
    """How many parts the next layer needs for one part's table (at most 3/4 full) to fit the budget, and for each
    process to have one (a power of two)."""
    table_bytes = _SLACK * _expected_states(state, kernels) * 8 * kernels.key_words
    parts = 1
    while table_bytes / parts > memory_gib * 2**30 or parts < processes:
        parts *= 2
    return parts


_FORKED: tuple = ()  # what the forked processes of `_built` build from


def _built(job: tuple, todo: list[int], processes: int) -> Iterable[tuple[int, int, int, np.ndarray, np.ndarray]]:
    """Each part of `todo` built and written: (part, status, its states, counters, the goal if found), as each ends.

    With more than one process, the parts are built in forked processes, in
    the order they end; leaving the loop early stops them.
    """
    global _FORKED
    if processes == 1 or len(todo) == 1:
        yield from map(_build_and_write, [job] * len(todo), todo)
        return
    _FORKED = job
    with multiprocessing.get_context("fork").Pool(min(processes, len(todo))) as pool:
        yield from pool.imap_unordered(_forked_part, todo)


def _forked_part(part: int) -> tuple[int, int, int, np.ndarray, np.ndarray]:
    return _build_and_write(_FORKED, part)


def _build_and_write(job: tuple, part: int) -> tuple[int, int, int, np.ndarray, np.ndarray]:
    """One part built and, when complete, written: (part, status, its states, counters, the goal if found)."""
    problem, heuristic, checkpoint, depth, parts, bound, max_nodes, deadline = job
    counters = np.zeros(4, dtype=np.int64)
    goal = problem.start_key().reshape(1, -1).copy()
    code, rows = _build_part(problem, heuristic, checkpoint, depth, part, parts, bound, counters, goal, max_nodes,
                             deadline)
    if code == _DONE:
        checkpoint.write(depth, part, parts, rows)
    return part, code, 0 if rows is None else int(rows.shape[0]), counters, goal


def _expected_states(state: dict[str, Any], kernels) -> float:
    """The states the tables of the next layer will hold: the last two layers and a guess at the next."""
    layers = state["layers"]
    last = layers[-1]["count"]
    before = layers[-2]["count"] if len(layers) > 1 else 0
    growth = min(kernels.max_branching, 1.1 * last / before) if before else kernels.max_branching
    return before + last + growth * last


def _build_part(problem: Problem, heuristic: Heuristic, checkpoint: Checkpoint, depth: int, part: int, parts: int,
                bound: int, counters: np.ndarray, goal: np.ndarray, max_nodes: int, deadline: float):
    """One pass: part `part` of layer `depth`; returns (status, its rows): _DONE, SOLVED or a limit."""
    try:
        return _part_rows(problem, heuristic, checkpoint, depth, part, parts, bound, counters, goal, max_nodes,
                          deadline)
    except MemoryError:  # the memory cap (RLIMIT_AS) is below the budget
        return stops.MEMORY_LIMIT, None


def _part_rows(problem: Problem, heuristic: Heuristic, checkpoint: Checkpoint, depth: int, part: int, parts: int,
               bound: int, counters: np.ndarray, goal: np.ndarray, max_nodes: int, deadline: float):
    kernels = problem.kernels
    capacity = max(256, int(_SLACK * _expected_states(checkpoint.state, kernels) / parts))
    table = np.zeros((capacity, kernels.key_words), dtype=np.uint64)
    stored = 0
    counters[:] = (0, 0, 0, _NO_H)
    for earlier in (depth - 2, depth - 1):
        if earlier < 0:
            continue
        for rows in checkpoint.parts_for(earlier, part, parts):
            code, table, stored = load_part(table, stored, rows, earlier, part, parts)
            if code != _DONE:
                return code, None
    for parents in checkpoint.files_of(depth - 1):
        code, table, stored = expand_part(heuristic.spec, heuristic.code, heuristic.args, parents, table, stored,
                                          depth, part, parts, bound, kernels.max_branching, counters, goal,
                                          max_nodes, deadline)
        if code != _DONE:
            return code, None
    return _DONE, rows_at(table, depth, int(counters[NEW]))


def _trace_back(problem: Problem, checkpoint: Checkpoint, goal: np.ndarray, depth: int) -> list[int]:
    """The moves from the start to `goal`, found at `depth`: a neighbour in each layer before, back to the start."""
    path = []
    current = goal[0].copy()
    for earlier in range(depth - 1, -1, -1):
        successors = problem.successors(current)
        candidates = np.array([key for _, key in successors])
        for rows in checkpoint.files_of(earlier):
            found = first_held(rows, candidates)
            if found >= 0:
                break
        else:
            raise RuntimeError(f"layer {earlier} of {checkpoint.folder} holds no neighbour of a state of the next")
        parent = successors[found][1]
        path.append(next(m for m, key in problem.successors(parent) if np.array_equal(key, current)))
        current = parent
    return path[::-1]


def _proven(state: dict[str, Any], bound: int) -> int:
    """The fewest moves a solution can have, given the complete layers (none holds a goal) and the bound."""
    layers = state["layers"]
    complete = len(layers) - 1
    least = layers[-1]["min_h"]
    lower = max(complete + 1, complete + least) if least is not None else complete + 1
    if bound >= 0:
        lower = min(lower, bound + 1) if layers[-1]["count"] else bound + 1
    return lower


def _report(state: dict[str, Any], outcome: Outcome, reason: str | None, bound: int, counters: np.ndarray,
            path: list[int] | None = None, expanded: int = 0, generated: int = 0) -> SearchReport:
    """The report of a run: the bound proven (in words for a limit, and in `extra`) and the layers' figures."""
    layers = state["layers"]
    complete = len(layers) - 1
    lower = len(path) if outcome == Outcome.SOLVED and path is not None else _proven(state, bound)  # SOLVED has a path
    words = f"no solution within {lower - 1} moves"
    if outcome == Outcome.LIMIT:
        reason = f"{words} ({reason})" if reason else f"{words}: every state within the bound searched"
    extra = {
        "lower_bound": lower,
        "depth_completed": complete,
        "layer_counts": [layer["count"] for layer in layers],
        "layer_parts": [layer["parts"] for layer in layers],
        "layer_min_h": [layer["min_h"] for layer in layers],
        "total_expanded": state["expanded"],
        "total_generated": state["generated"],
    }
    if state["building"] and outcome != Outcome.SOLVED:
        extra["parts_done"] = len(state["building"]["done"])
        extra["parts_building"] = state["building"]["parts"]
    if bound >= 0:
        extra["upper_bound"] = bound + 1
    return SearchReport(outcome=outcome, path=path or [], expanded=expanded, generated=generated,
                        max_frontier=max((layer["count"] for layer in layers), default=0),
                        stored=sum(layer["count"] for layer in layers), reason=reason, extra=extra)
