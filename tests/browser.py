"""Headless Chromium for the tests (Debian's `chromium`, driven by Playwright over the DevTools protocol).

Playwright comes from the test extras; no browser is downloaded: it starts the
system's chromium. Without one the browser tests skip, or fail in CI
(`SLIDELAB_REQUIRE_BROWSER=1`, set by `.ci/run`, which installs chromium).
"""

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import pytest

REQUIRE_BROWSER = os.environ.get("SLIDELAB_REQUIRE_BROWSER") == "1"


def chromium() -> str:
    """The path of the system's chromium; skips (or fails in CI) without one."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        missing_program("no chromium or chromium-browser on PATH (.ci/run installs Debian's chromium)", REQUIRE_BROWSER)
    return found


def missing_program(message: str, required: bool) -> NoReturn:
    """Skip a test whose program is not installed here; fail it where it is `required` (CI, which installs it)."""
    if required:
        pytest.fail(message)
    pytest.skip(message)


@contextmanager
def browser_page(width: int = 1400, height: int = 1000) -> Iterator[tuple[object, list[str]]]:
    """A page of headless Chromium and the list the JavaScript errors and console errors of its context go to."""
    from playwright.sync_api import sync_playwright

    path = chromium()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-dev-shm-usage"])
        try:
            context = browser.new_context(viewport={"width": width, "height": height})
            errors: list[str] = []  # from every page of the context: page.context.new_page() opens another
            context.on("weberror", lambda error: errors.append(f"page error: {error.error}"))
            context.on("console", lambda message: message.type == "error" and errors.append(f"console: {message.text}"))
            yield context.new_page(), errors
        finally:
            browser.close()


def plotted(page) -> list[dict]:
    """Per Plotly figure drawn on the page: its title, its traces and their points, and the SVG marks of the data."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(plot => ({
        title: plot.layout.title.text,
        traces: plot.data.length,
        points: plot.data.reduce((sum, trace) => sum + (trace.y || []).filter(y => y !== null).length, 0),
        lines: Object.fromEntries(plot.data.map(trace => [trace.name, trace.x.filter((x, i) => trace.y[i] !== null)])),
        drawn: plot.querySelectorAll('.scatterlayer .trace path.js-line, .scatterlayer .trace .point, .barlayer .point').length,
    }))""")
