"""A study's report as the terminal, JSON and one HTML file show it: its best trials with each board's value, and
in HTML Optuna's figures (optimisation history, parameter importances, slices, contours, or the Pareto front)."""

import html
import json
from pathlib import Path

from rich.table import Table

from orchestrator.publish.html_report import header_list, inline_script, page, plots_section
from orchestrator.publish.interactive_paper import Chart
from orchestrator.publish.outputs import Published
from orchestrator.reports.study import StudyReport, figures
from orchestrator.sweeps.grid import flag_name
from orchestrator.text import cell, plain_table
from puzzles.errors import PuzzleError

FORMATS = ("table", "json", "html")


def study_table(report: StudyReport) -> Table:
    """The best trials: trial, values, parameters, then the first objective's value on each board."""
    table = plain_table()
    objectives = [o.column for o in report.scoring.objectives]
    params = list(dict.fromkeys(name for trial in report.best for name in trial.params))
    for heading in ("trial", *objectives, *params, *report.spec["boards"]):
        table.add_column(heading, justify="right")
    for trial in report.best:
        table.add_row(str(trial.number), *(f"{value:.4g}" for value in trial.values),
                      *(cell(trial.params.get(name)) for name in params),
                      *(cell(value) if value is not None else "–" for value in trial.boards))
    return table


def study_json(report: StudyReport) -> str:
    """The report as one JSON document, for scripts."""
    return json.dumps({
        "study": report.name, "spec": report.spec, "states": report.states, "pareto": report.pareto,
        "best": [{"trial": t.number, "values": t.values, "params": t.params,
                  "boards": dict(zip(report.spec["boards"], t.boards))} for t in report.best],
    })


def study_html(report: StudyReport) -> str:
    """The report as one self-contained HTML page: header, Optuna's figures, the best trials."""
    from plotly.offline import get_plotlyjs

    charts = study_charts(report)
    body = [f"<h1>slidelab study: {html.escape(report.name)}</h1>", header_list(study_header(report))]
    if charts:
        body += ["<h2>Plots</h2>", plots_section(charts)]
    body += ["<h2>Best trials</h2>" if not report.pareto else "<h2>Pareto front</h2>", best_table(report)]
    return page(f"slidelab study: {report.name}", body, [inline_script(get_plotlyjs())])


def study_header(report: StudyReport) -> list[tuple[str, str]]:
    """The study's header: name, algorithm, space, objectives, aggregate, unsolved, trials by state."""
    return [("study", report.name), ("algorithm", report.spec["algorithm"]),
            ("space", " ".join(f"{flag_name(name)} {text}" for name, text in report.spec["space"].items())),
            ("objectives", ", ".join(o.text() for o in report.scoring.objectives)),
            ("aggregate", report.scoring.aggregate), ("unsolved", report.scoring.unsolved_text()),
            ("trials", ", ".join(f"{count} {state.lower()}" for state, count in report.states.items()))]


def study_charts(report: StudyReport) -> list[Chart]:
    """Optuna's figures of the study as the report's charts."""
    return [Chart(title, json.loads(figure.to_json())) for title, figure in figures(report)]


def best_table(report: StudyReport) -> str:
    """The best trials (or the Pareto front) as an HTML table: trial, values, parameters, each board's value."""
    objectives = [o.column for o in report.scoring.objectives]
    params = list(dict.fromkeys(name for trial in report.best for name in trial.params))
    headings = ["trial", *objectives, *params, *report.spec["boards"]]
    rows = [[str(t.number), *(f"{v:.4g}" for v in t.values), *(cell(t.params.get(p)) for p in params),
             *(cell(v) if v is not None else "–" for v in t.boards)] for t in report.best]
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headings)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(value)}</td>" for value in row) + "</tr>" for row in rows)
    return f'<table class="summary"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def publish_study(report: StudyReport, fmt: str, out: Path | None) -> Published:
    """The report in `fmt` as a reporting command prints it; the HTML page goes to `out` (default NAME.html)."""
    if fmt not in FORMATS:
        raise PuzzleError(f"--format: a study's report is one of {', '.join(FORMATS)}, not {fmt!r}")
    if fmt == "json":
        return Published(text=study_json(report))
    if fmt == "html":
        target = out or Path(f"{report.name}.html")
        target.write_text(study_html(report), encoding="utf-8")
        return Published(messages=[report.headline, f"wrote {target}"])
    return Published(table=study_table(report), messages=[report.headline])
