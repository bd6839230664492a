"""Planning a sweep: the grid checked against its boards, and the jobs it makes.

Everything is validated before anything is written: one bad board, unknown
algorithm or parameter, or empty range aborts the sweep with a `PuzzleError`.
Each job has a deterministic key, so planning the same sweep again adds only the
jobs it lacks. A name names one grid: a plan with another grid than a stored
sweep's is refused, saying what differs, unless it is meant to extend it.

A job of plugins records their keys (`jobs.plugins`: distribution, version,
source hash), which its key leaves out. A sweep planned again, or resumed,
after a plugin changed gives its waiting jobs the plugins installed now; its
done jobs that other versions made are never taken as done silently: the
sweep stops, naming them, unless told to run them again or keep them
(`--plugin-changed rerun|keep`).
"""

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

from orchestrator.boards import catalogue
from orchestrator.sweeps.definitions import Definition, GridDefinition
from orchestrator.sweeps.grid import SweepGrid, combinations, flag_name, grid_size, stored_grid, values_text
from orchestrator.sweeps.job_limits import checked_limits, limits_text
from orchestrator.sweeps.sources import load_boards
from puzzles.algorithms import PROBLEM_OPTIONS, SEEDS, find_algorithm, heuristic_options, with_domain_defaults
from puzzles.domains import Instance, problem_for
from puzzles.errors import PuzzleError
from puzzles.plugins import is_file_name, origins, plugins_key
from puzzles.textio import plural, quote
from workers.provenance import PluginKey, plugin_keys
from workers.store import Database
from workers.store import sweeps as sweep_store
from workers.store.records import PlannedJob
from workers.store.schema import canonical_params
from workers.store.sweeps import PluginJobs, SweepRow

DEFAULT = "(its default)"  # how a grid that leaves a parameter to its default reads beside one that gives it
PLUGIN_CHANGES = ("rerun", "keep")  # what to do with done jobs that another version of their plugins made
_SWEEP_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,199}")


@dataclass
class SweepPlan:
    """A sweep's name, the grids it was planned from, its limits, its boards and its jobs.

    A sweep has one grid, its boards' names and seed namespace filled in; an
    optimum proof has several, one per optimal search on its own boards. The
    experiment's `definition` is its grid's unless given (an optimum proof's,
    a split search's).
    """

    name: str
    grids: list[SweepGrid]
    limits: dict[str, Any]
    boards: list[Instance]
    jobs: list[PlannedJob] = field(default_factory=list)
    definition: Definition | None = None

    @property
    def seed_namespace(self) -> str:
        """The name the plan's derived seeds come from (every grid of a plan has the same)."""
        return self.grids[0].seed_namespace or self.name


def grid_plan(
    grid: SweepGrid, sources: list[str], name: str | None, limits: dict[str, Any], db: Database | None, *,
    goal: str | None = None, write: bool = True,
) -> SweepPlan:
    """The plan of a sweep given on the command line: the grid on the boards of `sources`; PuzzleError on bad input.

    `db` is read for board sets only (a shipped one it lacks is imported there if `write`).
    """
    instances = load_boards(sources, goal=goal, db=db, write=write)
    return plan_sweep(name or default_name(grid), instances, grid, limits)


def check_sweep_name(name: str) -> str:
    """`name` if it can name a sweep, and so a file: letters, digits, `.`, `_`, `+`, `-`; PuzzleError otherwise."""
    if not _SWEEP_NAME.fullmatch(name):
        raise PuzzleError(f"sweep name {quote(name)}: use up to 200 letters, digits, '.', '_', '+' and '-',"
                          " starting with a letter or digit")
    return name


def default_name(grid: SweepGrid) -> str:
    """`beam+astar-1a2b3c4d`: the algorithms (a plugin file's by its function) and a digest of the grid, the same for
    the same grid."""
    digested = json.dumps([grid.algorithms, grid.params, grid.seeds, grid.repeat], sort_keys=True)
    names = [algorithm.rpartition(":")[2] if is_file_name(algorithm) else algorithm for algorithm in grid.algorithms]
    return f"{'+'.join(names)}-{hashlib.sha256(digested.encode()).hexdigest()[:8]}"


