"""Plugins: the researcher's own algorithms and heuristics, declared, found, checked and registered by name.

A plugin is a function declared with `algorithm` or `heuristic` (re-exported,
with what plugins need, by `slidelab.plugin`). A package makes its plugins
known through entry points in the groups `slidelab.algorithms` and
`slidelab.heuristics`, the entry point's name being the plugin's name; a
single file is named on the command line as `path/to/file.py:name`. Both are
registered in `puzzles.registry` like slidelab's own, with their `Origin`:
the distribution, its version and a hash of the plugin's source, which every
result records. A broken plugin is a `PuzzleError` in one line naming its
package and the problem, never a traceback.
"""

import contextlib
import hashlib
import importlib.util
import io
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from puzzles.errors import PuzzleError
from puzzles.registry import ALGORITHMS, HEURISTICS, Algorithm, Param, register_algorithm, register_heuristic

API_VERSION = "1.0"  # of `slidelab.plugin`: what plugins import (docs/plugins.md)
ALGORITHM_GROUP = "slidelab.algorithms"
HEURISTIC_GROUP = "slidelab.heuristics"
DEFAULT_HEURISTIC = "blockers-lb"  # of a plugin algorithm that takes a heuristic, as of slidelab's own
AUTOLOAD_OFF = "SLIDELAB_DISABLE_PLUGIN_AUTOLOAD"  # as pytest's PYTEST_DISABLE_PLUGIN_AUTOLOAD
PARAM_KINDS = (int, float, str, bool)
# The options of solve, sweep and tune that are not algorithm parameters: a plugin's parameter may not take one of
# these names, nor a name slidelab's own algorithms and heuristics use (tests/puzzles/test_plugins.py keeps it whole).
COMMAND_OPTIONS = frozenset({
    "algo", "boards", "more_boards", "name", "seed", "seeds", "heuristic", "time_limit", "node_limit", "max_nodes",
    "memory_limit", "db", "broker", "json", "as_json", "workers", "wait", "chunk", "out", "format", "domain", "size",
    "goal", "move_model", "trials", "metric", "objective", "aggregate", "unsolved", "parallel", "sampler", "pruner",
    "study", "spec", "from_spec", "board", "show", "show_frames", "animate", "picture", "dry_run", "force", "extend",
    "repeat", "rerun", "plugin_changed", "help",
})


@dataclass(frozen=True)
class Origin:
    """Where a plugin comes from: its distribution (or file), version and a sha256 of its source."""

    distribution: str
    version: str
    source_hash: str
    local: bool = False  # a file named on the command line, not an installed package

    @property
    def label(self) -> str:
        """`greedy-search 0.2.0`, as messages name it; a plugin file's path."""
        return self.distribution if self.local else f"{self.distribution} {self.version}"

    @property
    def key(self) -> str:
        """`greedy-search==0.2.0#3f2a9c1b07de`: what two results' plugins are compared by."""
        return f"{self.distribution}=={self.version}#{self.source_hash[:12]}"

    def as_dict(self) -> dict[str, Any]:
        """The origin as a result's provenance records it."""
        return {"distribution": self.distribution, "version": self.version, "source": self.source_hash,
                "local": self.local}


@dataclass(frozen=True)
class AlgorithmPlugin:
    """A plugin algorithm's declaration: `function(problem, **params)` returns the moves of a solution, or None."""

    function: Callable[..., Any]
    summary: str
    params: dict[str, Param] = field(default_factory=dict)
    randomized: bool = False  # takes `seed`, which slidelab draws and records as for its own
    optimal: bool = False  # claims shortest solutions: checked against known optima in the reports
    takes_heuristic: bool = False  # uses `problem.h`, the heuristic chosen with --heuristic


@dataclass(frozen=True)
class HeuristicPlugin:
    """A plugin heuristic's declaration: `function(spec, work, key)` is its estimate of the state `key`."""

    function: Callable[..., Any]
    domain: str
    summary: str
    admissible: bool

    @property
    def compiled(self) -> bool:
        """True if it is a numba function, which slidelab's compiled searches can call."""
        return hasattr(self.function, "py_func")


