"""`orchestrate dashboard`: a read-only web view of a results database, a Starlette app served by uvicorn.

Two pages, each filled and refreshed every REFRESH_S seconds by its script
from a JSON endpoint:

- `/` (`/api/overview`): the sweeps with progress, pace and ETA, outcomes
  and limits; the workers, online or offline by their heartbeats, with the
  jobs they hold, the results they stored and their throughput over the last
  half hour; the results stored last; the last errors and limits hit;
- `/sweep/NAME` (`/api/sweep/NAME`): the sweep's report as the HTML report
  has it (`orchestrator.publish.outputs.html_parts`: the same header, Plotly figures,
  boards and summary table), computed again only when the sweep's results or
  running jobs change (`workers.store.activity.sweep_version`), in a thread
  of its own: a request waits for it at most WAIT_S (only if the last took less
  to make), then gets the page last made (a million-job sweep's takes ~20 s),
  and one sweep's page is made again no sooner than it took to make the last
  time, so at most half a core goes to it.

The database is opened read only (`open_read_only`): every route is a GET,
and a write would fail in the database itself. plotly.js is served from the
installed plotly package, so the dashboard needs no network either. Served
beyond loopback it needs a token (`TokenGate`), as Jupyter does.
"""

import hmac
import html
import ipaddress
import json
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from orchestrator.publish import html_report
from orchestrator.publish.document import Source
from orchestrator.publish.outputs import html_parts, sweep_rows
from orchestrator.reports import rows as report_rows
from orchestrator.reports.comparability import report_summary
from orchestrator.reports.study import is_study
from orchestrator.sweeps import status_view
from orchestrator.sweeps.job_limits import limits_text
from orchestrator.sweeps.lookups import find_sweep
from orchestrator.text import MISSING, counts_text, duration_text
from puzzles.errors import PuzzleError
from puzzles.result import Outcome
from workers.settings import settings
from workers.store import Database
from workers.store.activity import RecentResult, database_time, held_jobs, host_activity, recent_results, sweep_version, throughput, worker_beats
from workers.store.database import DatabaseError
from workers.store.progress import list_sweeps, sweep_status
from workers.store.studies import trials_version
from workers.store.sweeps import SweepRow, find

REFRESH_S = 2.0
WAIT_S = 1.5  # a sweep page's request waits this long for a page of the newest results, then takes the last one made
SWEEPS_SHOWN = 30
RECENT = 25
PROBLEMS = (Outcome.ERROR, Outcome.LIMIT)
THROUGHPUT_WINDOW = timedelta(minutes=30)  # a worker's results per minute over this window, drawn as a small chart
THROUGHPUT_BUCKETS = 30
TOKEN_COOKIE = "slidelab-dashboard-token"
MIN_TOKEN = 8


def make_app(db: Database, token: str | None = None) -> Starlette:
    """The dashboard of `db` as an ASGI app: its two pages, their JSON, and plotly.js; behind `token` if given."""
    pages = SweepPages(db)
    routes = [
        Route("/", lambda request: HTMLResponse(overview_page(db)), methods=["GET"]),
        Route("/sweep/{name:path}", lambda request: HTMLResponse(sweep_page(request.path_params["name"])), methods=["GET"]),
        Route("/api/overview", lambda request: _json(overview(db)), methods=["GET"]),
        Route("/api/sweep/{name:path}", pages.endpoint, methods=["GET"]),
        Route("/static/plotly.js", _plotly, methods=["GET"]),
        Route("/favicon.ico", lambda request: Response(status_code=204), methods=["GET"]),
    ]
    app = Starlette(routes=routes)
    return app if token is None else TokenGate(app, token)  # type: ignore[return-value]  # an ASGI app all the same


