"""What went wrong in a sweep, first: plugins' claims of shortest solutions that a known optimum belies, then its jobs
that raised, hit a limit or gave up, by kind, with one example each.

Downward Lab's reports open with the unexplained errors; a report here opens
with a line per plugin algorithm that claims optimality (or runs with a plugin
heuristic declared admissible) and found a longer solution than the board's
known optimum or a slidelab optimal search's result on it, then a line per kind
of trouble: the outcome (`error`: the job raised or its process died; `limit`:
a node, time or memory limit; `failed`: an incomplete algorithm gave up), and
its reason with the numbers in it taken out (`beam emptied at depth N`),
counted, with one job of the kind as an example. A sweep where nothing went
wrong says so in one line.
"""

import json
import re

import pandas as pd

from orchestrator.reports.rows import params_key_text, plugged_rows
from orchestrator.sweeps.optima import claims_optimal
from puzzles.result import Outcome
from puzzles.textio import plural
from workers.provenance import plugin_keys

ORDER = (Outcome.ERROR, Outcome.LIMIT, Outcome.FAILED)  # the unexplained first
MOST = 8  # kinds listed; the rest are counted in one more line
NUMBER = re.compile(r"\d[\d,.]*")


def error_lines(rows: pd.DataFrame, sweep: str = "SWEEP") -> list[str]:
    """The claims of optimality belied (`claim_lines`), then a line per kind of trouble among the done jobs, the
    unexplained (`error`) first, the most frequent first within an outcome; one line saying none went wrong if
    none did."""
    claims = claim_lines(rows)
    troubled = rows[rows["outcome"].isin(ORDER)]
    if troubled.empty:
        done = int(rows["outcome"].notna().sum())
        return claims or [f"nothing went wrong: none of the {plural(done, 'done job')} raised, hit a limit or gave up"]
    kinds = troubled.assign(kind=troubled["reason"].fillna("no reason given").map(_pattern))
    counted = kinds.groupby(["outcome", "kind"], sort=False).agg(jobs=("job_id", "size"), example=("job_id", "min"))
    counted = counted.reset_index()
    counted["order"] = counted["outcome"].map({outcome: index for index, outcome in enumerate(ORDER)})
    counted = counted.sort_values(["order", "jobs"], ascending=[True, False], kind="stable")
    examples = rows.set_index("job_id")
    lines = [_line(kind, examples.loc[kind.example]) for kind in counted.head(MOST).itertuples()]
    if len(counted) > MOST:
        rest = counted.iloc[MOST:]
        lines.append(f"and {len(rest):,} more kinds ({plural(int(rest['jobs'].sum()), 'job')}): orchestrate jobs {sweep} --status "
                     f"failed (or limit, error) lists them")
    return claims + lines


def claim_lines(rows: pd.DataFrame) -> list[str]:
    """A line per plugin (its version) and algorithm whose claim of shortest solutions (`optima.claims_optimal`) a
    solution longer than the board's optimum belies: `claims optimality: greedy-search 0.2.0's astar-py found 23 moves
    on Rushhour6x6_1, the optimum is 21 (e.g. job 17)`, its longest excess as the example."""
    plugged = plugged_rows(rows)
    solved = plugged[plugged["outcome"].eq(Outcome.SOLVED)]
    longer = solved[solved["moves"].astype(float) > solved["optimum"]]
    if longer.empty:
        return []
    kinds = longer[["algorithm", "params", "domain"]].drop_duplicates()
    claimed = {kind for kind in kinds.itertuples(index=False, name=None)
               if claims_optimal(kind[0], json.loads(kind[1]), kind[2])}
    belied = longer[[kind in claimed for kind in longer[["algorithm", "params", "domain"]].itertuples(index=False, name=None)]]
    belied = belied.assign(excess=belied["moves"] - belied["optimum"]).sort_values(["excess", "job_id"],
                                                                                    ascending=[False, True])
    return [_claim_line(part) for _, part in belied.groupby(["plugins", "algorithm"], sort=False)]


def _claim_line(belied: pd.DataFrame) -> str:
    """The line of one plugin version's algorithm: its worst excess, and how many other jobs and boards it had."""
    worst = belied.iloc[0]
    label = " and ".join(key.label for key in plugin_keys(worst["plugins"]))
    heuristic = json.loads(worst["params"]).get("heuristic")
    who = worst["algorithm"] if worst["algorithm"].startswith(label) else f"{label}'s {worst['algorithm']}"
    line = (f"claims optimality: {who}{f' with {heuristic}' if heuristic else ''} found {int(worst['moves'])} moves on"
            f" {worst['board']}, the optimum is {int(worst['optimum'])} (e.g. job {worst['job_id']})")
    if len(belied) > 1:
        line += (f"; longer than the optimum in {plural(len(belied), 'job')} on"
                 f" {plural(belied['board'].nunique(), 'board')} in all")
    return line


def _line(kind, example: pd.Series) -> str:
    """`failed 38 jobs: beam emptied at depth N (e.g. job 7, beam k=3 on Rushhour6x6_1: beam emptied at depth 17)`."""
    jobs = plural(kind.jobs, "job")
    label = " ".join(part for part in (example["algorithm"], params_key_text(example["params"])) if part != "-")
    return (f"{kind.outcome} {jobs}: {kind.kind} (e.g. job {kind.example}, {label} on {example['board']}: "
            f"{example['reason'] or 'no reason given'})")


def _pattern(reason: str) -> str:
    """A reason with its numbers as N, so that `beam emptied at depth 17` and `... 22` are one kind."""
    return NUMBER.sub("N", reason)