def algorithm(*, summary: str | None = None, params: dict[str, Param] | None = None, randomized: bool = False,
              optimal: bool = False, heuristic: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare a function a plugin algorithm (see `AlgorithmPlugin`); the function itself is returned unchanged."""

    def declare(function: Callable[..., Any]) -> Callable[..., Any]:
        function.__slidelab__ = AlgorithmPlugin(  # type: ignore[attr-defined]
            function, summary or _first_line(function), dict(params or {}), randomized, optimal, heuristic)
        return function

    return declare


def heuristic(*, domain: str, admissible: bool, summary: str | None = None) -> Callable[[Any], Any]:
    """Declare a function of (spec, work, key) a plugin heuristic of `domain`; the function is returned unchanged."""

    def declare(function: Any) -> Any:
        function.__slidelab__ = HeuristicPlugin(function, domain, summary or _first_line(function), admissible)
        return function

    return declare


def _first_line(function: Callable[..., Any]) -> str:
    doc = (getattr(function, "__doc__", None) or "").strip()
    return doc.splitlines()[0] if doc else getattr(function, "__name__", "a plugin")


_LOADED: list[bool] = []


def load_installed() -> None:
    """Register every installed plugin (the entry points of both groups), once per process.

    With SLIDELAB_DISABLE_PLUGIN_AUTOLOAD set (to anything but 0 or empty), none
    is: slidelab's own alone, as a baseline or a worker that must not run them.
    """
    if _LOADED:
        return
    _LOADED.append(True)
    if os.environ.get(AUTOLOAD_OFF, "0") not in ("", "0"):
        return
    groups = ((HEURISTIC_GROUP, HeuristicPlugin), (ALGORITHM_GROUP, AlgorithmPlugin))  # an algorithm's heuristic may be one
    for group, kind in groups:
        for entry in sorted(metadata.entry_points(group=group), key=lambda entry: entry.name):
            _register(entry.name, _load_entry(entry), _entry_origin(entry), kind)


def load_file(name: str) -> str:
    """Register the algorithm `path/to/file.py:function` names (once), and return its registered name.

    The name is registered with the file's absolute path, so job processes in
    another folder find it; PuzzleError for a missing file or function.
    """
    path_text, _, function_name = name.rpartition(":")
    path = Path(path_text).expanduser().resolve()
    registered = f"{path}:{function_name}"
    if registered in ALGORITHMS:
        return registered
    if not path.is_file():
        raise PuzzleError(f"{path_text}: no such file (--algo FILE.py:FUNCTION names a plugin in a file)")
    origin = Origin(str(path), "local", hashlib.sha256(path.read_bytes()).hexdigest(), local=True)
    module_name = f"slidelab_local_{hashlib.sha256(str(path).encode()).hexdigest()[:12]}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise PuzzleError(f"{path_text}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    with _quiet(origin), _loading(f"plugin {path_text}: the file does not load"):
        spec.loader.exec_module(module)
    if not hasattr(module, function_name):
        raise PuzzleError(f"{path_text}: no function named {function_name!r}")
    _register(registered, getattr(module, function_name), origin, kind=AlgorithmPlugin)
    return registered


def is_file_name(name: str) -> bool:
    """True if an algorithm's name names a plugin in a file (`path/to/file.py:function`)."""
    return ".py:" in name


def loaded_file_names(argv: list[str]) -> None:
    """Register the file plugins `--algo` names among command-line arguments, so their parameters become options."""
    for index, argument in enumerate(argv):
        value = argv[index + 1] if argument == "--algo" and index + 1 < len(argv) else (
            argument.removeprefix("--algo=") if argument.startswith("--algo=") else "")
        for name in value.split(","):
            if is_file_name(name):
                load_file(name)


def _load_entry(entry: metadata.EntryPoint) -> Any:
    """The object an entry point names, imported; PuzzleError naming the package if that fails or prints."""
    origin = _entry_origin(entry, hashed=False)
    with _quiet(origin), _loading(f"plugin {origin.label}: entry point {entry.name} = {entry.value} does not load"):
        return entry.load()


@contextlib.contextmanager
def _loading(problem: str) -> Iterator[None]:
    """Import a plugin's code; any error it raises (a syntax error, an import error, a missing name) is one line."""
    try:
        yield
    except Exception as err:  # noqa: BLE001 - a plugin's import error is reported as one line
        raise PuzzleError(f"{problem} ({type(err).__name__}: {_one_line(err)})") from None


@contextlib.contextmanager
def _quiet(origin: Origin) -> Iterator[None]:
    """Run a plugin's import; PuzzleError if it writes to stdout, which a command's --json output must keep clean."""
    written = io.StringIO()
    with contextlib.redirect_stdout(written):
        yield
    if written.getvalue():
        raise PuzzleError(f"plugin {origin.label} printed to stdout when imported ({written.getvalue().strip()[:60]!r}):"
                          " a plugin must not print (log instead)")


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())[:200]


def _entry_origin(entry: metadata.EntryPoint, hashed: bool = True) -> Origin:
    """The distribution an entry point comes from, its version, and the hash of the plugin's package sources."""
    dist = entry.dist
    name, version = (dist.name, dist.version) if dist is not None else (entry.value.split(":")[0], "unknown")
    return Origin(name, version, _package_hash(entry.value.split(":")[0]) if hashed else "")


