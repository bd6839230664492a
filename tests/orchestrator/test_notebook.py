"""slidelab in a notebook: a real Jupyter kernel runs the library's calls, and a report shows itself as an HTML table."""

import ast

import nbformat
import pytest
from nbclient import NotebookClient

from tests.orchestrator.clirun import ok, orchestrate


@pytest.fixture
def swept(tmp_path, boards_dir) -> str:
    """A sweep `nb` (beam k = 1..3 and astar on two 6x6 boards) in a new SQLite database; its URL."""
    url = f"sqlite:///{tmp_path / 'results.db'}"
    ok(orchestrate("sweep", "--name", "nb", "--algo", "beam,astar", "--k", "1..3", "--boards",
                   boards_dir / "Rushhour6x6_1.csv", boards_dir / "Rushhour6x6_2.csv", "--workers", 2, "--db", url))
    return url


def run_notebook(cells: list[str], folder) -> list[dict]:
    """Run the code cells in a new kernel in `folder`; each cell's outputs."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code) for code in cells])
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
    return [cell.outputs for cell in notebook.cells]


def test_a_report_shows_itself_as_a_table_in_a_notebook(swept, tmp_path):
    shown, rows = run_notebook([
        f"import slidelab\nreport = slidelab.report('nb', db={swept!r}, by='algo,k')\nreport",
        f"slidelab.results('nb', db={swept!r})[['algorithm', 'outcome']].value_counts().to_dict()",
    ], tmp_path)
    page = shown[0]["data"]["text/html"]
    assert page.startswith("<h4>slidelab report: nb</h4><table>")
    assert page.count("<tr>") == 1 + 4  # the headings, then beam at k = 1, 2, 3 and astar
    assert "<strong>" in page and "bold: the best value of its column" in page
    counts = ast.literal_eval(rows[0]["data"]["text/plain"])  # the dict the kernel printed
    assert counts[("astar", "solved")] == 2 and sum(counts.values()) == 8
