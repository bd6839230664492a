"""`orchestrate dashboard`: its JSON through Starlette's test client, read only on SQLite and PostgreSQL, and live in
headless Chromium against the real server while results are stored."""

import re
import subprocess
import sys
import time

import pytest
from sqlalchemy.exc import DBAPIError
from starlette.testclient import TestClient

from orchestrator.publish.dashboard import listen, make_app
from tests.browser import browser_page, plotted
from tests.orchestrator.clirun import assert_usage_error, orchestrate
from tests.orchestrator.handmade import NAME, beam_sweep, result_for, store_result
from workers.store import connect
from workers.store.database import open_read_only, upgrade
from workers.store.jobs import claim, job_inputs, record

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


def test_a_sweep_page_is_computed_again_only_when_its_results_change(results, boards_dir):
    url, ids = results
    client = TestClient(make_app(open_read_only(url)))
    first = client.get(f"/api/sweep/{NAME}").json()

    assert [figure["title"] for figure in first["figures"]][:2] == ["beam: solution length vs k", "beam: time vs k"]
    assert "<dt>size</dt><dd>20 jobs on 2 boards, 16 done (running)</dd>" in first["header"]
    assert first["boards"].count('class="board-card"') == 2 and '<table class="summary">' in first["table"]
    assert client.get(f"/api/sweep/{NAME}", params={"since": first["version"]}).json() == {
        "version": first["version"], "same": True}
    store_result(url, ids[-1], boards_dir)
    second = client.get(f"/api/sweep/{NAME}", params={"since": first["version"]}).json()
    assert second["version"] != first["version"] and "17 done" in second["header"]
    missing = client.get("/api/sweep/nope")
    assert missing.status_code == 404 and "nope" in missing.json()["error"]


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
    taken = listen("127.0.0.1", 0)
    try:
        busy = orchestrate("dashboard", "--db", sqlite_results[0], "--port", taken.getsockname()[1])
    finally:
        taken.close()
    assert busy.exit_code == 1 and busy.stderr.startswith("error: cannot listen on 127.0.0.1:") and "Traceback" not in busy.output


@pytest.fixture
def server(sqlite_results):
    """`orchestrate dashboard --port 0` running on the SQLite results; its address."""
    command = [sys.executable, "-c", "from orchestrator.cli import app; app()", "dashboard", "--db", sqlite_results[0],
               "--port", "0"]
    process = subprocess.Popen(command,
                               stderr=subprocess.PIPE, text=True)
    try:
        line = process.stderr.readline()
        found = re.search(r"at (http://127\.0\.0\.1:\d+) \(read only", line)
        assert found, line
        yield found.group(1)
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_chromium_shows_a_result_stored_while_the_pages_are_open(sqlite_results, server, boards_dir):
    url, ids = sqlite_results
    with browser_page() as (page, errors):
        page.goto(server + "/")
        page.wait_for_selector("#sweeps tbody tr")
        sweeps = page.inner_text("#sweeps tbody")
        held = page.inner_text("#hosts tbody")
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
    assert len(before) == 7 and all(figure["traces"] and figure["points"] and figure["drawn"] for figure in before)
    earlier, now = (next(figure for figure in figures if figure["title"].startswith("beam: solution length vs k"))
                    for figures in (before, after))
    assert "left out, no data: Rushhour6x6_2" in earlier["title"] and "Rushhour6x6_2" not in earlier["lines"]
    assert now["lines"]["Rushhour6x6_2"] == [4] and "left out" not in now["title"]  # the new result: k = 4 on it
    assert seen < LIVE_S and cards == [13, 13]