def _package_hash(module_name: str) -> str:
    """The sha256 of the Python sources of the top-level package a module belongs to, by path and content."""
    top = sys.modules.get(module_name.split(".")[0])
    digest = hashlib.sha256()
    location = getattr(top, "__file__", None)
    if location is None:
        return digest.hexdigest()
    root = Path(location).parent if Path(location).name == "__init__.py" else Path(location)
    files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
    for path in files:
        digest.update(str(path.relative_to(root.parent)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _register(name: str, declared: Any, origin: Origin, kind: type | None = None) -> None:
    """Register one plugin object under `name`; PuzzleError naming its package unless it is declared as a `kind`
    (AlgorithmPlugin or HeuristicPlugin: what its entry point's group or `--algo` expects; None: either)."""
    plugin = getattr(declared, "__slidelab__", None)
    kind = kind or type(plugin)
    if kind is AlgorithmPlugin and isinstance(plugin, AlgorithmPlugin):
        _register_algorithm(name, plugin, origin)
    elif kind is HeuristicPlugin and isinstance(plugin, HeuristicPlugin):
        _register_heuristic(name, plugin, origin)
    else:
        decorator = "algorithm" if kind is AlgorithmPlugin else "heuristic"
        raise PuzzleError(f"plugin {origin.label}: {name} is not declared with slidelab.plugin.{decorator}")


def _register_algorithm(name: str, plugin: AlgorithmPlugin, origin: Origin) -> None:
    if name in ALGORITHMS:
        raise PuzzleError(f"plugin {origin.label}: an algorithm named {name!r} is registered already"
                          f"{_by(ALGORITHMS[name].origin)}")
    shown = name.rpartition(":")[2] if origin.local else name  # a file's function: the file is the origin's label
    for param_name, param in plugin.params.items():
        _check_param(shown, param_name, param, origin)
    register_algorithm(name, Algorithm(
        "puzzles.plugged", plugin.summary, dict(plugin.params), plugin.randomized, plugin.optimal,
        heuristic=DEFAULT_HEURISTIC if plugin.takes_heuristic else None, origin=origin, function=plugin.function,
        compile_s=0,
    ))


def _register_heuristic(name: str, plugin: HeuristicPlugin, origin: Origin) -> None:
    from puzzles.domains import DOMAINS

    if plugin.domain not in DOMAINS:
        raise PuzzleError(f"plugin {origin.label}: heuristic {name} is for {plugin.domain!r}, which is no domain"
                          f" (choose from {', '.join(DOMAINS)})")
    if (plugin.domain, name) in HEURISTICS:
        raise PuzzleError(f"plugin {origin.label}: a heuristic named {name!r} is registered already for"
                          f" {plugin.domain}{_by(HEURISTICS[plugin.domain, name].origin)}")
    register_heuristic(plugin.domain, name, plugin.summary, admissible=plugin.admissible, origin=origin,
                       function=plugin.function)


def _by(origin: Origin | None) -> str:
    return f" by {origin.label}" if origin is not None else " by slidelab"


def _check_param(algorithm_name: str, name: str, param: Any, origin: Origin) -> None:
    """PuzzleError unless `param` is a `Param` of a known type whose name no command option nor built-in uses."""
    where = f"plugin {origin.label}: {algorithm_name}'s parameter {name!r}"
    if not isinstance(param, Param) or param.kind not in PARAM_KINDS:
        raise PuzzleError(f"{where} has no type: declare it as Param(default, int|float|str|bool, help)")
    if not name.isidentifier():
        raise PuzzleError(f"{where} is no Python name")
    if name in COMMAND_OPTIONS or name in _built_in_names():
        raise PuzzleError(f"{where} is named like one of slidelab's own options (--{name.replace('_', '-')}):"
                          " choose another name")
    for other, entry in ALGORITHMS.items():
        if name in entry.own_params and entry.own_params[name].kind is not param.kind:
            raise PuzzleError(f"{where} is a {param.kind.__name__}, but {other} takes {name} as a"
                              f" {entry.own_params[name].kind.__name__}: choose another name")


def _built_in_names() -> set[str]:
    """The parameters and options of slidelab's own algorithms and heuristics (the problem's are command options)."""
    names: set[str] = set()
    for entry in ALGORITHMS.values():
        if entry.origin is None:
            names.update(entry.own_params)
    for heuristic_entry in HEURISTICS.values():
        if heuristic_entry.origin is None:
            names.update(heuristic_entry.options)
    return names


def origins(domain: str, algorithm: str, params: dict[str, Any]) -> tuple[Origin, ...]:
    """The plugins a job runs: its algorithm's and its heuristic's, where they are plugins (none for slidelab's own)."""
    from puzzles.algorithms import find_algorithm
    from puzzles.registry import heuristic_names

    entry = find_algorithm(algorithm)
    found = [entry.origin] if entry.origin is not None else []
    heuristic_name = params.get("heuristic") or entry.heuristic
    if heuristic_name is not None and heuristic_name in heuristic_names(domain):
        heuristic_origin = HEURISTICS[domain, heuristic_name].origin
        if heuristic_origin is not None and heuristic_origin not in found:
            found.append(heuristic_origin)
    return tuple(found)


def plugins_key(found: tuple[Origin, ...]) -> str | None:
    """The plugins of a job as one text, `a==0.1#hash b==1.0#hash`, as `jobs.plugins` stores it; None for none."""
    return " ".join(sorted(origin.key for origin in found)) or None


def installed_keys() -> tuple[str, ...]:
    """The keys of every plugin this process has registered: what a worker can run, and advertises."""
    from puzzles.registry import loaded

    loaded()
    keys = {entry.origin.key for entry in ALGORITHMS.values() if entry.origin is not None and not entry.origin.local}
    keys |= {entry.origin.key for entry in HEURISTICS.values() if entry.origin is not None}
    return tuple(sorted(keys))
