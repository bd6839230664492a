"""`orchestrate dashboard`: its JSON through Starlette's test client, read only on SQLite and PostgreSQL, and live in
headless Chromium against the real server while results are stored."""

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from urllib.error import HTTPError
from urllib.request import urlopen

import pytest
from sqlalchemy import update
from sqlalchemy.exc import DBAPIError
from starlette.testclient import TestClient

from orchestrator.publish.dashboard import TOKEN_COOKIE, SweepPages, listen, make_app, sweep_payload
from tests.browser import browser_page, plotted
from tests.orchestrator.clirun import assert_usage_error, orchestrate
from tests.orchestrator.dashboard_client import newer_page
from tests.orchestrator.handmade import NAME, beam_sweep, result_for, store_result
from tests.polling import wait_for
from workers.store import connect
from workers.store.activity import record_beat
from workers.store.database import open_read_only
from workers.store.jobs import claim, job_inputs, record
from workers.store.migrate import upgrade
from workers.store.records import utc_now
from workers.store.schema import workers

LIVE_S = 5.0  # a result stored shows on the open pages within this


def running_sweep(url: str, boards_dir) -> tuple[str, list[int]]:
    """The hand-made sweep with its last four jobs pending, two of them running on worker w1@host."""
    ids = beam_sweep(url, boards_dir, leave=4)
    claim(connect(url), ids[-2:], "w1@host", 60)
    return url, ids


@pytest.fixture
def results(db_url, boards_dir) -> tuple[str, list[int]]:
    """The running sweep in SQLite and in PostgreSQL."""
    return running_sweep(db_url, boards_dir)


@pytest.fixture
def sqlite_results(tmp_path, boards_dir) -> tuple[str, list[int]]:
    """The running sweep in a SQLite file."""
    url = f"sqlite:///{tmp_path / 'dash.db'}"
    upgrade(url)
    return running_sweep(url, boards_dir)


def test_the_overview_has_sweeps_hosts_with_their_jobs_and_recent_results(results):
    url, ids = results
    client = TestClient(make_app(open_read_only(url)))
    overview = client.get("/api/overview").json()

    (sweep,) = overview["sweeps"]
    assert (sweep["name"], sweep["total"], sweep["finished"], sweep["phase"]) == (NAME, 20, 16, "running")
    assert set(sweep["outcomes"].split(", ")) == {"solved 8", "failed 8"} and sweep["limits"] == "none"
    held = next(host for host in overview["hosts"] if host["host"] == "w1@host")
    assert [job["id"] for job in held["held"]] == ids[-2:] and held["held"][0]["sweep"] == NAME
    assert all(job["lease_until"] for job in held["held"])  # the lease each worker renews
    assert next(host for host in overview["hosts"] if host["host"] == "hand@test")["results"] == 16
    assert [row["id"] for row in overview["recent"]][:3] == [ids[15], ids[14], ids[13]]
    assert overview["problems"] == []
    assert "<h1>slidelab dashboard</h1>" in client.get("/").text


def beat(url: str, host: str, ago: timedelta = timedelta(0)) -> None:
    """A heartbeat of the worker `host`, dated `ago` back (a worker stopped by SIGTERM beats no more)."""
    db = connect(url)
    record_beat(db, host, lease_s=45)
    with db.engine.begin() as connection:
        connection.execute(update(workers).where(workers.c.host == host).values(beat_at=utc_now() - ago))


def test_workers_show_online_or_offline_by_their_heartbeats_with_their_throughput(results):
    url, ids = results
    beat(url, "w2@idle")  # alive, holding nothing
    beat(url, "w3@gone", timedelta(minutes=10))  # silent for more than a lease
    overview = TestClient(make_app(open_read_only(url))).get("/api/overview").json()

    hosts = {host["host"]: host for host in overview["hosts"]}
    assert [host["host"] for host in overview["hosts"]] == ["w1@host", "w2@idle", "hand@test", "w3@gone"]
    assert {name: host["online"] for name, host in hosts.items()} == {
        "w1@host": True, "w2@idle": True, "hand@test": False, "w3@gone": False}  # w1: leases held, no beat yet
    assert hosts["w2@idle"]["beat_at"] and hosts["w2@idle"]["since"] and hosts["w1@host"]["beat_at"] is None
    assert len(hosts["w1@host"]["held"]) == 2 and hosts["w2@idle"]["held"] == []
    assert hosts["hand@test"]["throughput"][-1] == 16 and sum(hosts["hand@test"]["throughput"]) == 16
    assert len(hosts["w3@gone"]["throughput"]) == 30 and sum(hosts["w3@gone"]["throughput"]) == 0
    (sweep,) = overview["sweeps"]
    assert "eta_s" not in sweep and sweep["pace"].count("ETA") <= 1  # the ETA once, in the pace


