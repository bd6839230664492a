"""Benchmarks of the experiment runner on real servers: throughput, planning, scaling.

Starts a throwaway Redis and PostgreSQL (as the tests do), real `orchestrate
worker` processes, and times real `orchestrate sweep` commands:

- throughput: 200,000 trivial jobs (a board solved in one move; `--jobs N`)
  through Celery, Redis and PostgreSQL with 2 worker processes, from the first
  job's start to the last one's result, and in the first and the last tenth of
  the results (target: at least 1,000 jobs/s, not falling as the tables grow);
  then the same jobs in the local pool with 2 job processes (target: at least
  as fast as the 2 Celery workers on the same cores);
- planning: a 100,000-job sweep planned, stored and enqueued (target: 20 s);
- scaling: 200 jobs of about 0.2 s on 1 and on 2 worker processes (target: 2
  workers take at most 0.55 times as long as 1);
- heartbeat: what a beat costs, renewing the leases of 1, 100 and 1,000 held
  jobs with one UPDATE (`workers.store.jobs.renew`), per beat and per held job.

Usage: `python bench/runner.py [--only throughput|planning|scaling ...]`; results
also go to bench/runner-results.json.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, text  # noqa: E402

from tests.services import PostgresServer, RedisServer  # noqa: E402

BOARDS = ROOT / "data" / "boards" / "rushhour"
TRIVIAL_BOARD = "oooooooooooooAAooooooooooooooooooooo"  # the red car one move from the exit
ORCHESTRATE = [sys.executable, "-c", "from orchestrator.cli import app; app()"]


class Stack:
    """A Redis, a PostgreSQL and worker processes, with a fresh database per benchmark."""

    def __init__(self, workdir: Path):
        self.redis = RedisServer(workdir / "redis")
        self.postgres = PostgresServer()
        self.workers: list[subprocess.Popen] = []
        self.env: dict[str, str] = {}
        self.database = 0

    def start(self) -> None:
        """Start both servers."""
        self.redis.start()
        self.postgres.start()

    def fresh(self) -> None:
        """A new database and an empty queue for the next benchmark."""
        self.database += 1
        name = f"bench{self.database}"
        self.postgres.create_database(name)
        self.redis.flush()
        url = self.postgres.url.rsplit("/", 1)[0] + f"/{name}"
        self.env = {**os.environ, "SLIDELAB_DATABASE_URL": url, "SLIDELAB_BROKER_URL": self.redis.url}
        self.orchestrate("db", "upgrade")

    def orchestrate(self, *args: str, broker: bool = True) -> float:
        """Run an `orchestrate` command to its end (`broker=False`: without the broker, so a sweep runs in the local
        pool); its wall time in seconds."""
        env = self.env if broker else {name: value for name, value in self.env.items() if name != "SLIDELAB_BROKER_URL"}
        started = time.perf_counter()
        subprocess.run(ORCHESTRATE + list(args), env=env, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - started

    @contextmanager
    def running_workers(self, count: int):
        """`count` worker processes, warmed up on a small sweep, stopped afterwards."""
        self.workers = [
            subprocess.Popen(
                ORCHESTRATE + ["worker", "--concurrency", "1", "--hostname", f"bench{i}@%h"],
                env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
            for i in range(count)
        ]
        try:
            warm = ["--algo", "bfs,beam,astar", "--boards", str(BOARDS / "Rushhour6x6_1.csv"), TRIVIAL_BOARD]
            self.orchestrate("sweep", *warm, "--repeat", str(4 * count), "--chunk", "1", "--name", "warm-up", "--wait")
            yield
        finally:
            for worker in self.workers:
                worker.terminate()
            for worker in self.workers:
                worker.wait(30)

    def count(self, sql: str) -> int:
        """One number from the current database."""
        return self.column(sql)[0]

    def column(self, sql: str) -> list:
        """The first column of a query's rows, from the current database."""
        engine = create_engine(self.env["SLIDELAB_DATABASE_URL"])
        with engine.connect() as connection:
            values = list(connection.execute(text(sql)).scalars())
        engine.dispose()
        return values

    def close(self) -> None:
        """Stop everything."""
        self.redis.close()
        self.postgres.close()


def throughput(stack: Stack, jobs: int) -> list[dict]:
    """`jobs` trivial jobs on 2 Celery workers, then on the local pool's 2 job processes (no broker), each into a new
    database of the same PostgreSQL: from the first job's start to the last result, and in its first and last tenth."""
    stack.fresh()
    trivial = ["sweep", "--algo", "bfs", "--boards", TRIVIAL_BOARD, "--repeat", str(jobs)]
    with stack.running_workers(2):
        stack.orchestrate(*trivial, "--name", "celery", "--wait")
    rows = rates(stack, "celery", "2 Celery workers")
    stack.fresh()
    stack.orchestrate(*trivial, "--name", "local", "--workers", "2", broker=False)
    local = rates(stack, "local", "the local pool, 2 job processes")
    local[0]["target"] = f">= the 2 Celery workers' rate: x{local[0]['jobs_per_s'] / rows[0]['jobs_per_s']:.2f}"
    return rows + local