def plan_sweep(name: str, boards: list[Instance], grid: SweepGrid, limits: dict[str, Any] | None = None) -> SweepPlan:
    """Every job of the grid on every board; PuzzleError for anything the solver would refuse.

    A randomized algorithm runs once per seed of the grid's seeds, or `repeat`
    times with seeds derived from the job and the grid's seed namespace (by
    default the sweep's name; a replay under another name keeps the
    original's); a deterministic one runs once per seed or repeat, without a seed.
    """
    check_sweep_name(name)
    seeds, repeat = grid.seeds, grid.repeat
    if seeds is not None and repeat != 1:
        raise PuzzleError("give --seeds or --repeat, not both")
    if repeat < 1:
        raise PuzzleError(f"--repeat must be at least 1, not {repeat}")
    for given in seeds or []:
        if not 0 <= given < SEEDS:
            raise PuzzleError(f"--seeds: a seed must be between 0 and {SEEDS - 1}, not {given}")
    _check_job_count(grid_size(grid.algorithms, grid.params) * len(boards) * (len(seeds) if seeds else repeat))
    points = combinations(grid.algorithms, grid.params)
    problems = {board.id: problem_for(board.domain, board.text) for board in boards}
    namespace = grid.seed_namespace or name
    planned = replace(grid, boards=[board.name for board in boards], seed_namespace=namespace)
    plan = SweepPlan(name, [planned], checked_limits(limits or {}), boards)
    checked: set[tuple] = set()
    plugins = PluginKeys()
    for board in boards:
        for algorithm, bound in points:
            randomized = find_algorithm(algorithm).randomized
            values = with_domain_defaults(problems[board.id], algorithm, bound, given=grid.params)
            _check_heuristic(board, problems[board.id], values, checked)
            _check_move_model(board, values, checked)
            key_text, runs = canonical_params(values), plugins(board.domain, algorithm, values)
            for seed, index in _runs(randomized, seeds, repeat):
                plan.jobs.append(_job(name, namespace, board.id, algorithm, values, key_text, seed, index, randomized,
                                      runs))
    return plan


class PluginKeys:
    """The plugins key (`puzzles.plugins.plugins_key`) of each kind of job as this process has its plugins: None for
    slidelab's own. Found once per domain, algorithm and heuristic, however many jobs of the kind a plan makes."""

    def __init__(self) -> None:
        self._found: dict[tuple[str, str, Any], str | None] = {}

    def __call__(self, domain: str, algorithm: str, params: dict[str, Any]) -> str | None:
        """The key of the plugins a job of `algorithm` with `params` on a board of `domain` runs; PuzzleError if the
        algorithm or its heuristic is unknown here."""
        kind = (domain, algorithm, params.get("heuristic"))
        if kind not in self._found:
            self._found[kind] = plugins_key(origins(domain, algorithm, params))
        return self._found[kind]


def _check_job_count(count: int) -> None:
    from workers.settings import settings

    cap = settings().max_jobs
    if count > cap:
        raise PuzzleError(f"the sweep would plan up to {count:,} jobs, more than the cap of {cap:,}"
                          " (narrow the grid, or raise the cap with SLIDELAB_MAX_JOBS)")


def store_plan(db: Database, plan: SweepPlan, *, rerun: bool = False, extend: bool = False,
               plugin_changed: str | None = None) -> tuple[int, int]:
    """Write the sweep, its boards and the jobs it lacks: (sweep id, jobs added).

    A sweep stored before keeps its seed namespace and its limits (other
    limits need `rerun`, which deletes the results of the plan's jobs so they
    run again), and its grid: a plan whose grid has values it lacks needs
    `extend`, and the stored grid becomes the union of both. Its jobs take the
    plugins installed now (see `plugin_changes`; `rerun` runs again those
    another version made unless `plugin_changed` says otherwise).
    """
    _check_plugin_changed(plugin_changed)
    existing = sweep_store.find(db, plan.name)
    kind = plan.definition.kind if plan.definition is not None else GridDefinition.kind
    if existing is not None and existing.kind != kind:
        raise PuzzleError(f"{plan.name!r} names {existing.kind.noun}, not {kind.noun}: give another --name")
    changes: list[tuple[PluginJobs, str | None]] = []
    choice = plugin_changed or ("rerun" if rerun else None)
    if existing is not None:
        stored = stored_grid(existing)
        _check_compatible(existing, stored, plan, rerun)
        if not extend:
            _check_same_grid(stored, plan)
        changes = plugin_changes(db, existing, choice)
        if stored is not None and len(plan.grids) == 1:  # a grid stored before becomes the union of both
            plan.grids = [stored.union(plan.grids[0], plan.name)]
    definition = plan.definition or GridDefinition(plan.grids[0])
    saved = sweep_store.save(db, plan.name, definition.kind, definition.to_json(), plan.limits, plan.boards, plan.jobs,
                             rerun=rerun)
    if changes:
        sweep_store.replug(db, saved[0], changes, rerun=choice == "rerun")
    catalogue.remember_optima(db, plan.boards)
    return saved


