"""A million jobs (issue 33): a sweep of 10^6 finished jobs planned, stored, watched, reported and exported.

On SQLite and on a throwaway PostgreSQL (as the tests start it): the sweep
(beam, k 1..100, 2,000 repeats, on five Rush Hour boards) is planned and
stored by the real path (`plan_sweep`, `store_plan`), then finished with
made-up results through the storage layer (`workers.store.jobs.record`, 20,000
jobs a call) rather than run; on PostgreSQL the tables are then vacuumed, as
autovacuum would soon after such a load; each command is then timed as a user runs it,
in a process of its own whose peak memory GNU time reads. Then the dashboard
is timed on `big` while its last ARRIVING jobs get their results again, 200
every quarter second, as if it were running. Every row is printed with its
target and `met` or `missed`.

Usage: `python bench/million.py [--jobs N] [--only sqlite|postgresql ...]`;
results also go to bench/million-results.json.
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from sqlalchemy import Select, select  # noqa: E402

from orchestrator.sweeps.grid import SweepGrid  # noqa: E402
from orchestrator.sweeps.plan import plan_sweep, store_plan  # noqa: E402
from orchestrator.sweeps.sources import load_boards  # noqa: E402
from puzzles.result import Outcome  # noqa: E402
from workers.store import open_database  # noqa: E402
from workers.store.jobs import record  # noqa: E402
from workers.store.records import JobResult  # noqa: E402
from workers.store.schema import jobs as jobs_table  # noqa: E402
from workers.store.schema import results as results_table  # noqa: E402
from workers.store.schema import sweeps  # noqa: E402
from workers.store.sweeps import unfinished_jobs  # noqa: E402

BOARDS = [str(ROOT / "data" / "boards" / "rushhour" / f"Rushhour{name}.csv")
          for name in ("6x6_1", "6x6_2", "6x6_3", "9x9_4", "9x9_5")]
ORCHESTRATE = [sys.executable, "-c", "from orchestrator.cli import app; app()"]
CHUNK = 20_000
GIB = 1 << 30
ARRIVING, ARRIVAL_BATCH, ARRIVAL_PAUSE_S = 50_000, 200, 0.25  # the dashboard's running sweep: about 800 results a second
OUTCOMES = [(0.85, Outcome.SOLVED), (0.95, Outcome.FAILED), (0.99, Outcome.LIMIT), (1.0, Outcome.ERROR)]


def grid(jobs: int) -> SweepGrid:
    """beam, k 1..100, on the five boards: `jobs` // 500 repeats."""
    return SweepGrid(["beam"], {"k": list(range(1, 101))}, repeat=max(1, jobs // 500))


def made_up(job_ids: list[int], rng: np.random.Generator) -> list[tuple[int, JobResult]]:
    """Plausible results: 85% solved, 10% failed, 4% limit, 1% error; node counts and times log-normal."""
    draws, moves = rng.random(len(job_ids)), rng.integers(8, 60, len(job_ids))
    expanded, elapsed = rng.lognormal(8, 1.5, len(job_ids)).astype(int), rng.lognormal(-4, 1, len(job_ids))
    start = datetime(2026, 12, 5, tzinfo=UTC)
    found = []
    for i, job_id in enumerate(job_ids):
        outcome = next(outcome for share, outcome in OUTCOMES if draws[i] < share)
        solved = outcome == Outcome.SOLVED
        found.append((job_id, JobResult(
            outcome=outcome, moves=int(moves[i]) if solved else None, steps=int(moves[i]) if solved else None,
            expanded=int(expanded[i]), generated=3 * int(expanded[i]), max_frontier=int(expanded[i]) // 2,
            stored=int(expanded[i]), elapsed_s=float(elapsed[i]), cpu_s=float(elapsed[i]), warmup_s=0.0,
            peak_mem_bytes=50_000_000, reason=None if solved else "gave up", started_at=start,
            finished_at=start + timedelta(seconds=float(elapsed[i])), host="bench@host", code_version="bench",
            provenance={"speed": 100.0})))
    return found


def make_sweep(url: str, name: str, jobs: int) -> dict:
    """Plan and store the sweep, then finish every job with made-up results; the seconds each took."""
    db = open_database(url)
    started = time.perf_counter()
    plan = plan_sweep(name, load_boards(BOARDS), grid(jobs))
    sweep_id, _ = store_plan(db, plan)
    stored = time.perf_counter() - started
    del plan
    started, rng = time.perf_counter(), np.random.default_rng(0)
    ids = unfinished_jobs(db, sweep_id)
    for start in range(0, len(ids), CHUNK):
        record(db, made_up(ids[start : start + CHUNK], rng))
    db.engine.dispose()
    return {"plan_store_s": stored, "finish_s": time.perf_counter() - started, "jobs": len(ids)}


def settle(url: str) -> float:
    """On PostgreSQL, what autovacuum does within a minute or two of a bulk load, done now: every table vacuumed and
    analysed (the seconds it took; 0 on SQLite, which has no such work).

    The commands timed next would otherwise share the cores with that vacuum
    and read pages it had not yet marked all-visible.
    """
    db = open_database(url)
    if db.engine.dialect.name != "postgresql":
        return 0.0
    started = time.perf_counter()
    with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql("VACUUM (ANALYZE)")
    db.engine.dispose()
    return time.perf_counter() - started


def timed(command: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Run a command to its end: (wall seconds, peak resident bytes of its process, as GNU time reads it).

    (A child's own `wait4` would count this process's memory at the fork.)
    """
    started = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M", *command], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[3:])} failed: {done.stderr[-500:]}")
    return seconds, int(done.stderr.split()[-1]) * 1024


def row(case: str, seconds: float, target_s: float | None, peak: int | None = None,
        target_bytes: int | None = None) -> dict:
    """A row of the table: the figures, the targets and whether they were met (no target: a figure only)."""
    met = (target_s is None or seconds <= target_s) and (target_bytes is None or peak is None or peak <= target_bytes)
    target = "" if target_s is None else f"<= {target_s:g} s" + (f", <= {target_bytes / GIB:g} GiB" if target_bytes else "")
    return {"case": case, "seconds": round(seconds, 2), "peak_mib": None if peak is None else round(peak / 2**20),
            "target": target, "verdict": "" if target_s is None else "met" if met else "missed"}


def commands(url: str, workdir: Path) -> list[dict]:
    """Every command of the issue's targets, timed on the sweeps `big` and `big2`; first `status` of `small`, what
    any command costs before its own work."""
    env = {**os.environ, "SLIDELAB_DATABASE_URL": url}
    orchestrate = [*ORCHESTRATE]
    cases = [
        ("status of a 500-job sweep beside it: start-up and connection, the floor", ["status", "small"], None, None),
        ("status", ["status", "big"], 1, None),
        ("sweeps", ["sweeps"], 1, None),
        ("jobs --limit 20", ["jobs", "big", "--limit", "20"], 1, None),
        ("report", ["report", "big"], 10, 1.5 * GIB),
        ("report --by algorithm,k", ["report", "big", "--by", "algorithm,k"], 10, None),
        ("compare big big2", ["compare", "big", "big2"], 20, None),
        ("export --format parquet", ["export", "big", "--format", "parquet", "--out", str(workdir / "big.parquet")],
         15, 1.5 * GIB),
        ("export --format csv", ["export", "big", "--format", "csv", "--out", str(workdir / "big.csv")], 30, None),
        ("report --format html", ["report", "big", "--format", "html", "--out", str(workdir / "big.html")], 30, None),
    ]
    rows = []
    for case, args, target_s, target_bytes in cases:
        seconds, peak = timed([*orchestrate, *args], env)
        rows.append(row(case, seconds, target_s, peak, target_bytes))
        print(rows[-1], flush=True)
    script = f"import slidelab; slidelab.results('big', db={url!r})"
    seconds, peak = timed([sys.executable, "-c", script], env)
    rows.append(row("slidelab.results(sweep)", seconds, 10, peak))
    return rows


def dashboard(url: str) -> list[dict]:
    """`orchestrate dashboard` on the sweep `big`: its first answers, then its slowest while results arrive."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([*ORCHESTRATE, "dashboard", "--port", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env={**os.environ, "SLIDELAB_DATABASE_URL": url})
    try:
        get = _getter(f"http://127.0.0.1:{port}")
        while _answer(get, "/api/overview") is None:
            time.sleep(0.2)
        first_s, page = _timed_get(get, "/api/sweep/big")
        started = time.perf_counter()
        while "header" not in page:
            time.sleep(0.5)
            page = get("/api/sweep/big")
        made_s = time.perf_counter() - started
        rows = [row("dashboard: a sweep page's first answer", first_s, 2),
                row("dashboard: that page made", made_s, None)]
        slowest, versions, seconds = _while_results_arrive(url, get)
        rows += [row(f"dashboard, {ARRIVING:,} results arriving over {seconds:.0f} s: slowest sweep page", slowest[0], 2),
                 row(f"  the same: slowest overview ({versions} new pages of the sweep made meanwhile)", slowest[1], 2)]
    finally:
        server.terminate()
        server.wait(30)
    for item in rows:
        print(item, flush=True)
    return rows


def _getter(base: str):
    def get(path: str) -> dict:
        with urllib.request.urlopen(base + path, timeout=120) as response:
            return json.load(response)
    return get


def _answer(get, path: str) -> dict | None:
    try:
        return get(path)
    except OSError:
        return None


def _timed_get(get, path: str) -> tuple[float, dict]:
    started = time.perf_counter()
    answer = get(path)
    return time.perf_counter() - started, answer


def _while_results_arrive(url: str, get) -> tuple[list[float], int, float]:
    """The last ARRIVING jobs of `big` lose their results, then get them back while both pages are asked for every
    half second: ([slowest sweep page, slowest overview], pages of the sweep made, seconds)."""
    db = open_database(url)
    with db.engine.begin() as connection:
        ids = sorted(connection.scalars(select_last_jobs(ARRIVING)))
        connection.execute(results_table.delete().where(results_table.c.job_id.in_(ids)))
        connection.execute(jobs_table.update().where(jobs_table.c.id.in_(ids))
                           .values(status="queued", outcome=None, finished_at=None))
    rng = np.random.default_rng(1)

    def arrive() -> None:
        for start in range(0, len(ids), ARRIVAL_BATCH):
            record(db, made_up(ids[start : start + ARRIVAL_BATCH], rng))
            time.sleep(ARRIVAL_PAUSE_S)

    writer = threading.Thread(target=arrive)
    started = time.perf_counter()
    writer.start()
    slowest, versions = [0.0, 0.0], set()
    while writer.is_alive():
        for i, path in enumerate(("/api/sweep/big", "/api/overview")):
            seconds, answer = _timed_get(get, path)
            slowest[i] = max(slowest[i], seconds)
            if i == 0:
                versions.add(answer.get("version"))
        time.sleep(0.5)
    writer.join()
    db.engine.dispose()
    return slowest, len(versions) - 1, time.perf_counter() - started  # pages made beyond the one already there


def select_last_jobs(count: int) -> Select:
    """The ids of the sweep `big`'s last `count` jobs."""
    big = select(sweeps.c.id).where(sweeps.c.name == "big").scalar_subquery()
    return select(jobs_table.c.id).where(jobs_table.c.sweep_id == big).order_by(jobs_table.c.id.desc()).limit(count)


def dry_run(workdir: Path, jobs: int) -> dict:
    """`sweep --dry-run` of the grid, on an empty SQLite database."""
    url = f"sqlite:///{workdir / 'dry.db'}"
    open_database(url).engine.dispose()
    command = [*ORCHESTRATE, "sweep", "--name", "dry", "--algo", "beam", "--k", "1..100", "--repeat",
               str(grid(jobs).repeat), "--boards", *BOARDS, "--dry-run", "--db", url]
    seconds, peak = timed(command, dict(os.environ))
    return row(f"sweep --dry-run, {jobs:,} jobs", seconds, 10, peak)


def backend(name: str, url: str, workdir: Path, jobs: int) -> list[dict]:
    """The table of one database: the sweep made (twice, for compare), then every command."""
    made = make_sweep(url, "big", jobs)
    print(f"{name}: {made}", flush=True)
    make_sweep(url, "big2", jobs)
    make_sweep(url, "small", 1)
    rows = [row(f"plan and store {made['jobs']:,} jobs", made["plan_store_s"], 60),
            row("VACUUM (ANALYZE) after the load, as autovacuum would", settle(url), None)]
    rows += commands(url, workdir)
    rows += dashboard(url)
    return [{"database": name, **item} for item in rows]


def main() -> None:
    """Run the benchmark on the chosen databases and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1_000_000)
    parser.add_argument("--only", nargs="*", choices=["sqlite", "postgresql"], default=["sqlite", "postgresql"])
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="slidelab-million-") as folder:
        workdir = Path(folder)
        rows.append({"database": "sqlite", **dry_run(workdir, args.jobs)})
        if "sqlite" in args.only:
            rows += backend("sqlite", f"sqlite:///{workdir / 'million.db'}", workdir, args.jobs)
        if "postgresql" in args.only:
            from tests.services import PostgresServer

            server = PostgresServer()
            try:
                server.start()
                server.create_database()
                rows += backend("postgresql", server.url, workdir, args.jobs)
            finally:
                server.close()
    load = os.getloadavg()[0]
    print(f"\n{args.jobs:,} jobs, load average {load:.2f} at the end\n")
    print("| database | case | seconds | peak MiB | target | verdict |\n|---|---|---:|---:|---|---|")
    for item in rows:
        print(f"| {item['database']} | {item['case']} | {item['seconds']} | {item['peak_mib'] or ''} | {item['target']} |"
              f" {item['verdict']} |")
    (ROOT / "bench" / "million-results.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