def rates(stack: Stack, sweep: str, runner: str) -> list[dict]:
    """A finished sweep's jobs per second, from its first job's start to its last result, and in the first and last
    tenth of its results."""
    jobs = f" from jobs j join sweeps s on s.id = j.sweep_id where s.name = '{sweep}'"
    first = stack.count("select extract(epoch from min(j.started_at))" + jobs)
    done = [float(t) for t in stack.column("select extract(epoch from j.finished_at)" + jobs + " order by 1")]
    tenth = len(done) // 10
    rows = [(f"{len(done):,} trivial jobs, {runner}, first job to last", len(done), done[-1] - float(first))]
    rows += [(f"  their {which} tenth", tenth, done[end] - done[start])
             for which, start, end in (("first", 0, tenth - 1), ("last", len(done) - tenth, len(done) - 1))]
    return [{"case": case, "jobs": count, "seconds": round(seconds, 2), "jobs_per_s": round(count / seconds),
             "target": ">= 1,000 jobs/s"} for case, count, seconds in rows]


def planning(stack: Stack) -> dict:
    """A 100,000-job sweep planned, stored and enqueued, no worker running."""
    stack.fresh()
    boards = [str(path) for path in sorted(BOARDS.glob("*.csv"))]
    seconds = stack.orchestrate("sweep", "--algo", "beam", "--k", "1..7143", "--heuristic", "blockers,blockers-lb",
                                "--boards", *boards, "--name", "planning")
    jobs = stack.count("select count(*) from jobs where status = 'queued'")
    return {"case": "plan and enqueue a 100k-job sweep", "jobs": jobs, "seconds": round(seconds, 2),
            "jobs_per_s": round(jobs / seconds), "target": "<= 20 s"}


def scaling(stack: Stack) -> list[dict]:
    """200 jobs of about 0.2 s each (BFS on 9x9_4 stopped after 200,000 states), on 1 and 2 workers."""
    rows = []
    for workers in (1, 2):
        stack.fresh()
        with stack.running_workers(workers):
            seconds = stack.orchestrate("sweep", "--algo", "bfs", "--boards", str(BOARDS / "Rushhour9x9_4.csv"),
                                        "--repeat", "200", "--max-nodes", "200000", "--name", "scaling", "--wait")
        mean = stack.count("select avg(elapsed_s) * 1000 from results")
        rows.append({"case": f"200 jobs of ~0.2 s, {workers} worker(s)", "jobs": 200, "seconds": round(seconds, 2),
                     "jobs_per_s": round(200 / seconds, 1), "mean_job_ms": round(mean)})
    rows[1]["target"] = f"<= 0.55 x 1 worker: {rows[1]['seconds'] / rows[0]['seconds']:.2f}"
    return rows


def heartbeat(stack: Stack) -> list[dict]:
    """The heartbeat's UPDATE for 1, 100 and 1,000 held jobs, timed over 50 beats each."""
    from workers.store import connect
    from workers.store.jobs import claim, renew

    stack.fresh()
    stack.orchestrate("sweep", "--algo", "bfs", "--boards", TRIVIAL_BOARD, "--repeat", "1000", "--name", "held")
    db = connect(stack.env["SLIDELAB_DATABASE_URL"])
    ids = [job.job_id for job in claim(db, range(1, 1001), "bench-host", 45)]
    rows = []
    for held in (1, 100, 1000):
        renew(db, ids[:held], "bench-host", 45)  # a connection in the pool
        started = time.perf_counter()
        for _ in range(50):
            renew(db, ids[:held], "bench-host", 45)
        beat = (time.perf_counter() - started) / 50
        rows.append({"case": f"heartbeat, {held:,} held jobs", "jobs": held, "seconds": round(beat, 5),
                     "jobs_per_s": round(held / beat), "us_per_job": round(beat / held * 1e6, 1)})
    db.engine.dispose()
    return rows


BENCHMARKS = {"throughput": throughput, "planning": planning, "scaling": scaling, "heartbeat": heartbeat}


def main() -> None:
    """Run the selected benchmarks and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=list(BENCHMARKS), default=list(BENCHMARKS))
    parser.add_argument("--jobs", type=int, default=200_000, help="trivial jobs of the throughput benchmark")
    args = parser.parse_args()
    workdir = Path(os.environ.get("TMPDIR", "/tmp")) / f"slidelab-bench-{os.getpid()}"
    workdir.mkdir(parents=True)
    stack = Stack(workdir)
    results: list[dict] = []
    try:
        stack.start()
        for name in args.only:
            outcome = BENCHMARKS[name](stack, args.jobs) if name == "throughput" else BENCHMARKS[name](stack)
            results += outcome if isinstance(outcome, list) else [outcome]
            print(*(json.dumps(row) for row in (outcome if isinstance(outcome, list) else [outcome])), sep="\n", flush=True)
    finally:
        stack.close()
    print("\n| case | jobs | seconds | jobs/s | target |\n|---|---:|---:|---:|---|")
    for row in results:
        print(f"| {row['case']} | {row['jobs']:,} | {row['seconds']} | {row['jobs_per_s']:,} | {row.get('target', '')} |")
    (ROOT / "bench" / "runner-results.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