def settle_plugins(db: Database, sweep: SweepRow, plugin_changed: str | None = None) -> int:
    """Give the stored sweep's jobs the plugins installed now (see `plugin_changes`), before it is resumed; how many
    done jobs were made to run again."""
    changes = plugin_changes(db, sweep, plugin_changed)
    return sweep_store.replug(db, sweep.id, changes, rerun=plugin_changed == "rerun") if changes else 0


def plugin_changes(db: Database, sweep: SweepRow, plugin_changed: str | None) -> list[tuple[PluginJobs, str | None]]:
    """The sweep's jobs planned with other plugins than those installed now, by kind, each with the installed ones'
    key. Their waiting jobs simply take the installed ones; done ones that another version made need
    `plugin_changed`: `rerun` (run them again) or `keep` (keep their results). Without it, a PuzzleError names them,
    and nothing is changed.

    A kind whose plugin is not installed here is left to the workers that run it (they check their own).
    """
    _check_plugin_changed(plugin_changed)
    installed = PluginKeys()
    changes: list[tuple[PluginJobs, str | None]] = []
    for group in sweep_store.plugin_jobs(db, sweep.id):
        try:
            now = installed(group.domain, group.algorithm, group.params)
        except PuzzleError:
            continue
        if now != group.plugins:
            changes.append((group, now))
    made = [(group, now) for group, now in changes if group.done]
    if made and plugin_changed is None:
        raise PuzzleError(_plugin_change_text(made))
    return changes


def _check_plugin_changed(plugin_changed: str | None) -> None:
    if plugin_changed not in (None, *PLUGIN_CHANGES):
        raise PuzzleError(f"--plugin-changed: {plugin_changed!r} is neither rerun nor keep")


def _plugin_change_text(made: list[tuple[PluginJobs, str | None]]) -> str:
    """`12 done jobs of greedy came from greedy-search 0.1.0 (source 3f2a9c1b07de), installed is 0.2.0 (source
    9a8b7c6d5e4f): rerun them with --plugin-changed rerun, keep them with --plugin-changed keep`."""
    done: dict[tuple[str, str, str | None], int] = {}
    for group, now in made:
        done[group.algorithm, group.plugins, now] = done.get((group.algorithm, group.plugins, now), 0) + group.done
    found = [f"{plural(count, 'done job')} of {algorithm} came from {_versions_text(plugin_keys(old), algorithm)},"
             f" installed is {_versions_text(plugin_keys(now), algorithm, plugin_keys(old))}"
             for (algorithm, old, now), count in done.items()]
    return "; ".join(found) + ": rerun them with --plugin-changed rerun, keep them with --plugin-changed keep"


def _versions_text(keys: list[PluginKey], algorithm: str, before: list[PluginKey] | None = None) -> str:
    """Plugins as a change names them, short: a file the algorithm's name holds by its source alone (`source
    9a8b7c6d5e4f`), one of the distributions of `before` by its version and source (`0.2.0 (source 9a8b7c6d5e4f)`);
    `none` for no plugin."""
    named = {key.distribution for key in before or []} | {algorithm.rpartition(":")[0]}
    return " and ".join(key.text if key.distribution not in named else f"source {key.source}" if key.version == "local"
                        else f"{key.version} (source {key.source})" for key in keys) or "none"


def _check_compatible(sweep: SweepRow, stored: SweepGrid | None, plan: SweepPlan, rerun: bool) -> None:
    """PuzzleError if the plan would change a stored sweep's seeds, or its limits without `rerun`."""
    namespace = stored.seed_namespace if stored is not None else sweep.name
    if namespace != plan.seed_namespace:
        raise PuzzleError(
            f"sweep {plan.name!r} derives its seeds from {namespace!r} (it was replayed from a spec file):"
            " extend it with orchestrate sweep --from-spec FILE, or give another --name"
        )
    if sweep.limits != plan.limits and not rerun:
        raise PuzzleError(
            f"sweep {plan.name!r} was planned with limits {limits_text(sweep.limits)}, not {limits_text(plan.limits)}:"
            " give the same limits, another --name, or --rerun to run it again under the new ones"
        )


