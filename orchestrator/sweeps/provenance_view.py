"""Printing where results came from: `orchestrate sweep show` and `orchestrate job`."""

import json
from typing import Any

from orchestrator.sweeps.grid import SweepGrid, stored_grid
from orchestrator.sweeps.job_limits import limits_text
from orchestrator.sweeps.status_view import params_text, status_text
from orchestrator.text import duration_text
from puzzles.textio import plural
from workers.provenance import TIMING, environment, plugins_text
from workers.store.progress import Origin, SweepStatus
from workers.store.sweeps import PluginJobs, SweepRow


def sweep_text(sweep: SweepRow, status: SweepStatus, origins: list[Origin], plugins: list[PluginJobs]) -> str:
    """The sweep's definition, progress, its results per code version, host and software, and the plugins its jobs
    run (`plugins`: `workers.store.sweeps.plugin_jobs`)."""
    grid = stored_grid(sweep)
    shown = {"algorithms": grid.algorithms, "params": grid.params} if grid is not None else {}
    lines = [
        f"sweep:    {sweep.name} (created {sweep.created_at:%Y-%m-%d %H:%M})",
        f"grid:     {json.dumps(shown)}",
        f"runs:     {_runs_text(grid)}",
        f"limits:   {limits_text(sweep.limits)}",
        *status_text(status).splitlines()[1:],
        f"code now: {environment()['code_version']}",
        "results by origin:" if origins else "results by origin: none yet",
    ]
    lines += [f"  {_origin_text(origin)}" for origin in origins]
    lines.append("plugins:" if plugins else "plugins:  none (slidelab's own algorithms and heuristics)")
    lines += [f"  {line}" for line in plugin_lines(plugins)]
    return "\n".join(lines)


def plugin_lines(plugins: list[PluginJobs]) -> list[str]:
    """A line per plugins key of a sweep's jobs: `greedy-search 0.2.0 (source 3f2a9c1b07de): greedy, wastar (40 jobs,
    40 done)`."""
    by_key: dict[str, list[PluginJobs]] = {}
    for group in plugins:
        by_key.setdefault(group.plugins, []).append(group)
    return [f"{plugins_text(key)}: {', '.join(dict.fromkeys(group.algorithm for group in groups))}"
            f" ({plural(sum(group.jobs for group in groups), 'job')}, {sum(group.done for group in groups):,} done)"
            for key, groups in by_key.items()]


def sweep_header(sweep: SweepRow, status: SweepStatus, boards: int, origins: list[Origin]) -> list[tuple[str, str]]:
    """What a report's or the dashboard's header says of a sweep: grid, runs, limits, size, time span, hosts, code."""
    grid = stored_grid(sweep)
    starts = [origin.first_start for origin in origins if origin.first_start]
    ends = [origin.last_finish for origin in origins if origin.last_finish]
    span = "not recorded" if origins else "no results yet"
    if starts and ends:
        span = f"{min(starts):%Y-%m-%d %H:%M:%S} .. {max(ends):%Y-%m-%d %H:%M:%S} ({duration_text((max(ends) - min(starts)).total_seconds())})"
    return [
        ("grid", grid.options_text() if grid is not None else "-"),
        ("runs", _runs_text(grid)),
        ("limits", limits_text(sweep.limits)),
        ("size", f"{plural(status.total, 'job')} on {plural(boards, 'board')}, {status.finished:,} done ({status.phase})"),
        ("created", f"{sweep.created_at:%Y-%m-%d %H:%M:%S}"),
        ("time span", span),
        ("hosts", _tally(origins, lambda origin: origin.host or "-")),
        ("code versions", _tally(origins, _version_text)),
    ]


def _tally(origins: list[Origin], key) -> str:
    """`a (12 results), b (3 results)`: the results per value of `key`, in the order first seen."""
    counts: dict[str, int] = {}
    for origin in origins:
        counts[key(origin)] = counts.get(key(origin), 0) + origin.results
    return ", ".join(f"{name} ({plural(count, 'result')})" for name, count in counts.items()) or "none yet"


def _version_text(origin: Origin) -> str:
    commit = f" (commit {origin.commit[:10]}{' + changes' if origin.dirty else ''})" if origin.commit else ""
    return f"{origin.code_version or 'unknown (before provenance)'}{commit}"