def test_beyond_loopback_a_request_without_the_token_is_refused(sqlite_results):
    app = make_app(open_read_only(sqlite_results[0]), token="s3cret-token")
    client = TestClient(app)
    for path in ("/", "/api/overview", f"/api/sweep/{NAME}", "/static/plotly.js", "/?token=s3cret-tokeN"):
        refused = client.get(path)
        assert refused.status_code == 403 and "needs its token" in refused.text and "sweep" not in refused.text
    served = client.get("/", params={"token": "s3cret-token"})
    assert served.status_code == 200 and "<h1>slidelab dashboard</h1>" in served.text
    assert client.cookies.get(TOKEN_COOKIE) == "s3cret-token"
    assert client.get("/api/overview").json()["sweeps"][0]["name"] == NAME  # the cookie carries it from then on
    bearer = TestClient(app).get("/api/overview", headers={"Authorization": "Bearer s3cret-token"})
    assert bearer.status_code == 200
    assert TestClient(app, cookies={TOKEN_COOKIE: ""}).get("/api/overview").status_code == 403


def test_a_sweep_page_is_computed_again_only_when_its_results_change(results, boards_dir):
    url, ids = results
    client = TestClient(make_app(open_read_only(url)))
    first = newer_page(client, NAME)

    assert [figure["title"] for figure in first["figures"]][:2] == ["beam: solution length vs k", "beam: time vs k"]
    assert "<dt>size</dt><dd>20 jobs on 2 boards, 16 done (running)</dd>" in first["header"]
    assert first["boards"].count('class="board-card"') == 2 and '<table class="summary">' in first["table"]
    assert client.get(f"/api/sweep/{NAME}", params={"since": first["version"]}).json() == {
        "version": first["version"], "same": True}
    store_result(url, ids[-1], boards_dir)
    second = newer_page(client, NAME, first["version"])
    assert "17 done" in second["header"]
    missing = client.get("/api/sweep/nope")
    assert missing.status_code == 404 and "nope" in missing.json()["error"]


def test_a_slow_sweep_page_is_made_aside_while_the_last_one_is_served(sqlite_results, boards_dir):
    """A million-job sweep's page takes ~20 s to make: requests do not wait for it, and nothing unchanged is made again.

    The first request waits `wait_s` for the first page; once a page has taken longer than that to make, a request
    answers at once with the last page."""
    url, ids = sqlite_results
    release, made = threading.Event(), []

    def slow_page(db, sweep):  # as slow as the test wants
        made.append(sweep.name)
        assert release.wait(60)
        return sweep_payload(db, sweep)

    pages = SweepPages(open_read_only(url), make=slow_page, wait_s=3)
    asked = time.monotonic()
    assert pages.payload(NAME) == {"version": "", "pending": f"making the page of sweep {NAME}"}
    assert time.monotonic() - asked >= 3
    time.sleep(0.5)  # the first page takes clearly longer than the wait, however late its thread started
    release.set()
    first = wait_for(lambda: pages.payload(NAME).get("header") and pages.payload(NAME), 30, "the first page")
    assert "16 done" in first["header"] and pages.payload(NAME) is first and made == [NAME]  # not made again

    release.clear()
    store_result(url, ids[-1], boards_dir)
    asked = time.monotonic()
    assert pages.payload(NAME) is first and time.monotonic() - asked < 3  # the last page at once, while the new is made
    wait_for(lambda: made == [NAME, NAME], 30, "the new page to be started")
    assert pages.payload(NAME) is first and pages.payload(NAME) is first  # however many ask, one page is made
    release.set()
    second = wait_for(lambda: "17 done" in pages.payload(NAME)["header"] and pages.payload(NAME), 30, "the new page")
    assert second["version"] != first["version"] and made == [NAME, NAME]


def test_a_page_that_needs_a_missing_extra_says_which_and_is_tried_again(sqlite_results):
    url, _ = sqlite_results

    def without_optuna(db, sweep):  # as a study's page is made where the tune extra is not installed
        raise ImportError("No module named 'optuna'", name="optuna")

    pages = SweepPages(open_read_only(url), make=without_optuna, wait_s=5)
    said = pages.payload(NAME)
    assert said == {"version": "", "error": "a study's page needs optuna: pip install 'slidelab[tune]'"}
    assert not pages.making  # nothing left half made: the next request tries again


def test_the_dashboard_answers_only_gets(sqlite_results):
    client = TestClient(make_app(open_read_only(sqlite_results[0])))
    for path in ("/", "/api/overview", f"/api/sweep/{NAME}"):
        assert client.post(path).status_code == 405 and client.delete(path).status_code == 405
    assert client.get("/static/plotly.js").text.count("plotly") > 10


def test_its_connections_cannot_write(db_url, boards_dir):
    ids = beam_sweep(db_url, boards_dir, leave=1)
    reader = open_read_only(db_url)
    with pytest.raises(DBAPIError, match="(?i)read.?only"):
        record(reader, [(ids[-1], result_for(job_inputs(reader, ids[-1:])[0], boards_dir))])
    assert job_inputs(reader, ids[-1:])  # reading works