def _check_same_grid(stored: SweepGrid | None, plan: SweepPlan) -> None:
    """PuzzleError, saying what differs, if the plan's grid has values the stored sweep's grid lacks.

    The same grid, or a part of it, is no change: it fills the gaps of the sweep (jobs lost, a spec replayed).
    """
    changes = grid_changes(stored, plan.grids[0]) if stored is not None and len(plan.grids) == 1 else []
    if changes:
        raise PuzzleError(f"sweep {plan.name!r} has another grid: {'; '.join(changes)}; give --extend to add these"
                          " jobs to it, or another --name")


def grid_changes(stored: SweepGrid, new: SweepGrid) -> list[str]:
    """What `new` has that the `stored` grid lacks, as options: `--algo astar where it has beam`.

    A parameter the stored grid gives and `new` leaves to its default, for an algorithm that takes it, differs too.
    """
    had: dict[str, list[Any]] = {"--algo": stored.algorithms, "--seeds": stored.seeds or [], "boards": stored.boards}
    given: dict[str, list[Any]] = {"--algo": new.algorithms, "--seeds": new.seeds or [], "boards": new.boards}
    for name in {**stored.params, **new.params}:
        if name in new.params or _takes(new.algorithms, name):
            had[flag_name(name)] = stored.params.get(name, [])
            given[flag_name(name)] = new.params.get(name, [DEFAULT])
    changes = []
    for option, values in given.items():
        extra = [value for value in values if value not in had[option]]
        where = values_text(had[option]) or DEFAULT
        if option == "boards" and len(had[option]) > 3:
            where = f"{len(had[option])} others"
        if extra:
            changes.append(f"{option} {values_text(extra)} where it has {where}")
    if new.repeat > stored.repeat:
        changes.append(f"--repeat {new.repeat} where it has {stored.repeat}")
    return changes


def _takes(algorithms: list[str], param: str) -> bool:
    return param in PROBLEM_OPTIONS or any(param in find_algorithm(name).params for name in algorithms)


def _check_heuristic(board: Instance, problem, values: dict[str, Any], checked: set[tuple]) -> None:
    """PuzzleError if the board's domain lacks the job's heuristic or refuses its options (checked once per board and choice)."""
    if "heuristic" not in values:
        return
    options = heuristic_options(values)
    choice = (board.id, values["heuristic"], *sorted(options.items()))
    if choice not in checked:
        try:
            problem.check_heuristic(values["heuristic"], **options)
        except PuzzleError as err:
            raise PuzzleError(f"board {board.name}: {err}") from None
        checked.add(choice)


def _check_move_model(board: Instance, values: dict[str, Any], checked: set[tuple]) -> None:
    """PuzzleError if the board's domain has no such move model (checked once per board and model)."""
    if "move_model" in values and (board.id, values["move_model"]) not in checked:
        try:
            problem_for(board.domain, board.text, values["move_model"])
        except PuzzleError as err:
            raise PuzzleError(f"board {board.name}: {err}") from None
        checked.add((board.id, values["move_model"]))


def _runs(randomized: bool, seeds: list[int] | None, repeat: int) -> list[tuple[int | None, int]]:
    """(seed, repeat index) of each run of one grid point: seeds only for randomized algorithms."""
    if seeds is None:
        return [(None, index) for index in range(repeat)]
    if randomized:
        return [(seed, 0) for seed in seeds]
    return [(None, index) for index in range(len(seeds))]


def _job(
    name: str, namespace: str, board_id: str, algorithm: str, params: dict[str, Any], key_text: str, seed: int | None,
    repeat: int, randomized: bool, plugins: str | None,
) -> PlannedJob:
    """A job: its key digests the parameters' canonical text (`key_text`), as do its derived seeds; not its plugins,
    so that a job run by another version of them is the same job."""
    key = _digest(name, board_id, algorithm, key_text, seed, repeat)
    if randomized and seed is None:
        seed = int(_digest(namespace, board_id, algorithm, key_text, seed, repeat)[:8], 16) % SEEDS
    return PlannedJob(board_id, algorithm, params, seed, repeat, key, plugins)


def _digest(*identity: Any) -> str:
    return hashlib.sha256(json.dumps(list(identity)).encode()).hexdigest()