def job_text(record: dict[str, Any]) -> str:
    """A job, its result and the result's provenance as labelled lines."""
    job, result, board = record["job"], record["result"], record["board"]
    optimum = "unknown" if board["known_optimum"] is None else f"{board['known_optimum']} moves"
    seed = "" if job["seed"] is None else f" seed {job['seed']}"
    lost = f", its worker lost {plural(job['lost'], 'time')}" if job.get("lost") else ""
    lease = f", leased by {job['worker_host']} until {job['lease_until']}" if job.get("lease_until") else ""
    lines = [
        f"job:        {job['id']} ({job['job_key'][:12]}) in sweep {record['sweep']}: {job['status']},"
        f" {plural(job['attempts'], 'attempt')}{lost}{lease}",
        f"board:      {board['name'] or '-'} ({board['domain']}, size {board['size']}, known optimum {optimum})",
        f"algorithm:  {job['algorithm']} {params_text(job['params'])}{seed}, repeat {job['repeat']}",
    ]
    if result is None:
        return "\n".join(lines + ["result:     none yet"])
    details = result["provenance"] or {}
    solved = f"{result['moves']:,} moves, {result['steps']:,} steps, " if result["moves"] is not None else ""
    lines += [
        f"result:     {result['outcome']}, {solved}expanded {result['expanded']:,}, generated {result['generated']:,}"
        + _why(result),
        f"time:       {duration_text(result['elapsed_s'])} wall, {_seconds(result['cpu_s'])} cpu,"
        f" {_seconds(result['warmup_s'])} warm-up",
        f"ran:        {result['started_at'] or '-'} .. {result['finished_at'] or '-'} on {result['host'] or '-'}"
        f" (job process {details.get('pid', '-')}, worker process {details.get('worker_pid', '-')},"
        f" speed {details.get('speed', '-')})",
        f"code:       {result['code_version'] or 'unknown (stored before provenance was recorded)'}",
        f"plugins:    {_plugins_text(job, details)}",
    ]
    if details:
        lines += [
            f"commit:     {details['commit'] or 'not a git checkout'}{' with uncommitted changes' if details['dirty'] else ''}",
            f"software:   slidelab {details['slidelab']}, Python {details['python']}, numba {details['numba']},"
            f" numpy {details['numpy']} on {details['platform']} ({details['cpu']})",
            f"as run:     {json.dumps(details['spec'])}",
        ]
    return "\n".join(lines + [f"note:       {TIMING}"])


def _plugins_text(job: dict[str, Any], details: dict[str, Any]) -> str:
    """The plugins that made a job's result, as its provenance records them (none ran if it failed for want of them)."""
    if job.get("plugins") is None:
        return "none (slidelab's own algorithm and heuristic)"
    ran = details.get("plugins")
    if not ran:
        return f"planned with {plugins_text(job['plugins'])}; none ran"
    return ", ".join(f"{plugin['distribution']}{'' if plugin['local'] else ' ' + plugin['version']}"
                     f" (source {plugin['source']})" for plugin in ran)


def _runs_text(grid: SweepGrid | None) -> str:
    """`seeds [1, 2]`, or `repeat 3, derived seeds from 'name'`; `-` for a sweep without one grid."""
    if grid is None:
        return "-"
    seeds = f"seeds {grid.seeds}" if grid.seeds else f"repeat {grid.repeat}"
    return f"{seeds}, derived seeds from {grid.seed_namespace!r}"


def _origin_text(origin: Origin) -> str:
    speed = f", speed {origin.speed:.1f}" if origin.speed is not None else ""
    span = f", {origin.first_start:%Y-%m-%d %H:%M} .. {origin.last_finish:%H:%M}" if origin.first_start else ""
    return f"{origin.results:,} results  {_version_text(origin)}  on {origin.host or '-'}{speed}  ({origin.software}{span})"


def _why(result: dict[str, Any]) -> str:
    why = result["reason"] or result["error"]
    return f" ({why})" if why else ""


def _seconds(value: float | None) -> str:
    return "not measured" if value is None else duration_text(value)
