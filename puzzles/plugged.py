"""A plugin algorithm's search: its function run over a counting view of the problem, under slidelab's limits.

The plugin sees `SearchProblem`: hashable states (Python ints holding the key
words), their successors, the goal test and the chosen heuristic. The view
counts what the plugin does, states expanded (successor calls) and generated
(children returned), and stops it at the node and time limits, so its figures
are slidelab's own, never the plugin's; one that stops asking for successors
is stopped by an alarm at its time limit all the same (in a process's main
thread, where jobs and `solve` run). What it returns is a list of moves
(the move codes `successors` gives), which the solver replays before it
believes it (`puzzles.replay`); None means it gave up.
"""

import contextlib
import io
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from puzzles.errors import PuzzleError
from puzzles.problem import Heuristic, Problem
from puzzles.result import Limits, Outcome, SearchReport

if TYPE_CHECKING:
    from puzzles.registry import HeuristicEntry

State = int  # a state as plugins see it: its key words as one number


def _limit_reason(stop: str, limits: Limits) -> str:
    """The reason a limit stopped a search, in the compiled searches' words (`puzzles.stops`, loaded only now: the
    API module plugins import stays free of numba)."""
    from puzzles import stops

    return stops.outcome_of(getattr(stops, stop), limits)[1] or stop


class _Stopped(BaseException):
    """Raised through a plugin's code when a limit is reached: slidelab stops it, whatever it catches below."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SearchProblem:
    """The problem a plugin algorithm searches: its states, their successors, the goal test and the heuristic.

    Every call of `successors` counts one state expanded and its children
    generated; past the node or time limit it raises an exception the plugin
    must not catch (it derives from BaseException, as KeyboardInterrupt).
    """

    def __init__(self, problem: Problem, limits: Limits, estimate: Callable[[np.ndarray], int] | None) -> None:
        self._problem = problem
        self._words = problem.kernels.key_words
        self._key = np.zeros(self._words, dtype=np.uint64)
        self._estimate = estimate
        self._max_nodes = limits.max_nodes
        self._deadline = time.monotonic() + limits.time_limit if limits.time_limit is not None else None
        self._limits = limits
        self.expanded = 0
        self.generated = 0
        self.domain: str = problem.domain
        self.start: State = self.state_of(problem.start_key())
        self._warm_up()

    def _warm_up(self) -> None:
        """Call what the plugin will call once, uncounted: compiling or loading it is no part of the search's time."""
        start = self.key(self.start)
        self._problem.successors(start)
        self._problem.is_goal(start)
        if self._estimate is not None:
            self._estimate(start)

    def successors(self, state: State) -> list[tuple[int, State]]:
        """The (move, state) pairs one move from `state`; counted, and where a limit stops the search."""
        if self._max_nodes is not None and self.expanded >= self._max_nodes:
            raise _Stopped(_limit_reason("NODE_LIMIT", self._limits))
        if self._deadline is not None and time.monotonic() > self._deadline:
            raise _Stopped(_limit_reason("TIME_LIMIT", self._limits))
        children = [(int(move), self.state_of(key)) for move, key in self._problem.successors(self.key(state))]
        self.expanded += 1
        self.generated += len(children)
        return children

    def is_goal(self, state: State) -> bool:
        """True if `state` is a goal."""
        return bool(self._problem.is_goal(self.key(state)))

    def h(self, state: State) -> int:
        """The chosen heuristic's estimate of `state` (`--heuristic`); PuzzleError if the algorithm takes none."""
        if self._estimate is None:
            raise PuzzleError("this algorithm was declared without heuristic=True: it has no heuristic to call")
        return int(self._estimate(self.key(state)))

    def move_text(self, move: int) -> str:
        """A move in the domain's notation (Rush Hour `C+2`, the N-puzzle's `U`)."""
        return self._problem.format_move(move)

    def key(self, state: State) -> np.ndarray:
        """The state's key words (a fresh array), as the domain's compiled functions read them."""
        key = np.empty(self._words, dtype=np.uint64)
        key.view(np.uint8)[:] = np.frombuffer(state.to_bytes(8 * self._words, "little"), dtype=np.uint8)
        return key

    def state_of(self, key: np.ndarray) -> State:
        """The state of a key."""
        return int.from_bytes(np.ascontiguousarray(key, dtype=np.uint64).tobytes(), "little")


def search(function: Callable[..., Any], problem: Problem, limits: Limits, *, heuristic: Any = None,
           **params: Any) -> SearchReport:
    """Run a plugin algorithm's `function` on `problem` under `limits`; what it returns becomes the report's path.

    With no node to expand (the warm-up job a pool runs first, to compile and
    load what the search needs), the plugin itself is not run: the view has
    called everything it will call once already.
    """
    view = SearchProblem(problem, limits, estimator(problem, heuristic))
    if limits.max_nodes == 0:
        return _report(view, Outcome.LIMIT, [], _limit_reason("NODE_LIMIT", limits))
    written = io.StringIO()
    try:
        with contextlib.redirect_stdout(written), _alarm(limits.time_limit):
            found = function(view, **params)
    except _Stopped as stopped:
        return _report(view, Outcome.LIMIT, [], stopped.reason)
    finally:
        if written.getvalue():
            raise PuzzleError(f"{_named(function)} printed to stdout while it searched"
                              f" ({written.getvalue().strip()[:60]!r}): a plugin must not print (log instead)")
    if found is None:
        return _report(view, Outcome.FAILED, [], "the algorithm found no solution")
    return _report(view, Outcome.SOLVED, _moves(found, function), None)


