"""Every note of a report and a comparison says what was computed for that table (issue 46 §1): sweeps with other boards,
seeds, failures and unfinished jobs, drawn by Hypothesis, each note checked against the data worked out here."""

import math
import re

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.reports.comparability import comparison, report_summary
from orchestrator.reports.errors import error_lines
from orchestrator.reports.rows import with_parameter_columns
from tests.orchestrator.test_plots import job

BOARDS = ("A6x6", "B6x6", "C9x9")
KS = (1, 2, 3)
OUTCOMES = ("solved", "failed", "limit", None)  # None: not done yet


def rows_of(outcomes: dict[tuple[int, str], str | None], sweep_seed: int = 0) -> pd.DataFrame:
    """A beam sweep's rows, a job per (k, board) with the outcome given; moves and expansions made up from both."""
    rows = []
    for (k, board), outcome in outcomes.items():
        moves = 20 + 3 * k + BOARDS.index(board) + sweep_seed
        rows.append(job(len(rows) + 1, board, "beam", {"k": k}, None, outcome, moves, 0.01 * moves,
                        100 * moves if outcome == "solved" else 7, k=k, cpu_s=0.01 * moves, gap_moves=np.nan))
    return with_parameter_columns(pd.DataFrame(rows), ["k"])


grids = st.fixed_dictionaries({(k, board): st.sampled_from(OUTCOMES) for k in KS for board in BOARDS})


def units(outcomes: dict, k: int, solved: bool = False) -> set[str]:
    """The boards a row ran (a done job), or solved."""
    return {board for (row, board), outcome in outcomes.items()
            if row == k and outcome is not None and (outcome == "solved" or not solved)}


@settings(max_examples=30)
@given(grids)
def test_a_reports_notes_say_what_its_common_figures_are_over(outcomes):
    rows = rows_of(outcomes)
    summary, notes = report_summary(rows, ["algorithm", "k"])
    ran = {k: units(outcomes, k) for k in KS if units(outcomes, k)}
    solving = {k: units(outcomes, k, solved=True) for k in ran if units(outcomes, k, solved=True)}
    shared = set.intersection(*ran.values()) if ran else set()
    common = set.intersection(*solving.values()) & shared if solving else set()
    line = next(note for note in notes if note.startswith("common figures"))
    if not solving:
        assert "no row solved any" in line
    elif common:
        assert f"over {len(common)} of the {len(shared)} boards every row ran" in line, line
    else:
        assert f"none, as none of the {len(shared)} boards every row ran" in line, line
    idle = [k for k in ran if k not in solving]
    not_compared = [note for note in notes if note.startswith("not compared")]
    assert bool(not_compared) == bool(solving and idle)
    for k in idle if solving else ():
        assert f"beam k={k}" in not_compared[0]
    left_out = {k: ran[k] - shared for k in ran if ran[k] - shared}
    for k, boards in left_out.items():
        said = next(note for note in notes if f"beam k={k} " in note and "left out" in note)
        assert said.startswith(f"{len(boards)} board") and all(board in said for board in boards)
    assert sum("left out" in note for note in notes) == len(left_out)
    by_k = summary.set_index("k")
    for k in solving:
        moves = [20 + 3 * k + BOARDS.index(board) for board in sorted(common)]
        expected = np.mean(moves) if moves else math.nan
        assert math.isclose(by_k.loc[k, "moves_common"], expected) or (math.isnan(expected)
                                                                       and math.isnan(by_k.loc[k, "moves_common"]))
        own = [20 + 3 * k + BOARDS.index(board) for board in solving[k]]
        assert math.isclose(by_k.loc[k, "moves_mean"], np.mean(own))


@settings(max_examples=25)
@given(grids, grids)
def test_a_comparisons_notes_name_the_boards_left_out_and_the_units_compared(first, second):
    frames = {"one": rows_of(first), "two": rows_of(second, sweep_seed=1)}
    table, notes = comparison(frames, ["k"])
    by_k = table.set_index("k")
    for k in KS:
        ran = [units(first, k), units(second, k)]
        if not all(ran) or k not in by_k.index:
            continue
        shared = ran[0] & ran[1]
        solved = [units(outcomes, k, solved=True) & shared for outcomes in (first, second)]
        assert by_k.loc[k, "shared"] == len(shared)
        for name, found in zip(frames, solved):
            share = by_k.loc[k, f"solved_share {name}"]
            assert math.isclose(share, len(found) / len(shared)) if shared else math.isnan(share)
    for name, (mine, theirs) in {"one": (first, second), "two": (second, first)}.items():
        only = {board for k in KS for board in units(mine, k) - units(theirs, k) if units(theirs, k)}
        said = [note for note in notes if f"only in {name}," in note]
        assert bool(said) == bool(only), (notes, only)
        if only:
            assert re.match(rf"{len(only)} boards? only in {name}", said[0]) and all(board in said[0] for board in only)


def test_a_report_opens_with_what_went_wrong_by_kind_with_an_example_each():
    outcomes = {(1, "A6x6"): "failed", (1, "B6x6"): "failed", (2, "A6x6"): "limit", (2, "B6x6"): "solved",
                (3, "A6x6"): "solved", (3, "B6x6"): "solved"}
    rows = rows_of(outcomes)
    reasons = {1: "beam emptied at depth 17", 2: "beam emptied at depth 22", 3: "node limit 1,000 reached"}
    rows["reason"] = [reasons.get(job_id) for job_id in rows["job_id"]]
    rows.loc[rows["job_id"] == 6, ["outcome", "reason"]] = ["error", "job process died (signal 9)"]
    lines = error_lines(rows, "beam-k")
    assert lines == [
        "error 1 job: job process died (signal N) (e.g. job 6, beam k=3 on B6x6: job process died (signal 9))",
        "limit 1 job: node limit N reached (e.g. job 3, beam k=2 on A6x6: node limit 1,000 reached)",
        "failed 2 jobs: beam emptied at depth N (e.g. job 1, beam k=1 on A6x6: beam emptied at depth 17)",
    ]
    fine = rows_of({(3, "A6x6"): "solved", (3, "B6x6"): None})
    assert error_lines(fine) == ["nothing went wrong: none of the 1 done job raised, hit a limit or gave up"]
