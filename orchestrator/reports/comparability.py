"""The notes that say what a table compared: made from the units each family's sides ran and solved, never fixed.

Every sentence is built from the `Family` objects `like_with_like` found for
that very table (`orchestrator.reports.common`): the units left out because
not every side ran them, named; the sides that solved nothing and so are not
compared; how many units the common figures are over, per family. A
comparison report also opens with the plugins' claims of optimality its sweeps
belie (`claims`), and warns where its sweeps ran an algorithm with
different versions of its plugins, naming each sweep's.
"""


import pandas as pd

from orchestrator.reports.common import SWEEP, Compared, Family, names_text
from orchestrator.reports.comparison import compared_table, test_note
from orchestrator.reports.errors import claim_lines
from orchestrator.reports.rows import group_columns, params_key_text, plugged_rows
from orchestrator.reports.summary import families, summarized
from puzzles.algorithms import param_text
from puzzles.textio import plural
from workers.provenance import plugins_text

OWN = ("own figures: each row's moves, steps and gap over its own solved runs; its states, time and memory over its "
       "own done runs, failed ones and those stopped by a limit included")


def report_summary(rows: pd.DataFrame, by: list[str] | None = None, *,
                   baseline: str | None = None) -> tuple[pd.DataFrame, list[str]]:
    """A report's summary (`summarize`) and the notes on what it compared."""
    groups = group_columns(rows, by)
    summary, compared = summarized(rows, groups, baseline=baseline)
    family = families(groups)
    return summary, report_notes(compared, family, [column for column in groups if column not in family], baseline)


