"""An experiment's definition, one frozen dataclass per kind, as its row of `sweeps` keeps it (`kind`, `definition`).

A grid sweep is defined by its grid; an optimum proof by its grids, one per
optimal search (its parts); a study by its algorithm, space, scoring, boards
and how it samples; a split search by its board, depth, heuristic and the
size above which a bound is split. Each writes itself as JSON (`to_json`) and
reads itself back (`from_json`); `definition_of` reads a stored row's.
"""

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from orchestrator.sweeps.grid import SweepGrid
from workers.store.sweeps import ExperimentKind, SweepRow


@dataclass(frozen=True)
class GridDefinition:
    """A sweep: every job of one grid on its boards."""

    kind: ClassVar[ExperimentKind] = ExperimentKind.GRID
    grid: SweepGrid

    def to_json(self) -> dict[str, Any]:
        """The grid's JSON."""
        return self.grid.to_json()

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "GridDefinition":
        """The definition of `to_json`'s JSON."""
        return cls(SweepGrid.from_json(data))


@dataclass(frozen=True)
class OptimumDefinition:
    """An optimum proof: a job per board lacking a known optimum, planned in parts, one grid per optimal search."""

    kind: ClassVar[ExperimentKind] = ExperimentKind.OPTIMUM
    parts: tuple[SweepGrid, ...]

    def to_json(self) -> dict[str, Any]:
        """`{"parts": [grid, ...]}`."""
        return {"parts": [grid.to_json() for grid in self.parts]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "OptimumDefinition":
        """The definition of `to_json`'s JSON."""
        return cls(tuple(SweepGrid.from_json(part) for part in data["parts"]))


@dataclass(frozen=True)
class StudyDefinition:
    """A study: the algorithm, its space (each dimension as the command line writes it), the scoring, the boards in
    pruning order, the seeds or repeats, and how points are sampled, pruned and how many trials it is to have."""

    kind: ClassVar[ExperimentKind] = ExperimentKind.STUDY
    SAMPLING: ClassVar[tuple[str, ...]] = ("sampler", "seed", "pruner")  # not kept by studies made before they were
    algorithm: str
    space: dict[str, str]
    objectives: tuple[str, ...]
    aggregate: str
    unsolved: str
    boards: tuple[str, ...]
    board_ids: tuple[str, ...]
    seeds: tuple[int, ...] | None = None
    repeat: int = 1
    sampler: str = "tpe"
    seed: int | None = None
    pruner: str = "none"
    trials: int = 20

    def to_json(self) -> dict[str, Any]:
        """The study's definition as JSON."""
        return {"algorithm": self.algorithm, "space": self.space, "objectives": list(self.objectives),
                "aggregate": self.aggregate, "unsolved": self.unsolved, "boards": list(self.boards),
                "board_ids": list(self.board_ids), "seeds": None if self.seeds is None else list(self.seeds),
                "repeat": self.repeat, "sampler": self.sampler, "seed": self.seed, "pruner": self.pruner,
                "trials": self.trials}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "StudyDefinition":
        """The definition of `to_json`'s JSON; a study made before the sampling was kept takes the defaults."""
        seeds = data.get("seeds")
        return cls(data["algorithm"], dict(data["space"]), tuple(data["objectives"]), data["aggregate"], data["unsolved"],
                   tuple(data["boards"]), tuple(data["board_ids"]), None if seeds is None else tuple(seeds),
                   data.get("repeat", 1), data.get("sampler", "tpe"), data.get("seed"), data.get("pruner", "none"),
                   data.get("trials", 20))

    def differences(self, stored: "StudyDefinition", kept: set[str]) -> list[str]:
        """The fields of this definition that differ from a `stored` one's, among those it `kept` (its JSON's keys);
        the trial count may change (continuing a study to more trials)."""
        mine, theirs = self.to_json(), stored.to_json()
        return [key for key in mine if key != "trials" and key in kept and mine[key] != theirs[key]]

    def with_trials(self, trials: int) -> "StudyDefinition":
        """The same study, to have `trials` trials in all."""
        return replace(self, trials=trials)


@dataclass(frozen=True)
class SplitDefinition:
    """A split search: IDA* on one board, split `depth` moves below the start, with a heuristic and its options
    (`params`); a bound foreseen to expand fewer than `split_above` nodes is searched by the driver's process."""

    kind: ClassVar[ExperimentKind] = ExperimentKind.SPLIT
    board: str  # its name
    board_id: str
    depth: int
    params: dict[str, str] = field(default_factory=dict)
    split_above: int = 50_000_000

    def to_json(self) -> dict[str, Any]:
        """The split search's definition as JSON."""
        return {"board": self.board, "board_id": self.board_id, "depth": self.depth, "params": self.params,
                "split_above": self.split_above}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "SplitDefinition":
        """The definition of `to_json`'s JSON."""
        return cls(data["board"], data["board_id"], data["depth"], dict(data["params"]), data["split_above"])


Definition = GridDefinition | OptimumDefinition | StudyDefinition | SplitDefinition
DEFINITIONS: dict[ExperimentKind, type[Definition]] = {
    definition.kind: definition for definition in (GridDefinition, OptimumDefinition, StudyDefinition, SplitDefinition)}


def definition_of(experiment: SweepRow) -> Definition:
    """The definition a stored experiment keeps, read as its kind's."""
    return DEFINITIONS[experiment.kind].from_json(experiment.definition)
