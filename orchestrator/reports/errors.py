"""What went wrong in a sweep, first: its jobs that raised, hit a limit or gave up, by kind, with one example each.

Downward Lab's reports open with the unexplained errors; a report here opens
with a line per kind of trouble: the outcome (`error`: the job raised or its
process died; `limit`: a node, time or memory limit; `failed`: an incomplete
algorithm gave up), and its reason with the numbers in it taken out (`beam
emptied at depth N`), counted, with one job of the kind as an example. A
sweep where nothing went wrong says so in one line.
"""

import re

import pandas as pd

from orchestrator.reports.rows import params_key_text
from puzzles.result import Outcome
from puzzles.textio import plural

ORDER = (Outcome.ERROR, Outcome.LIMIT, Outcome.FAILED)  # the unexplained first
MOST = 8  # kinds listed; the rest are counted in one more line
NUMBER = re.compile(r"\d[\d,.]*")


def error_lines(rows: pd.DataFrame, sweep: str = "SWEEP") -> list[str]:
    """A line per kind of trouble among the done jobs, the unexplained (`error`) first, the most frequent first within
    an outcome; one line saying none went wrong if none did."""
    troubled = rows[rows["outcome"].isin(ORDER)]
    if troubled.empty:
        done = int(rows["outcome"].notna().sum())
        return [f"nothing went wrong: none of the {plural(done, 'done job')} raised, hit a limit or gave up"]
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
    return lines


def _line(kind, example: pd.Series) -> str:
    """`failed 38 jobs: beam emptied at depth N (e.g. job 7, beam k=3 on Rushhour6x6_1: beam emptied at depth 17)`."""
    jobs = plural(kind.jobs, "job")
    label = " ".join(part for part in (example["algorithm"], params_key_text(example["params"])) if part != "-")
    return (f"{kind.outcome} {jobs}: {kind.kind} (e.g. job {kind.example}, {label} on {example['board']}: "
            f"{example['reason'] or 'no reason given'})")


def _pattern(reason: str) -> str:
    """A reason with its numbers as N, so that `beam emptied at depth 17` and `... 22` are one kind."""
    return NUMBER.sub("N", reason)