def comparison(frames: dict[str, pd.DataFrame], groups: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """The sweeps lined up (`compare`) and the notes on what each row compared, with the test's, and the plugin versions
    the sweeps differ in (the claims of optimality they belie are `claims`, which the report puts before all)."""
    table, compared = compared_table(frames, groups)
    return table, [*plugin_version_notes(frames), *compare_notes(compared, groups), test_note(table)]


def claims(frames: dict[str, pd.DataFrame]) -> list[str]:
    """The claims of optimality the sweeps' results belie (`errors.claim_lines`), one list for them all."""
    return list(dict.fromkeys(line for rows in frames.values() for line in claim_lines(rows)))


def plugin_version_notes(frames: dict[str, pd.DataFrame]) -> list[str]:
    """A warning per algorithm the sweeps ran with different versions of its plugins, naming each sweep's:
    `warning: the sweeps ran greedy with different versions of its plugins: greedy-search 0.1.0 (source ...) in a,
    greedy-search 0.2.0 (source ...) in b`."""
    versions: dict[str, dict[str, list[str]]] = {}
    for name, rows in frames.items():
        done = plugged_rows(rows[rows["outcome"].notna()])
        for algorithm, part in done.groupby("algorithm", sort=True):
            versions.setdefault(algorithm, {})[name] = sorted(part["plugins"].unique())
    return [f"warning: the sweeps ran {algorithm} with different versions of its plugins: "
            + ", ".join(f"{' and '.join(map(plugins_text, keys))} in {name}" for name, keys in sides.items())
            for algorithm, sides in versions.items() if len(sides) > 1 and len(set(map(tuple, sides.values()))) > 1]


def report_notes(compared: Compared, family: list[str], sides: list[str], baseline: str | None = None) -> list[str]:
    """What a report's reader must know of its comparisons: units left out, rows not compared, the common units."""
    notes = _left_out(compared, family, sides, "row")
    notes += _not_compared(compared, sides, "row")
    notes.append(_common_line(compared, family, "row", "moves, states, time, memory"
                              + (f" and the ratios to {baseline}" if baseline else "")))
    notes.append(OWN)
    if baseline is not None and not _baseline_compared(compared, sides, baseline):
        notes.append(f"{baseline} solved none of the common units: no ratio to it")
    return notes


def compare_notes(compared: Compared, groups: list[str]) -> list[str]:
    """What a comparison's reader must know: units only some sweeps ran (left out), sweeps that solved nothing in a
    row, and the units the share solved and the other figures (and their ratios, p and q) are over."""
    notes = _left_out(compared, groups, [SWEEP], "sweep")
    notes += _not_compared(compared, [SWEEP], "sweep", groups)
    notes.append(_shared_line(compared, groups))
    notes.append(_common_line(compared, groups, "sweep", "moves, states and time, their ratios, p and q"))
    return notes


def side_text(columns: list[str], key: tuple) -> str:
    """A compared side as a note names it: `beam k=5`, `astar heuristic=blockers`, a sweep's name."""
    parts = []
    for column, value in zip(columns, key):
        if column in ("algorithm", SWEEP):
            parts.append(str(value))
        elif column == "params":
            parts.append(params_key_text(value))
        else:
            parts.append(param_text(column, value))
    return " ".join(parts) or "all"


def _left_out(compared: Compared, family: list[str], sides: list[str], who: str) -> list[str]:
    """Per side, the units it ran that not every other side of its family ran: `2 boards only in b4: A, B`."""
    by_side: dict[tuple, set] = {}
    for key, found in compared.families.items():
        for side, units in found.left_out().items():
            by_side.setdefault(side, set()).update(_named(family, key, found, unit) for unit in units)
    lines = []
    for side, units in by_side.items():
        where = f"only in {side_text(sides, side)}" if _sides(compared) == 2 else \
            f"run by {side_text(sides, side)} but not by every {who}"
        lines.append(f"{len(units):,} {_noun(compared, family, len(units))} {where}, left out of every comparison: "
                     f"{names_text(units)}")
    return lines


def _not_compared(compared: Compared, sides: list[str], who: str, groups: list[str] | None = None) -> list[str]:
    """The sides that ran units but solved none of them in a family where some side solved: not compared there."""
    idle: dict[tuple, list[tuple]] = {}
    for key, found in compared.families.items():
        for side, units in found.ran.items():
            if found.solved and units and side not in found.solved:
                idle.setdefault(side, []).append(key)
    if not idle:
        return []
    if len(compared.families) == 1:
        return [f"not compared, having solved none of their {compared.noun}: "
                f"{_listed([side_text(sides, side) for side in idle])}"]
    if groups is None:
        pairs = sum(len(keys) for keys in idle.values())
        return [f"{plural(pairs, who)} solved nothing on their {' and '.join(_family(compared))}: "
                f"no common figure there"]
    return [f"{side_text(sides, side)} solved nothing in {len(keys):,} of {len(compared.families):,} rows "
            f"({_listed([side_text(groups, key) for key in keys])}): no common figure there" for side, keys in idle.items()]


def _common_line(compared: Compared, family: list[str], who: str, what: str) -> str:
    """Which units the common figures are over: `over the 2 of the 3 boards every row ran, solved by every row that
    solved any`."""
    counted = [(len(found.common), len(found.shared)) for found in compared.families.values() if found.solved]
    if not counted:
        return f"common figures ({what}): none, as no {who} solved any of its {compared.noun}"
    whom = f"every {who} of the same {' and '.join(family)}" if family and who == "row" else \
        f"every {who} of the row" if who == "sweep" else f"every {who}"
    if compared.noun == "runs":  # a family is one board (and seed): its one unit
        return f"common figures ({what}): per {' and '.join(family) or who}, over the {who}s that solved it"
    if len(counted) == 1:
        common, shared = counted[0]
        if common == 0:
            return (f"common figures ({what}): none, as none of the {shared:,} {compared.noun} {whom} ran was solved "
                    f"by {whom} that solved any")
        return (f"common figures ({what}): over {common:,} of the {shared:,} {compared.noun} {whom} ran: those "
                f"solved by {whom} that solved any")
    empty = sum(common == 0 for common, _ in counted)
    per = " and ".join(family) if who == "row" else "row"
    none = f"; none in {empty:,} of the {len(counted):,} {per}s where any {who} solved: no figure there" if empty else ""
    return (f"common figures ({what}): over the {compared.noun} solved by {whom} that solved any: "
            f"{_span([c for c, _ in counted])} of the {_span([s for _, s in counted])} {compared.noun} {whom} ran, "
            f"per {per}{none}")


def _shared_line(compared: Compared, groups: list[str]) -> str:
    """Which units the share solved of a comparison is over: those every sweep of the row ran."""
    counted = [(len(found.shared), len(found.every)) for found in compared.families.values() if found.every]
    if not counted:
        return "solved: no sweep has a done job"
    shared = _span([s for s, _ in counted])
    every = _span([e for _, e in counted])
    per = " per row" if len(counted) > 1 else ""
    return (f"solved, its difference and q: over the {shared} of {every} {compared.noun}{per} that every sweep of the "
            f"row ran (proved unsolvable apart)")


def _baseline_compared(compared: Compared, sides: list[str], baseline: str) -> bool:
    """True if the baseline algorithm has common units in some family."""
    if "algorithm" not in sides:
        return True
    at = sides.index("algorithm")
    return any(found.common and any(side[at] == baseline for side in found.solved)
               for found in compared.families.values())


def _named(family: list[str], key: tuple, found: Family, unit: tuple) -> tuple:
    """A unit with its family's board and seed, as one tuple to name: (board, seed) or (board,)."""
    values = dict(zip(family, key)) | dict(zip(found.unit, unit))
    return tuple(values[column] for column in ("board", "seed") if column in values)


def _family(compared: Compared) -> list[str]:
    """The unit columns a family of the table leaves out of its units (board, seed): what it is one of."""
    found = next(iter(compared.families.values()))
    return [column for column in ("board", "seed") if column not in found.unit] or ["row"]


def _listed(names: list[str], most: int = 8) -> str:
    """`a, b, c` or `a, b, c and 4 more`."""
    return ", ".join(names[:most]) + (f" and {len(names) - most:,} more" if len(names) > most else "")


def _sides(compared: Compared) -> int:
    return max((len(found.ran) for found in compared.families.values()), default=0)


def _noun(compared: Compared, family: list[str], count: int) -> str:
    noun = compared.noun if "board" not in family else "runs"
    return noun if count != 1 else _singular(noun)


def _singular(noun: str) -> str:
    return {"boards": "board", "board-seed pairs": "board-seed pair", "seeds": "seed", "runs": "run"}.get(noun, noun)


def _span(values: list[int]) -> str:
    low, high = min(values), max(values)
    return f"{low:,}" if low == high else f"{low:,}–{high:,}"
