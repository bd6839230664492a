"""The self-contained HTML report (`orchestrator.html_report`), checked as text and rendered by headless Chromium."""

import base64
import os
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from matplotlib.image import imread

from orchestrator import plots
from orchestrator.html_report import format_cell, html_report
from tests.orchestrator.test_plots import PNG_SIGNATURE, beam_rows

# In CI (.ci/run sets it) a missing Chromium fails the browser test instead of skipping it.
REQUIRE_BROWSER = os.environ.get("SLIDELAB_REQUIRE_BROWSER") == "1"
# Colours of matplotlib's first two lines (tab:blue, tab:orange) as 0..1 RGB: present only if the plots rendered.
PLOT_COLOURS = {"tab:blue": (0x1F, 0x77, 0xB4), "tab:orange": (0xFF, 0x7F, 0x0E)}


def summary_frame() -> pd.DataFrame:
    """A small summary shaped like `report.summarize(rows)`'s."""
    return pd.DataFrame({
        "algorithm": ["beam", "beam"],
        "params": ['{"heuristic": "blockers", "k": 1}', '{"heuristic": "blockers", "k": 5}'],
        "board": ["Rushhour6x6_1", "Rushhour6x6_2"],
        "jobs": [2, 2],
        "solved_share": [0.5, 1.0],
        "moves_mean": [28.5, np.nan],
        "expanded_mean": [123456.0, 1234.5678],
        "elapsed_p95": [0.0123449, 2.5],
        "n_solved": [1, 2],
    })


def report(tmp_path, figures) -> tuple[str, object]:
    text = html_report("beam sweep <k>", summary_frame(), figures, ["sweep still running: 120 of 200 jobs finished"])
    path = tmp_path / f"report-{len(figures)}.html"
    path.write_text(text, encoding="utf-8")
    return text, path


def test_cells_are_formatted_for_reading():
    assert [format_cell(v) for v in (np.nan, None, 3, 1234567, 12.0, 28.5, 0.0123449, 123456.7, True)] == [
        "–", "–", "3", "1,234,567", "12", "28.5", "0.01234", "123,457", "yes"]


def test_the_report_holds_title_notes_table_and_every_figure(tmp_path):
    figures = plots.figures(beam_rows())
    text, _ = report(tmp_path, figures)

    assert text.startswith("<!DOCTYPE html>")
    assert "<h1>beam sweep &lt;k&gt;</h1>" in text
    assert "<li>sweep still running: 120 of 200 jobs finished</li>" in text
    assert '<table class="dataframe summary">' in text
    cells = re.findall(r"<td>(.*?)</td>", text)
    for value in ("Rushhour6x6_2", "28.5", "–", "123,456", "1,235", "0.01234", "2.5", "0.5", "1"):
        assert value in cells
    assert '{"heuristic": "blockers", "k": 5}' in cells
    images = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)" alt="([^"]*)"', text)
    assert [alt for _, alt in images] == [title for title, _ in figures]
    assert text.count("<img") == len(figures) == 4
    assert all(base64.b64decode(data)[:8] == PNG_SIGNATURE for data, _ in images)
    assert all(f"<figcaption>{title}</figcaption>" in text for title, _ in figures)
    # self-contained: nothing fetched from elsewhere
    assert "http://" not in text and "https://" not in text
    assert not re.search(r"<(link|script)\b", text)
    assert not re.search(r"src=\"(?!data:)", text)


def test_an_empty_summary_and_no_figures_still_make_a_page():
    text = html_report("nothing yet", pd.DataFrame(), [], [])
    assert "<h1>nothing yet</h1>" in text and "no jobs" in text and "<img" not in text
    assert text.rstrip().endswith("</html>")


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        message = "no chromium or chromium-browser on PATH (.ci/run installs Debian's chromium)"
        if REQUIRE_BROWSER:
            pytest.fail(message)
        pytest.skip(message)
    return found


def screenshot(binary: str, page, out, profile) -> np.ndarray:
    """The page rendered by headless Chromium in a 1200×3000 window, as an RGB array of 0..255."""
    command = [binary, "--headless", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage", "--hide-scrollbars",
               "--no-first-run", f"--user-data-dir={profile}", f"--screenshot={out}", "--window-size=1200,3000",
               page.resolve().as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=out.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    assert out.exists() and out.stat().st_size > 0, done.stderr[-2000:]
    assert out.read_bytes()[:8] == PNG_SIGNATURE
    return np.round(imread(out)[..., :3] * 255).astype(int)


def non_white(pixels: np.ndarray) -> int:
    return int((pixels.min(axis=2) < 240).sum())


def colours(pixels: np.ndarray) -> int:
    """How many distinct colours the image has."""
    return len(np.unique(pixels[..., 0] * 65536 + pixels[..., 1] * 256 + pixels[..., 2]))


def near(pixels: np.ndarray, rgb: tuple[int, int, int]) -> int:
    return int((np.abs(pixels - np.array(rgb)).max(axis=2) <= 12).sum())


def test_chromium_renders_the_report_and_its_plots(tmp_path):
    binary = chromium()
    figures = plots.figures(beam_rows())
    _, with_plots = report(tmp_path, figures)
    _, without_plots = report(tmp_path, [])

    shown = screenshot(binary, with_plots, tmp_path / "with.png", tmp_path / "profile-1")
    bare = screenshot(binary, without_plots, tmp_path / "without.png", tmp_path / "profile-2")

    assert shown.shape[:2] == bare.shape[:2] and shown.shape[1] >= 1200
    # the page without plots is not blank: title, notes and table were drawn
    assert non_white(bare) > 2_000
    assert colours(bare) > 5
    # the plots were decoded and drawn: far more ink, and the colours of the plotted lines
    assert non_white(shown) > non_white(bare) + 100_000
    for name, rgb in PLOT_COLOURS.items():
        assert near(shown, rgb) > 500, f"no {name} pixels: the plots did not render"
        assert near(bare, rgb) == 0
    assert colours(shown) > 5 * colours(bare)