def test_the_command_says_what_is_wrong_in_one_line(tmp_path, sqlite_results):
    assert_usage_error(orchestrate("dashboard", "--db", f"sqlite:///{tmp_path / 'none.db'}"), "no results database")
    assert_usage_error(orchestrate("dashboard", "--db", sqlite_results[0], "--token", ""),
                       "--token: give at least 8 characters, or none to have one made")
    taken = listen("127.0.0.1", 0)
    try:
        busy = orchestrate("dashboard", "--db", sqlite_results[0], "--port", taken.getsockname()[1])
    finally:
        taken.close()
    assert busy.exit_code == 1 and busy.stderr.startswith("error: cannot listen on 127.0.0.1:") and "Traceback" not in busy.output


@contextmanager
def dashboard(url: str, *options) -> Iterator[str]:
    """`orchestrate dashboard --port 0 OPTIONS` running on the results at `url`; the line it printed at start."""
    command = [sys.executable, "-c", "from orchestrator.cli import app; app()", "dashboard", "--db", url, "--port", "0",
               *options]
    environment = {key: value for key, value in os.environ.items() if key != "SLIDELAB_DASHBOARD_TOKEN"}
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=environment)
    try:
        yield process.stderr.readline()
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def server(sqlite_results):
    """`orchestrate dashboard --port 0` running on the SQLite results (on loopback: no token); its address."""
    with dashboard(sqlite_results[0]) as line:
        found = re.search(r"at (http://127\.0\.0\.1:\d+) \(read only", line)
        assert found, line
        yield found.group(1)


def test_on_all_addresses_it_prints_a_url_with_a_new_token_and_serves_only_with_it(sqlite_results):
    with dashboard(sqlite_results[0], "--host", "0.0.0.0") as line:
        found = re.search(r"at http://[^/\s]+:(\d+)/\?token=([\w-]{32}) \(read only", line)
        assert found, line
        local = f"http://127.0.0.1:{found.group(1)}/api/overview"
        with pytest.raises(HTTPError) as refused:
            urlopen(local, timeout=60)
        assert refused.value.code == 403
        with urlopen(f"{local}?token={found.group(2)}", timeout=60) as served:
            assert served.status == 200 and b'"sweeps"' in served.read()


def test_chromium_shows_a_result_stored_while_the_pages_are_open(sqlite_results, server, boards_dir):
    url, ids = sqlite_results
    beat(url, "w3@gone", timedelta(days=1))  # its last heartbeat: yesterday, shown with its date
    with browser_page() as (page, errors):
        page.goto(server + "/")
        page.wait_for_selector("#sweeps tbody tr")
        sweeps = page.inner_text("#sweeps tbody")
        held = page.inner_text("#hosts tbody")
        workers_shown = {row[0]: row for row in page.eval_on_selector_all(
            "#hosts tbody tr", "rows => rows.map(r => Array.from(r.cells, c => c.innerText))")}
        charts = page.eval_on_selector_all("#hosts svg.throughput polyline", "lines => lines.length")
        report = page.context.new_page()
        report.goto(f"{server}/sweep/{NAME}")
        report.wait_for_selector("#plots .js-plotly-plot .main-svg")
        before = plotted(report)
        version = report.get_attribute("body", "data-version")

        stored = time.monotonic()
        store_result(url, ids[-1], boards_dir)  # beam k=4 seed 2 on Rushhour6x6_2: the first result of k=4 there
        page.wait_for_selector(f'#recent tbody tr[data-key="{ids[-1]}"]', timeout=LIVE_S * 1000)
        report.wait_for_function(f"document.body.dataset.version !== {version!r}", timeout=LIVE_S * 1000)
        seen = time.monotonic() - stored
        after = plotted(report)
        cards = report.eval_on_selector_all(".board-card", "cards => cards.map(c => c.querySelectorAll('.vehicle').length)")

    assert errors == []
    assert NAME in sweeps and "16 / 20" in sweeps and "running" in sweeps
    assert "w1@host" in held and str(ids[-1]) in held
    assert sweeps.count("ETA") == 1  # once, in the pace
    assert workers_shown["w1@host"][1] == "online" and workers_shown["w3@gone"][1] == "offline"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", workers_shown["w3@gone"][2])  # not today: dated
    assert re.fullmatch(r"\d\d:\d\d:\d\d", workers_shown["hand@test"][-1])  # today: the time alone
    assert charts == 3  # a throughput chart per worker
    assert len(before) == 11 and all(figure["traces"] and figure["points"] and figure["drawn"] for figure in before)
    earlier, now = (next(figure for figure in figures if figure["title"].startswith("beam: solution length vs k"))
                    for figures in (before, after))
    assert "left out, no data: Rushhour6x6_2" in earlier["title"] and "Rushhour6x6_2" not in earlier["lines"]
    assert now["lines"]["Rushhour6x6_2"] == [4] and "left out" not in now["title"]  # the new result: k = 4 on it
    assert seen < LIVE_S and cards == [13, 13]