@contextlib.contextmanager
def _alarm(time_limit: float | None) -> Iterator[None]:
    """Stop a plugin at its time limit even if it never asks for successors again: SIGALRM raises `_Stopped` in it.

    Only in the main thread, which alone receives signals; elsewhere the view's
    own checks stop it, and the pool kills a job past its hard deadline.
    """
    if time_limit is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise _Stopped(_limit_reason("TIME_LIMIT", Limits(time_limit=time_limit)))

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, max(time_limit, 1e-3))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _moves(found: Any, function: Callable[..., Any]) -> list[int]:
    """A plugin's solution as move codes; PuzzleError if it is not a sequence of whole numbers."""
    if not isinstance(found, Sequence) or isinstance(found, (str, bytes)) or not all(
            isinstance(move, (int, np.integer)) and not isinstance(move, bool) for move in found):
        raise PuzzleError(f"{_named(function)} returned {type(found).__name__}: a plugin algorithm returns a list of"
                          " moves (the codes successors gives) or None")
    return [int(move) for move in found]


def _named(function: Callable[..., Any]) -> str:
    """`plugin greedy-search 0.2.0`: the package (or file) the algorithm `function` comes from, as messages name it."""
    from puzzles.registry import ALGORITHMS

    origins = [entry.origin for entry in ALGORITHMS.values() if entry.function is function and entry.origin is not None]
    return f"plugin {origins[0].label}" if origins else "the plugin"


def _report(view: SearchProblem, outcome: Outcome, path: list[int], reason: str | None) -> SearchReport:
    return SearchReport(outcome=outcome, path=path, expanded=view.expanded, generated=view.generated, reason=reason)


def estimator(problem: Problem, heuristic: Any) -> Callable[[np.ndarray], int] | None:
    """A Python function of a key giving `heuristic`'s estimate: a built heuristic, a plugin's, or None.

    A plugin's reads a copy of the problem's spec (what it writes there is
    lost with the search); a numba one is called through its compiled entry
    point (`puzzles.plugin_kernels.python_callable`).
    """
    from puzzles.kernels import heuristic as compiled_heuristic
    from puzzles.kernels import workspace

    if heuristic is None:
        return None
    if isinstance(heuristic, PythonHeuristic):
        spec = copied_spec(problem.kernels.spec)
        work = workspace(spec)
        function = heuristic.entry.function
        if hasattr(function, "py_func"):
            from puzzles.plugin_kernels import python_callable

            function = python_callable(heuristic.entry, spec)
        return lambda key: function(spec, work, key)
    built: Heuristic = heuristic
    work = workspace(built.spec)
    return lambda key: compiled_heuristic(built.spec, work, built.code, built.args, key, 0)


def copied_spec(spec: Any) -> Any:
    """A spec with its writable arrays copied, in nested tuples too (read-only ones keep their type)."""
    if isinstance(spec, np.ndarray):
        return spec.copy() if spec.flags.writeable else spec
    if isinstance(spec, tuple):
        items = [copied_spec(item) for item in spec]
        return type(spec)(*items) if hasattr(spec, "_fields") else tuple(items)
    return spec


def heuristic_for(problem: Problem, algorithm: str, name: str, options: dict[str, Any]) -> "Heuristic | PythonHeuristic":
    """The heuristic `name` built for `algorithm` on `problem`: the domain's own, or a plugin's.

    A plugin algorithm calls a plugin heuristic from Python, numba's or not; a
    numba one also runs inside the compiled searches (`puzzles.plugin_kernels`),
    a plain-Python one there is a PuzzleError.
    """
    from puzzles.algorithms import find_algorithm
    from puzzles.registry import heuristic_entry

    entry = heuristic_entry(problem.domain, name)
    if entry.function is None or entry.origin is None:
        return problem.heuristic(name, **options)
    if find_algorithm(algorithm).function is not None:
        return PythonHeuristic(entry)
    if hasattr(entry.function, "py_func"):
        return problem.heuristic(name, **options)
    raise PuzzleError(f"heuristic {name} ({entry.origin.label}) is plain Python, and {algorithm} is compiled: decorate"
                      " the heuristic with @numba.njit to run it there, or use it with a plugin algorithm")


def compiled_plugin_heuristic(problem: Problem, entry: "HeuristicEntry") -> Heuristic:
    """A plugin heuristic built for slidelab's compiled searches (`Problem.heuristic` of a plugin's name); PuzzleError
    for a plain-Python one, which only plugin algorithms run."""
    if entry.origin is None or not hasattr(entry.function, "py_func"):
        label = entry.origin.label if entry.origin is not None else "slidelab"
        raise PuzzleError(f"heuristic {entry.name} ({label}) is plain Python: slidelab's compiled searches run numba"
                          " heuristics only (decorate it with @numba.njit); plugin algorithms run it as it is")
    from puzzles.plugin_kernels import plugged_heuristic

    return plugged_heuristic(problem, entry)


class PythonHeuristic:
    """A plugin heuristic run from Python by a plugin algorithm (`entry`: its `HeuristicEntry`)."""

    def __init__(self, entry: Any) -> None:
        self.entry = entry
        self.name: str = entry.name
        self.admissible: bool = entry.admissible
