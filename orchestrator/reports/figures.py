"""The figures of search papers, from a sweep's rows (one per job: `orchestrator.reports.rows`), with pandas and numpy
alone: `orchestrator.reports.paper_plots` draws them as files (matplotlib), `orchestrator.publish.interactive_paper` in
the HTML report (Plotly).

- A *configuration* is one side compared, a label per row: within a sweep, the algorithm and the parameters that tell
  its runs apart ("beam k=50", `plots.algorithm_labels`); in a comparison of sweeps, the sweep (`joined_rows`).
- A *unit* is what runs are paired on, as in the report's tables (`orchestrator.reports.common`): a board, or a
  (board, seed) pair where the seeded configurations ran the same seeds (`--seeds`), a job without a seed (a
  deterministic algorithm) standing for each of them; in a comparison, also the values of the columns it lines up
  (`k`). A board some job proved unsolvable is no unit: a proof is no failure. A configuration's runs on one unit
  (`--repeat`) count as their median, an unsolved run as endlessly costly, so the unit is solved when more than half
  of them solved it. Jobs not done yet count for nothing.
- `scatter_points`: two configurations unit by unit, as Downward Lab's scatter plots: over the units both ran, the
  others counted and named; a run that failed or hit a limit has no value and is drawn on a border line beyond the
  largest value.
- `coverage_curves`: per configuration, how many units it solved within each value of a metric (the cactus plot of
  solver papers), over the units every configuration ran.
- `scores`: per group, coverage and the log scores of Downward Lab and the IPC (`log_score`).
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from orchestrator.reports.common import SWEEP, UNIT
from orchestrator.reports.plots import algorithm_labels, natural_key, value_text
from orchestrator.reports.rows import group_columns, parameter_name, params_key_text
from puzzles.errors import PuzzleError
from puzzles.result import Outcome

# Downward Lab's bounds (lab.tools.compute_log_score, called by downward/parsers/single_search_parser.py): states
# expanded score 1 up to 100 and 0 from 1,000,000 on (score_expansions); time 1 at most 1 s, 0 at the time limit
# (score_search_time, score_total_time): here the IPC's limit of 30 minutes.
EXPANSION_BOUNDS = (100.0, 1_000_000.0)
TIME_BOUNDS = (1.0, 1800.0)
SCORED = (("score_expanded", "expanded", EXPANSION_BOUNDS), ("score_time", "elapsed_s", TIME_BOUNDS))
METRICS = (("expanded", "states expanded"), ("elapsed_s", "time"))  # (column, noun) of the scatter and coverage plots
MAX_SCATTERED = 8  # a scatter plot of the reference against each other configuration up to this many configurations
MAX_CURVES = 20  # a coverage plot up to this many configurations (lines)
MAX_NAMED = 5  # units named in a note of those left out; the rest counted
DOMAINS = {"rushhour": "Rush Hour", "npuzzle": "N-puzzle"}
PAIRED = "paired"  # the key of `joined_rows`' attrs: the columns its runs are paired on besides the unit


@dataclass(frozen=True)
class Sides:
    """The configurations of a frame of rows: each row's, their names (the reference first), and the columns runs are
    paired on besides the unit."""

    config: pd.Series
    names: list[str]
    pair: list[str]

    def pairs(self) -> list[tuple[str, str]]:
        """The scatter plots to draw: the reference against each other configuration; none beyond MAX_SCATTERED."""
        return [(self.names[0], name) for name in self.names[1:]] if len(self.names) <= MAX_SCATTERED else []

    def curves(self) -> bool:
        """Whether a coverage plot stays readable: at most MAX_CURVES lines."""
        return 0 < len(self.names) <= MAX_CURVES


@dataclass(frozen=True)
class Scatter:
    """Two configurations unit by unit on one metric: A's value on x, B's on y, over the units both ran.

    `points`: per unit its name (`unit`), board, seed, the columns paired on, `domain` (as a reader names it),
    `board_size`, `category` (domain and size: a colour and a marker), `x` and `y` (NaN where the run did not solve
    it) and `x_solved`, `y_solved`. `only`: per configuration, the units only it ran, named: there is nothing to set
    them beside. `floor`, `border`: where a log axis puts a value of 0 and an unsolved run (`log_bounds`).
    """

    a: str
    b: str
    metric: str
    points: pd.DataFrame
    only: dict[str, list[str]]
    noun: str
    floor: float
    border: float

    def placed(self, axis: str, floor: float | None = None, border: float | None = None) -> np.ndarray:
        """The points' positions on axis `x` or `y` (`placed`), by this plot's floor and border unless given."""
        return placed(self.points[axis], self.points[f"{axis}_solved"], floor or self.floor, border or self.border)

    def left_out(self) -> str:
        """What the plot leaves out, for a note: `2 boards only in b4: Rushhour6x6_3, Rushhour9x9_4`; empty for none."""
        return left_out_text(self.only, self.noun)


@dataclass(frozen=True)
class Coverage:
    """Per configuration, the sorted values of a metric over the units it solved, among those every configuration ran:
    the i-th value is where i + 1 of them were solved (`units` in all, of kind `noun`). `missing`: per
    configuration, the units others ran and it did not, left out. `floor`, `border`: the ends of a log axis of the
    values."""

    metric: str
    curves: dict[str, np.ndarray]
    units: int
    noun: str
    missing: dict[str, list[str]]
    floor: float
    border: float

    def left_out(self) -> str:
        """What the plot leaves out, for a note: `2 boards not run by b3: Rushhour6x6_3, Rushhour9x9_4`; empty for none."""
        return left_out_text(self.missing, self.noun, "not run by")


def sides(rows: pd.DataFrame, baseline: str | None = None) -> Sides:
    """The configurations of `rows`: in a comparison (`joined_rows`) the sweeps, the first the reference, paired on the
    columns lined up; in a sweep the algorithm labels, in natural order, the reference the first label of `baseline`
    (an algorithm) where it ran."""
    if PAIRED in rows.attrs:
        config = rows[SWEEP]
        return Sides(config, list(dict.fromkeys(config)), list(rows.attrs[PAIRED]))
    config = algorithm_labels(rows)
    names = sorted(config.unique(), key=natural_key)
    first = sorted(config[rows["algorithm"] == baseline].unique(), key=natural_key)[:1]
    return Sides(config, [*first, *(name for name in names if name not in first)], [])


def joined_rows(frames: dict[str, pd.DataFrame], groups: Sequence[str]) -> pd.DataFrame:
    """The rows of the sweeps compared as one frame, a column `sweep` naming each row's, their runs paired on the
    columns `groups` lines up (board and seed are the unit's)."""
    rows = pd.concat([frame.assign(**{SWEEP: name}) for name, frame in frames.items()], ignore_index=True)
    rows.attrs[PAIRED] = [column for column in groups if column not in UNIT]
    return rows


def is_comparison(rows: pd.DataFrame) -> bool:
    """Whether `rows` are sweeps joined to be compared (`joined_rows`)."""
    return PAIRED in rows.attrs


def unit_values(rows: pd.DataFrame, config: pd.Series, metrics: Sequence[str], pair: Sequence[str] = ()) -> pd.DataFrame:
    """Per configuration and unit (see the module docstring): whether the configuration solved it and its values of
    `metrics` there (NaN where it did not).

    `config` holds each row's configuration. Columns: `configuration`, the
    `pair` columns, `board`, `seed` (NaN where the unit is the board),
    `domain`, `board_size`, `runs`, `solved`, the metrics and `unit`, its name.
    """
    frame = rows.assign(configuration=config, seed=pd.to_numeric(rows["seed"], errors="coerce"))
    frame = frame[frame["outcome"].notna()]
    proven = frame.loc[frame["outcome"] == Outcome.UNSOLVABLE, "board"].unique()
    frame = _paired_seeds(frame[~frame["board"].isin(proven)])
    solved = frame["outcome"] == Outcome.SOLVED
    costs = {metric: pd.to_numeric(frame[metric], errors="coerce").where(solved, np.inf) for metric in metrics}
    units = (frame.assign(solved=solved, domain=frame["domain"].map(DOMAINS).fillna(frame["domain"]), **costs)
             .groupby(["configuration", *pair, *UNIT], dropna=False, sort=False)
             .agg(runs=("solved", "size"), solved=("solved", "mean"), domain=("domain", "first"),
                  board_size=("board_size", "first"), **{metric: (metric, "median") for metric in metrics})
             .reset_index())
    units["solved"] = units["solved"] > 0.5
    units.loc[~units["solved"], list(metrics)] = np.nan
    return units.assign(unit=unit_names(units, pair))


def _paired_seeds(frame: pd.DataFrame) -> pd.DataFrame:
    """The done jobs by the seeds that pair runs: those every seeded configuration ran, a job without a seed once for
    each; where they share none (`--repeat` derives seeds per job), no seed: the unit is the board."""
    seeded = frame.dropna(subset=["seed"]).groupby("configuration")["seed"].agg(set)
    shared = sorted(set.intersection(*seeded)) if len(seeded) else []
    if not shared:
        return frame.assign(seed=np.nan)
    free = frame[frame["seed"].isna()].drop(columns="seed").merge(pd.DataFrame({"seed": shared}, dtype=float), how="cross")
    return pd.concat([frame[frame["seed"].isin(shared)], free], ignore_index=True)


def unit_names(units: pd.DataFrame, pair: Sequence[str]) -> pd.Series:
    """Each unit as a reader names it: `Rushhour6x6_3`, `Rushhour6x6_3 seed 2`, `Rushhour6x6_3 k=5`."""
    seeds = units["seed"].map(lambda seed: "" if pd.isna(seed) else f"seed {seed:.0f}")
    parts = [units["board"].astype(str), seeds, *(units[column].map(lambda v, c=column: _pair_text(c, v)) for column in pair)]
    return pd.Series([" ".join(filter(None, words)) for words in zip(*parts)], index=units.index, dtype=object)


def _pair_text(column: str, value: object) -> str:
    """A value of a column runs are paired on, in a unit's name: `k=5`, `beam`, `heuristic=blockers k=5`."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if column == "params":
        return params_key_text(str(value))
    return str(value) if column == "algorithm" else f"{parameter_name(column)}={value_text(value)}"


def unit_noun(units: pd.DataFrame, pair: Sequence[str]) -> str:
    """What units count: `boards`, `board-seed pairs`, or `runs` where they pair on more."""
    if pair:
        return "runs"
    return "board-seed pairs" if units["seed"].notna().any() else "boards"


def scatter_points(rows: pd.DataFrame, config: pd.Series, a: str, b: str, metric: str,
                   pair: Sequence[str] = ()) -> Scatter:
    """Configuration `a` against `b` on `metric` (`expanded`, `elapsed_s`, ...), a point per unit both ran (`Scatter`).

    `config` holds each row's configuration; `pair`, the columns runs are
    paired on besides the unit. PuzzleError if `a` or `b` is none of them.
    """
    _check_named(config, (a, b))
    chosen = config.isin([a, b])
    return _scatter(unit_values(rows[chosen], config[chosen], [metric], pair), a, b, metric, pair)


def paper_data(rows: pd.DataFrame, found: Sides, metrics: Sequence[str]) -> tuple[dict[str, list[Scatter]],
                                                                                   dict[str, Coverage]]:
    """Every scatter plot (`Sides.pairs`) and coverage plot (`Sides.curves`) of `metrics`, from the units of every
    configuration worked out once (seeds paired across all of them, as the report's tables pair them)."""
    units = unit_values(rows, found.config, metrics, found.pair)
    scatters = {metric: [_scatter(units, a, b, metric, found.pair) for a, b in found.pairs()] for metric in metrics}
    curves = {metric: _coverage(units, metric, found.pair) for metric in metrics} if found.curves() else {}
    return scatters, curves


def _scatter(units: pd.DataFrame, a: str, b: str, metric: str, pair: Sequence[str]) -> Scatter:
    """`scatter_points` from the units of `unit_values`."""
    ran = {name: units[units["configuration"] == name].set_index("unit") for name in (a, b)}
    common = sorted(ran[a].index.intersection(ran[b].index), key=natural_key)
    base = ran[a].loc[common, ["board", "seed", *pair, "domain", "board_size"]]
    points = base.assign(category=categories(base), x=ran[a].loc[common, metric], x_solved=ran[a].loc[common, "solved"],
                         y=ran[b].loc[common, metric], y_solved=ran[b].loc[common, "solved"]).reset_index()
    only = {name: sorted(ran[name].index.difference(ran[other].index), key=natural_key) for name, other in ((a, b), (b, a))}
    floor, border = log_bounds(np.concatenate([points["x"].to_numpy(float), points["y"].to_numpy(float)]))
    return Scatter(a, b, metric, points, only, unit_noun(units, pair), floor, border)


def coverage_curves(rows: pd.DataFrame, config: pd.Series, metric: str, pair: Sequence[str] = ()) -> Coverage:
    """Per configuration (of `config`, each row's) the units it solved, by their values of `metric` (`Coverage`), over
    the units every configuration that ran any ran."""
    return _coverage(unit_values(rows, config, [metric], pair), metric, pair)


def _coverage(units: pd.DataFrame, metric: str, pair: Sequence[str]) -> Coverage:
    """`coverage_curves` from the units of `unit_values`."""
    ran = units.groupby("configuration", sort=False)["unit"].agg(set)
    common = set.intersection(*ran) if len(ran) else set()
    kept = units[units["unit"].isin(common)]
    curves = {name: np.sort(kept.loc[(kept["configuration"] == name) & kept["solved"], metric].to_numpy(float))
              for name in ran.index}
    every = set.union(*ran) if len(ran) else set()
    missing = {name: sorted(every - names, key=natural_key) for name, names in ran.items()}
    floor, border = log_bounds(np.concatenate([[np.nan], *curves.values()]))
    return Coverage(metric, curves, len(common), unit_noun(units, pair), missing, floor, border)


def scores(rows: pd.DataFrame, groups: Sequence[str]) -> pd.DataFrame:
    """Per group of `groups` (columns of the rows, as `summary.summarize` takes them): coverage and Downward Lab's log
    scores, summed over the group's own units (see the module docstring).

    Columns, after the group's:
    - `coverage`: the units the group solved;
    - `coverage_units`: the units it ran (done, on boards not proved unsolvable);
    - `score_expanded`: the sum over its units of `log_score(states expanded, EXPANSION_BOUNDS)`;
    - `score_time`: the same of its time, `log_score(elapsed_s, TIME_BOUNDS)`.
    An unsolved unit scores 0. Where a group spans algorithms or parameters
    (`--by board`), each one's run on a unit is a unit of its own. One row
    per group, in the order of their first rows; a group with no done job
    has 0 everywhere. The sums compare groups that ran the same units.
    """
    groups = group_columns(rows, list(groups))
    codes = pd.Series(rows.groupby(groups, dropna=False, sort=False).ngroup().to_numpy(), index=rows.index)
    pair = [column for column in ("algorithm", "params") if column not in groups]
    units = unit_values(rows, codes, [metric for _, metric, _ in SCORED], pair)
    units = units.assign(**{name: log_score(units[metric], bounds) for name, metric, bounds in SCORED})
    sums = units.groupby("configuration").agg(coverage=("solved", "sum"), coverage_units=("solved", "size"),
                                              **{name: (name, "sum") for name, _, _ in SCORED})
    keys = rows[groups].assign(configuration=codes).drop_duplicates("configuration").set_index("configuration")
    out = keys.join(sums)
    out[list(sums.columns)] = out[list(sums.columns)].fillna(0)
    return out.astype({"coverage": int, "coverage_units": int}).reset_index(drop=True)


def log_score(values: Sequence[float] | pd.Series, bounds: tuple[float, float]) -> np.ndarray:
    """Downward Lab's score of each value (`lab.tools.compute_log_score`): 1 at or below the lower bound, 0 at or above
    the upper, between them 1 - log(v / lower) / log(upper / lower); 0 where there is no value (an unsolved run)."""
    lower, upper = bounds
    values = np.asarray(values, dtype=float)
    clipped = np.clip(values, lower, upper)
    return np.where(np.isnan(values), 0.0, 1 - np.log(clipped / lower) / np.log(upper / lower))


def log_bounds(values: np.ndarray) -> tuple[float, float]:
    """Where a log axis of `values` puts a value of 0 (`floor`: the power of ten at or below the smallest positive
    value, a decade lower if any is 0) and an unsolved run (`border`: the power of ten above the largest value), as
    Downward Lab does; (0.1, 1) with no positive value."""
    values = values[~np.isnan(values)]
    positive = values[values > 0]
    if not len(positive):
        return 0.1, 1.0
    floor = 10.0 ** math.floor(math.log10(positive.min()))
    return floor / 10 if (values <= 0).any() else floor, 10.0 ** (math.floor(math.log10(positive.max())) + 1)


def placed(values: pd.Series, solved: pd.Series, floor: float, border: float) -> np.ndarray:
    """Positions on a log axis: each value, a value of 0 at `floor`, and where there is no solved value the border."""
    numbers = values.to_numpy(dtype=float)
    return np.where(solved.to_numpy(dtype=bool) & ~np.isnan(numbers), np.maximum(numbers, floor), border)


def categories(units: pd.DataFrame) -> pd.Series:
    """Each unit's kind of board, its colour and marker in a plot: `Rush Hour 6x6`, `N-puzzle width 4` (the N-puzzle's
    size is its width)."""
    def category(domain: str, size: object) -> str:
        return f"{domain} {size}x{size}" if domain == DOMAINS["rushhour"] else f"{domain} width {size}"

    return pd.Series([category(d, s) for d, s in zip(units["domain"], units["board_size"])], index=units.index, dtype=object)


def styles(points: pd.DataFrame) -> dict[str, tuple[int, int]]:
    """Per category of the points, in natural order: the number of its domain (a colour) and its own (a marker), so
    that the plot reads in greyscale too."""
    kinds = points[["category", "domain"]].drop_duplicates("category")
    domains = sorted(kinds["domain"].unique(), key=natural_key)
    ordered = sorted(kinds.itertuples(index=False), key=lambda kind: natural_key(kind.category))
    return {kind.category: (domains.index(kind.domain), number) for number, kind in enumerate(ordered)}


def left_out_text(units: dict[str, list[str]], noun: str, how: str = "only in") -> str:
    """`2 boards only in b4: Rushhour6x6_3, Rushhour9x9_4`: a clause per configuration with units left out (`units`
    names them), at most MAX_NAMED named."""
    clauses = []
    for name, named in units.items():
        if named:
            more = f" and {len(named) - MAX_NAMED:,} more" if len(named) > MAX_NAMED else ""
            kind = noun.removesuffix("s") if len(named) == 1 else noun
            clauses.append(f"{len(named):,} {kind} {how} {name}: {', '.join(named[:MAX_NAMED])}{more}")
    return "; ".join(clauses)


def _check_named(config: pd.Series, names: Sequence[str]) -> None:
    known = set(config.dropna().unique())
    unknown = [name for name in names if name not in known]
    if unknown:
        choices = ", ".join(sorted(known, key=natural_key))
        raise PuzzleError(f"no configuration {', '.join(map(repr, unknown))} in these rows (choose from {choices})")
