"""Printing a verification: the differences, the jobs of other code versions or plugin versions, the jobs not compared,
a summary."""

from itertools import groupby

from rich import box
from rich.table import Table

from orchestrator.reports.verify import INCONCLUSIVE, OTHER_PLUGIN, SKIPPED, Check, Verification
from orchestrator.sweeps.status_view import params_text
from workers.provenance import plugins_text

UNKNOWN_VERSION = "unknown (before provenance)"
VALUE_WIDTH = 40  # characters of a stored or current value shown in a table cell


def tables(verification: Verification) -> list[Table]:
    """The tables worth printing: differences, other code versions and plugin versions, jobs not compared (the empty
    ones left out)."""
    shown = [differences_table(verification), versions_table(verification), plugins_table(verification),
             not_compared_table(verification)]
    return [table for table in shown if table.row_count]


def differences_table(verification: Verification) -> Table:
    """One row per differing field of each job: its stored value and its value now."""
    table = _table("results that differ", "job", "board", "algorithm", "params", "seed", "field", "stored", "now")
    for check in verification.checks:
        for difference in check.differences:
            table.add_row(*_identity(check), difference.field, _value(difference.stored), _value(difference.now))
    return table


def versions_table(verification: Verification) -> Table:
    """One row per other code version: how many of the jobs checked it produced, and their ids."""
    table = _table("results of another code version", "code version", "jobs", "job ids")
    others = sorted(verification.other_versions, key=lambda check: (check.job.code_version or "", check.job.job_id))
    for version, checks in groupby(others, key=lambda check: check.job.code_version):
        ids = [check.job.job_id for check in checks]
        table.add_row(version or UNKNOWN_VERSION, f"{len(ids):,}", id_ranges(ids))
    return table


def plugins_table(verification: Verification) -> Table:
    """One row per plugins that made results and plugins installed here instead: how many jobs, and their ids (not run
    again: a worker would refuse them)."""
    table = _table("results of another plugin version (not run again)", "made by", "installed", "jobs", "job ids")
    others = sorted((check for check in verification.checks if check.outcome == OTHER_PLUGIN),
                    key=lambda check: (check.job.plugins or "", check.note or "", check.job.job_id))
    for (made, installed), checks in groupby(others, key=lambda check: (check.job.plugins, check.note)):
        ids = [check.job.job_id for check in checks]
        table.add_row(plugins_text(made), installed or "", f"{len(ids):,}", id_ranges(ids))
    return table


def not_compared_table(verification: Verification) -> Table:
    """The jobs skipped (stored under a time or memory limit) or inconclusive (stopped by one now), with the reason."""
    table = _table("results not compared", "job", "board", "algorithm", "params", "seed", "outcome", "reason")
    for check in verification.checks:
        if check.outcome in (SKIPPED, INCONCLUSIVE):
            table.add_row(*_identity(check), check.outcome, check.note or "")
    return table


def summary_text(verification: Verification) -> str:
    """One line: what was checked against which code version, and the counts."""
    counts = verification.summary()
    if not counts["other_plugin_version"]:
        del counts["other_plugin_version"]  # a sweep without plugins (or with the same ones) says nothing of them
    checked = f"{counts.pop('checked'):,} of {verification.finished:,} finished jobs"
    tally = ", ".join(f"{count:,} {name.replace('_', ' ')}" for name, count in counts.items())
    return f"sweep {verification.sweep}: {checked} checked against code version {verification.code_version}: {tally}"


def id_ranges(ids: list[int]) -> str:
    """Sorted job ids as ranges: `1-4, 7, 9-10`."""
    runs: list[list[int]] = []
    for job_id in sorted(ids):
        if runs and job_id == runs[-1][-1] + 1:
            runs[-1].append(job_id)
        else:
            runs.append([job_id])
    return ", ".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    for column in columns:
        table.add_column(column, justify="right" if column in ("job", "seed", "jobs") else "left")
    return table


def _identity(check: Check) -> tuple[str, ...]:
    job = check.job
    return str(job.job_id), job.board, job.algorithm, params_text(job.params), "" if job.seed is None else str(job.seed)


def _value(value) -> str:
    """A value for a cell: missing as –, long text cut short."""
    if value is None:
        return "–"
    text = f"{value:,}" if isinstance(value, int) else str(value)
    return text if len(text) <= VALUE_WIDTH else text[: VALUE_WIDTH - 1] + "…"
