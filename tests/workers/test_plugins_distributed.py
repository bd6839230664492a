"""Jobs that run plugins go to the Celery workers that have them (issue 48 §3), with real workers, Redis, PostgreSQL.

A plugin is given to a worker by a folder on its PYTHONPATH holding a tiny
package and its `dist-info` (METADATA, entry_points.txt), as pip would leave
it: `route-plugin`, whose algorithm `routed-bfs` is a breadth-first search in
plain Python. A worker started with SLIDELAB_DISABLE_PLUGIN_AUTOLOAD=1 has no
plugin, even with the folder on its path.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import redis
from sqlalchemy import update

from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.plan import plan_sweep, store_plan
from orchestrator.sweeps.sources import load_boards
from orchestrator.sweeps.status_view import unserved_text
from tests.plugin_sources import SHORTEST
from tests.polling import wait_for
from tests.workers import test_distributed
from tests.workers.cluster import BOARDS_6X6, SLOW_START_S, board_paths, status_json
from workers import dispatch
from workers.messages import QUEUE, queue_of, queues_for
from workers.recovery import broker_job_ids
from workers.settings import configure
from workers.store import open_database
from workers.store.plugins import Unserved, unserved_among
from workers.store.schema import jobs
from workers.store.sweeps import unfinished_jobs

cluster = test_distributed.cluster  # the fixture: a fresh PostgreSQL database and Redis database number

ROOT = Path(__file__).resolve().parents[2]
BROKER_DB = 7
OLD, NEW = "route-plugin==0.1.0#0123456789ab", "route-plugin==0.2.0#3f2a9c1b07de"
BEAT = {"SLIDELAB_HEARTBEAT_SECONDS": "1"}
NO_PLUGINS = {"SLIDELAB_DISABLE_PLUGIN_AUTOLOAD": "1"}
ROUTED_BFS = '''
from slidelab.plugin import algorithm
''' + SHORTEST + '''

@algorithm(summary="breadth-first search in plain Python")
def routed_bfs(problem):
    return _shortest(problem)
'''


def plugin_folder(where: Path, version: str) -> Path:
    """A folder holding `route-plugin` at `version` as an installed distribution: put it on a PYTHONPATH."""
    folder = where / f"route-plugin-{version}"
    (folder / "routed_plugin").mkdir(parents=True)
    (folder / "routed_plugin" / "__init__.py").write_text(ROUTED_BFS)
    info = folder / f"route_plugin-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: route-plugin\nVersion: {version}\n")
    (info / "entry_points.txt").write_text("[slidelab.algorithms]\nrouted-bfs = routed_plugin:routed_bfs\n")
    return folder


def on_path(folder: Path) -> dict[str, str]:
    """The environment that puts `folder` (a plugin) on a process's path, beside the checkout."""
    return {"PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)])}


def test_a_job_s_queue_is_named_by_its_plugins_and_a_worker_takes_every_set_of_one_or_two_of_its_own():
    pair = " ".join(sorted((NEW, "blockers-numba==1.0#aaaaaaaaaaaa")))
    assert queue_of(None) == QUEUE
    assert re.fullmatch(r"slidelab\.p\.[0-9a-f]{16}", queue_of(NEW)) and queue_of(NEW) != queue_of(OLD)
    consumed = queues_for([NEW, "blockers-numba==1.0#aaaaaaaaaaaa", "other==2#bbbbbbbbbbbb"])
    assert consumed[0] == QUEUE and len(consumed) == len(set(consumed)) == 1 + 3 + 3
    assert {queue_of(NEW), queue_of(pair)} <= set(consumed) and queue_of(OLD) not in consumed
    assert queues_for([]) == [QUEUE]


def test_what_waits_for_a_worker_names_the_plugins_and_the_versions_workers_have():
    waiting = {NEW: 12, f"{NEW} x==1#cccccccccccc": 1, "y==2#dddddddddddd": 3}
    found = unserved_among(waiting, [(OLD,), (NEW, "y==2#dddddddddddd"), ()])
    assert found == [Unserved((NEW, "x==1#cccccccccccc"), 1, ())]  # NEW alone and y: a live worker has them
    assert [unserved_text(u) for u in unserved_among(waiting, [(OLD,), ()])] == [
        "12 jobs wait for a worker with route-plugin 0.2.0 (workers have route-plugin 0.1.0)",
        "1 job waits for a worker with route-plugin 0.2.0 and x 1 (workers have route-plugin 0.1.0)",
        "3 jobs wait for a worker with y 2",
    ]
    same_version = unserved_among({NEW: 2}, [("route-plugin==0.2.0#999999999999",)])
    assert [unserved_text(u) for u in same_version] == [
        "2 jobs wait for a worker with route-plugin 0.2.0 (sources 3f2a9c1b07de)"
        " (workers have route-plugin 0.2.0 (sources 999999999999))"]


def test_each_batch_goes_to_the_queue_of_its_jobs_plugins_and_the_reconciler_reads_every_queue(redis_server, tmp_path,
                                                                                                boards_dir):
    url = redis_server.url_for(BROKER_DB)
    client = redis.Redis.from_url(url)
    client.flushdb()
    db = open_database(f"sqlite:///{tmp_path / 'routed.db'}")
    sweep_id, _ = store_plan(db, plan_sweep("routed", load_boards(board_paths(boards_dir, BOARDS_6X6)),
                                            SweepGrid(["bfs"], {}, repeat=2)))
    ids = unfinished_jobs(db, sweep_id)
    with db.engine.begin() as connection:
        connection.execute(update(jobs).where(jobs.c.id.in_(ids[1::2])).values(plugins=NEW))
    configure(broker_url=url)
    try:
        assert dispatch.send(db, ids, 1) == len(ids)
        assert client.llen(QUEUE) == client.llen(queue_of(NEW)) == len(ids) // 2
        assert broker_job_ids(url) == set(ids)
    finally:
        client.flushdb()
        client.close()
        db.engine.dispose()


def test_a_plugin_file_sent_to_a_broker_is_refused_in_one_line_and_nothing_is_stored(tmp_path, boards_dir):
    (tmp_path / "mine.py").write_text(ROUTED_BFS.replace("def routed_bfs", "def greedy"))
    env = {key: value for key, value in os.environ.items() if not key.startswith("SLIDELAB_")}
    done = subprocess.run(
        [sys.executable, "-c", "from slidelab.program import run; run()", "sweep", "--algo", "mine.py:greedy", "--name", "mine",
         "--boards", str(boards_dir / BOARDS_6X6[0]), "--db", f"sqlite:///{tmp_path / 'none.db'}",
         "--broker", "redis://127.0.0.1:1/0"],
        cwd=tmp_path, env={**env, **on_path(tmp_path)}, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("error: --algo mine.py:greedy is a file on this machine: install it as a package on the"
                           " workers to run it there (docs/plugins.md)\n")
    db = open_database(f"sqlite:///{tmp_path / 'none.db'}")
    with db.engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM sweeps").scalar() == 0
    db.engine.dispose()


@pytest.mark.timeout(300)
def test_plugin_jobs_wait_for_a_worker_with_their_plugin_and_run_only_there(cluster, boards_dir, tmp_path):
    new, old = plugin_folder(tmp_path, "0.2.0"), plugin_folder(tmp_path, "0.1.0")
    cluster.env.update(on_path(new))  # the orchestrating commands plan with route-plugin 0.2.0
    plain = cluster.worker("plain", env={**BEAT, **NO_PLUGINS})
    older = cluster.worker("older", env={**BEAT, **on_path(old)})
    plain.wait_ready()
    older.wait_ready()
    grid = ("--algo", "routed-bfs,bfs", "--chunk", "1", "--boards", *board_paths(boards_dir, BOARDS_6X6))

    cluster.sweep("--name", "first", "--repeat", "4", *grid)  # queued, not followed
    wait_for(lambda: cluster.scalar("SELECT count(*) FROM jobs WHERE algorithm = 'bfs' AND status = 'done'") == 12,
             SLOW_START_S, "the built-in jobs to be done")
    needed = {row.plugins for row in cluster.sql("SELECT DISTINCT plugins FROM jobs WHERE algorithm = 'routed-bfs'")}
    assert len(needed) == 1 and next(iter(needed)).startswith("route-plugin==0.2.0#")
    assert cluster.scalar("SELECT count(*) FROM jobs WHERE algorithm = 'routed-bfs' AND status = 'queued'") == 12
    wait_for(lambda: cluster.scalar("SELECT count(*) FROM workers WHERE plugins IS NOT NULL") == 2, 30,
             "both workers to advertise their plugins")
    said = cluster.orchestrate("status", "first", "--db", cluster.database_url).stdout
    assert "waiting:  12 jobs wait for a worker with route-plugin 0.2.0 (workers have route-plugin 0.1.0)\n" in said
    (waiting,) = status_json(cluster, "first")["unserved"]
    assert waiting["plugins"] == sorted(needed) and waiting["jobs"] == 12, waiting
    assert [key.split("#")[0] for key in waiting["others"]] == ["route-plugin==0.1.0"], waiting

    having = cluster.worker("having", env={**BEAT, **on_path(new)})
    cluster.wait_finished(24)
    assert re.search(r"plugins: .*route-plugin 0\.2\.0.* \(this worker runs their jobs\)", having.text())
    assert "plugins: none (this worker runs their jobs)" in plain.text()
    advertised = cluster.scalar("SELECT plugins FROM workers WHERE host = :host", host=having.hostname)
    assert set(needed) <= set(advertised) and advertised == sorted(advertised)  # beside what the venv has installed
    hosts = hosts_by_algorithm(cluster, "first")
    assert hosts["routed-bfs"] == {having.hostname} and hosts["bfs"] <= {plain.hostname, older.hostname}, hosts
    assert cluster.sql("SELECT DISTINCT outcome FROM jobs WHERE status = 'done'")[0].outcome == "solved"
    assert "waiting:" not in cluster.orchestrate("status", "first", "--db", cluster.database_url).stdout

    older.kill()
    cluster.sweep("--name", "second", "--repeat", "2", *grid, "--wait", timeout=SLOW_START_S)
    hosts = hosts_by_algorithm(cluster, "second")
    assert hosts["routed-bfs"] == {having.hostname} and hosts["bfs"] <= {having.hostname, plain.hostname}, hosts
    assert cluster.counts()["finished"] == 36 == cluster.scalar("SELECT count(*) FROM results WHERE outcome = 'solved'")


def hosts_by_algorithm(cluster, sweep: str) -> dict[str, set[str]]:
    """The hosts that stored the sweep's results, by algorithm."""
    found: dict[str, set[str]] = {}
    for row in cluster.sql("SELECT j.algorithm, r.host FROM jobs j JOIN results r ON r.job_id = j.id"
                           " JOIN sweeps s ON s.id = j.sweep_id WHERE s.name = :sweep", sweep=sweep):
        found.setdefault(row.algorithm, set()).add(row.host)
    return found
