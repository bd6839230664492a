"""Make the README's pictures of the HTML report and the dashboard: `python docs/screenshots.py` (a few minutes).

A real sweep runs on the embedded default (beam k = 1..12 and A* on the 6x6 course boards and
9x9_4) into a temporary SQLite file; its HTML report is shot in headless Chromium (Debian's
chromium through Playwright, as the tests drive it); then `orchestrate dashboard` serves the
database while a second sweep runs, and its overview and the first sweep's page are shot.
Writes docs/report.png, docs/dashboard.png and docs/dashboard-sweep.png.
"""

import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BOARDS = [str(ROOT / "data/boards/rushhour" / name) for name in
          ("Rushhour6x6_1.csv", "Rushhour6x6_2.csv", "Rushhour6x6_3.csv", "Rushhour9x9_4.csv")]
WIDTH = 1400


def orchestrate(*args: str, background: bool = False):
    command = [sys.executable, "-c", "from orchestrator.cli import app; app()", *args]
    if background:
        return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return subprocess.run(command, check=True, capture_output=True, text=True)


def shoot(page, url: str, out: Path, height: int, wait: str) -> None:
    page.set_viewport_size({"width": WIDTH, "height": height})
    page.goto(url)
    page.wait_for_selector(wait)
    page.wait_for_timeout(1500)
    page.screenshot(path=str(out))
    print(f"wrote {out}")


def main() -> None:
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp())
    db = f"sqlite:///{folder / 'results.db'}"
    orchestrate("sweep", "--name", "beam-k", "--algo", "beam,astar", "--k", "1..12", "--heuristic", "blockers-lb",
                "--db", db, *BOARDS)
    orchestrate("report", "beam-k", "--format", "html", "--out", str(folder / "beam-k.html"), "--db", db)
    running = orchestrate("sweep", "--name", "beam-wide", "--algo", "beam", "--k", "50..3000:50", "--heuristic",
                          "blockers,blockers-lb", "--workers", "1", "--chunk", "1", "--db", db, *BOARDS, background=True)
    server = orchestrate("dashboard", "--db", db, "--port", "0", background=True)
    try:
        address = re.search(r"at (http://\S+)", server.stderr.readline()).group(1)
        time.sleep(20)  # the second sweep under way
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
            page = browser.new_page()
            shoot(page, (folder / "beam-k.html").as_uri(), DOCS / "report.png", 2200, ".js-plotly-plot .main-svg")
            shoot(page, address + "/", DOCS / "dashboard.png", 1100, "#sweeps tbody tr")
            shoot(page, address + "/sweep/beam-wide", DOCS / "dashboard-sweep.png", 1300, "#plots .js-plotly-plot .main-svg")
            browser.close()
    finally:
        for process in (running, server):
            process.terminate()
            process.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