class TokenGate:
    """Serves a request that carries the token: `?token=` (then kept in a cookie), the cookie, or a Bearer header.

    Anything else gets 403. The comparison takes the same time whatever the
    guess (`hmac.compare_digest`).
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.token = app, token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The app's answer if the request carries the token, else 403 and a line saying where the token is."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        given = request.query_params.get("token")
        if given is not None and self._is_token(given):
            await self.app(scope, receive, self._keeping_cookie(send, given))
            return
        bearer = request.headers.get("authorization", "").removeprefix("Bearer ")
        if self._is_token(request.cookies.get(TOKEN_COOKIE, "")) or self._is_token(bearer):
            await self.app(scope, receive, send)
            return
        refused = PlainTextResponse("this dashboard needs its token: open the URL it printed when it started"
                                    " (...?token=...)\n", status_code=403)
        await refused(scope, receive, send)

    def _is_token(self, given: str) -> bool:
        return bool(given) and hmac.compare_digest(given.encode(), self.token)

    @staticmethod
    def _keeping_cookie(send: Send, token: str) -> Send:
        """`send` adding to the response the cookie that carries the token from now on."""
        cookie: SimpleCookie = SimpleCookie()
        cookie[TOKEN_COOKIE] = token
        morsel = cookie[TOKEN_COOKIE]
        morsel["path"], morsel["httponly"], morsel["samesite"] = "/", True, "Strict"

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), (b"set-cookie", cookie.output(header="").strip().encode())]
                message = {**message, "headers": headers}
            await send(message)

        return sending


def access_token(host: str, given: str | None) -> str | None:
    """The token requests need: the one given, else a new one when `host` is beyond loopback, else none.

    PuzzleError for a token given shorter than MIN_TOKEN characters (an empty one would let anyone in).
    """
    if given is not None and len(given) < MIN_TOKEN:
        raise PuzzleError(f"--token: give at least {MIN_TOKEN} characters, or none to have one made")
    if given is not None or _loopback(host):
        return given
    return secrets.token_urlsafe(24)


def address(listening: socket.socket, token: str | None) -> str:
    """The URL a browser opens: the bound address (this machine's name for a wildcard one), with the token."""
    host, port = listening.getsockname()[:2]
    shown = socket.gethostname() if ipaddress.ip_address(host).is_unspecified else host
    shown = f"[{shown}]" if ":" in shown else shown
    return f"http://{shown}:{port}" + (f"/?token={quote(token, safe='')}" if token else "")


def _loopback(host: str) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name: it may resolve beyond this machine
        return False


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on `host`:`port` (port 0: a free one); OSError if it cannot."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
        listening.listen(128)
    except OSError:
        listening.close()
        raise
    return listening


def serve(db: Database, listening: socket.socket, token: str | None = None) -> None:
    """Serve the dashboard of `db` on the socket until Ctrl-C (uvicorn; no access log), behind `token` if given."""
    import uvicorn

    config = uvicorn.Config(make_app(db, token), log_level="warning", access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[listening])


def overview(db: Database) -> dict[str, Any]:
    """What the overview shows: sweeps, hosts with the jobs they hold, recent results, recent errors and limits."""
    return {
        "database": db.shown_url,
        "refreshed": datetime.now(UTC),
        "sweeps": [_sweep_line(db, sweep) for summary in list_sweeps(db)[:SWEEPS_SHOWN]
                   if (sweep := find(db, summary.name)) is not None],  # not one deleted since it was listed
        "hosts": hosts(db),
        "recent": [_result_line(row) for row in recent_results(db, RECENT)],
        "problems": [_result_line(row) for row in recent_results(db, RECENT, outcomes=PROBLEMS)],
    }


def hosts(db: Database) -> list[dict[str, Any]]:
    """Per worker: online or not, its last heartbeat, the jobs it holds now (each with its sweep, board, algorithm,
    since), its results stored, the last one, and its results per minute over the last THROUGHPUT_WINDOW.

    A worker is online while it beats within a lease (or holds a lease that has
    not run out); the workers online come first.
    """
    now = database_time(db)  # the clock heartbeats and leases are stamped by, whatever this machine's says
    found: dict[str, dict[str, Any]] = {}

    def entry(host: str | None) -> dict[str, Any]:
        return found.setdefault(host or "-", {"host": host or "-", "online": False, "beat_at": None, "since": None,
                                              "held": [], "results": 0, "last": None, "throughput": []})

    for beat in worker_beats(db):
        entry(beat.host).update({"beat_at": _aware(beat.beat_at), "since": _aware(beat.started_at)})
    for job in held_jobs(db):
        entry(job.host)["held"].append({**asdict(job), "algorithm": status_view.algorithm_text(job.algorithm, job.params)})
    for activity in host_activity(db):
        entry(activity.host).update({"results": activity.results, "last": activity.last})
    per_minute = _throughput(db, [host for host in found if host != "-"], now)
    for worker in found.values():
        worker["online"] = _online(worker, now)
        worker["throughput"] = per_minute.get(worker["host"], [0] * THROUGHPUT_BUCKETS)
    return sorted(found.values(), key=lambda worker: (not worker["online"], not worker["held"], worker["host"]))


def _online(worker: dict[str, Any], now: datetime) -> bool:
    """A heartbeat within a lease, or a lease held that has not run out."""
    lease = timedelta(seconds=settings().lease_seconds)
    leases = [_aware(job["lease_until"]) for job in worker["held"] if job["lease_until"] is not None]
    return (worker["beat_at"] is not None and worker["beat_at"] > now - lease) or any(until > now for until in leases)


def _throughput(db: Database, hosts: list[str], now: datetime) -> dict[str, list[int]]:
    """Each host's results finished in each of the THROUGHPUT_BUCKETS parts of the last THROUGHPUT_WINDOW."""
    width = THROUGHPUT_WINDOW / THROUGHPUT_BUCKETS
    counts: dict[str, list[int]] = {}
    for host, part, count in throughput(db, hosts, now - THROUGHPUT_WINDOW, width.total_seconds()):
        counts.setdefault(host, [0] * THROUGHPUT_BUCKETS)[min(part, THROUGHPUT_BUCKETS - 1)] += count
    return counts


class SweepPages:
    """The JSON of each sweep's page, made once per version of the sweep's results, in a thread of its own.

    A request starts the page of the newest version unless one is being made,
    waits for it up to `wait_s` if the sweep's last page took less than that
    to make, and otherwise answers with the page made last (or, before the
    first, says it is being made): a big sweep's request never waits for a page
    it would not get. A sweep's page is made again no sooner after the last one
    than that one took to make.
    """

    def __init__(self, db: Database, make: Callable[[Database, SweepRow], dict[str, Any]] | None = None,
                 wait_s: float = WAIT_S):
        self.db, self.make, self.wait_s = db, make or sweep_payload, wait_s
        self.changed = threading.Condition()
        self.pages: dict[str, dict[str, Any]] = {}  # by sweep name: the page made last, with its version
        self.failures: dict[str, dict[str, Any] | None] = {}  # by sweep name: why its page could not be made, if it could not
        self.making: set[str] = set()
        self.took: dict[str, float] = {}  # by sweep name: the seconds its last page took to make
        self.rest_until: dict[str, float] = {}  # by sweep name: no page made before this (time.monotonic)

    def endpoint(self, request: Request) -> Response:
        """`/api/sweep/NAME?since=VERSION`: the page's parts, or only the version when it is still `since`."""
        name = request.path_params["name"]
        try:
            payload = self.payload(name)
        except PuzzleError as err:
            return _json({"error": str(err)}, status_code=404)
        if request.query_params.get("since") == payload["version"]:
            return _json({"version": payload["version"], "same": True})
        return _json(payload)

    def payload(self, name: str) -> dict[str, Any]:
        """The sweep's page as JSON-ready parts: of its newest results if made within `wait_s`, else the last made."""
        sweep = find_sweep(self.db, name)
        version = page_version(self.db, sweep)
        deadline = time.monotonic() + (self.wait_s if self.took.get(name, 0.0) < self.wait_s else 0.0)
        with self.changed:
            if not self._is_current(name, version) and name not in self.making:
                self.making.add(name)
                threading.Thread(target=self._make_page, args=(sweep, version), name=f"page of {name}", daemon=True).start()
            while name in self.making and not self._is_current(name, version) and (left := deadline - time.monotonic()) > 0:
                self.changed.wait(left)
            return (self.pages.get(name) or self.failures.get(name)
                    or {"version": "", "pending": f"making the page of sweep {name}"})

    def _is_current(self, name: str, version: str) -> bool:
        return self.pages.get(name, {}).get("version") == version

    def _make_page(self, sweep: SweepRow, version: str) -> None:
        time.sleep(max(0.0, self.rest_until.get(sweep.name, 0.0) - time.monotonic()))
        started = time.monotonic()
        page, failure = None, None
        try:
            page = self.make(self.db, sweep) | {"version": version}
        except (PuzzleError, DatabaseError) as err:  # tried again by a later request
            failure = {"version": "", "error": str(err)}
        except ImportError as err:  # a study's page (Optuna's figures) without the tune extra
            failure = {"version": "", "error": f"a study's page needs {err.name}: pip install 'slidelab[tune]'"}
        finally:
            with self.changed:
                if page is not None:
                    self.pages[sweep.name] = page
                self.failures[sweep.name] = failure
                self.making.discard(sweep.name)
                self.took[sweep.name] = time.monotonic() - started
                self.rest_until[sweep.name] = time.monotonic() + self.took[sweep.name]
                self.changed.notify_all()


def sweep_payload(db: Database, sweep: SweepRow) -> dict[str, Any]:
    """A sweep's page: header, notes, figures, boards and summary table (HTML fragments and Plotly JSON); a study's,
    its header, Optuna's figures and its best trials."""
    if is_study(sweep):
        return study_payload(db, sweep)
    name = sweep.name
    rows = sweep_rows(db, name)
    groups = report_rows.group_columns(rows)
    summary, compared = report_summary(rows, groups)
    parts = html_parts(summary, rows, Source(db, sweep))
    status = sweep_status(db, sweep)
    return {
        "name": sweep.name, "refreshed": datetime.now(UTC), "pace": status_view.pace(status),
        "header": html_report.header_list(parts.header),
        "notes": [*report_rows.notes(rows, name, groups), *compared],
        "figures": [{"title": chart.title, "figure": chart.figure} for chart in parts.charts],
        "boards": html_report.board_cards(parts.boards), "table": html_report.summary_table(parts.summary, parts.keys),
    }


def study_payload(db: Database, sweep: SweepRow) -> dict[str, Any]:
    """A study's page (`orchestrate tune`), in the parts of a sweep's: as its HTML report shows it."""
    from orchestrator.publish.study_report import best_table, study_charts, study_header
    from orchestrator.reports.study import study_report

    report = study_report(db, sweep)
    return {
        "name": sweep.name, "refreshed": datetime.now(UTC), "pace": status_view.pace(sweep_status(db, sweep)),
        "header": html_report.header_list(study_header(report)), "notes": [report.headline],
        "figures": [{"title": chart.title, "figure": chart.figure} for chart in study_charts(report)],
        "boards": "", "table": best_table(report),
    }


def page_version(db: Database, sweep: SweepRow) -> str:
    """What changes whenever a sweep's page would: its results and running jobs, and a study's trials."""
    parts = sweep_version(db, sweep) + (trials_version(db, sweep.name) if is_study(sweep) else ())
    return ".".join(map(str, parts))


def overview_page(db: Database) -> str:
    """The overview's page: empty tables its script fills."""
    body = [
        "<h1>slidelab dashboard</h1>",
        f'<p class="muted">database {html.escape(db.shown_url)} · read only · <span id="refreshed"></span></p>',
        '<h2>Sweeps</h2><div id="sweeps"></div>', '<h2>Workers and hosts</h2><div id="hosts"></div>',
        '<h2>Recent results</h2><div id="recent"></div>', '<h2>Errors and limits hit</h2><div id="problems"></div>',
    ]
    return _page("slidelab dashboard", body, "overview")


def sweep_page(name: str) -> str:
    """A sweep's page: the places its script fills with the report's parts."""
    escaped = html.escape(name)
    body = [
        f'<p><a href="/">← all sweeps</a></p><h1>sweep {escaped}</h1>',
        '<p class="muted"><span id="pace"></span> · <span id="refreshed"></span></p>',
        '<div id="error"></div><div id="header"></div><ul class="notes" id="notes"></ul>',
        '<h2>Plots</h2><div class="plots" id="plots"></div>', '<h2>Boards</h2><div id="boards"></div>',
        '<h2>Summary</h2><div id="table"></div>',
    ]
    return _page(f"slidelab: {name}", body, "sweep", name)


def _page(title: str, body: list[str], kind: str, sweep: str = "") -> str:
    script = (html_report.STATIC / "dashboard.js").read_text()
    settings = json.dumps({"kind": kind, "sweep": sweep, "refresh_ms": int(REFRESH_S * 1000)})
    return html_report.page(title, body, ['<script src="/static/plotly.js"></script>',
                                          html_report.inline_script(f"window.DASHBOARD = {settings};\n{script}")],
                            manual=True)


def _sweep_line(db: Database, sweep: SweepRow) -> dict[str, Any]:
    """A sweep's line of the overview: its counts, phase, pace and ETA, outcomes and limits."""
    status = sweep_status(db, sweep)
    return {"name": sweep.name, "created": sweep.created_at, "total": status.total, "finished": status.finished,
            "phase": status.phase, "pace": status_view.pace(status),
            "outcomes": counts_text(status.outcomes) or "-", "limits": limits_text(sweep.limits)}


def _result_line(result: RecentResult) -> dict[str, Any]:
    """A result as the overview lists it: its algorithm with parameters, its time written as the tables write it."""
    elapsed = result.elapsed_s
    return {**asdict(result), "algorithm": status_view.algorithm_text(result.algorithm, result.params),
            "time": MISSING if elapsed is None else duration_text(elapsed)}


def _plotly(request: Request) -> Response:
    from plotly.offline import get_plotlyjs

    return Response(get_plotlyjs(), media_type="text/javascript", headers={"Cache-Control": "max-age=86400"})


def _json(data: Any, status_code: int = 200) -> Response:
    return Response(json.dumps(data, default=_plain, separators=(",", ":")), status_code=status_code,
                    media_type="application/json")


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return _aware(value).isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


def _aware(value: datetime) -> datetime:
    """A time read from the database, in UTC (SQLite gives them without their zone)."""
    return value if value.tzinfo else value.replace(tzinfo=UTC)
