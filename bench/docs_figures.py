"""The figures the README and the manual quote, measured again beside what they say.

Usage: `python bench/docs_figures.py [--only tour korf]`.

- tour: every command of the README's *quick* blocks, run in order in a fresh
  folder as a newcomer runs them (kernels already compiled), each timed; the
  table gives the time the README states before the block beside the time
  measured, and the ratio of the two (measured over the upper end stated).
- korf: the IDA* sweep of Korf's 100 instances that docs/npuzzle.md quotes
  (`korf-heuristics`: pdb and pdb-max over 6-6-3 and 5-5-5, about 4 minutes on
  2 workers), then its report per heuristic and partition, printed as the
  page's table is, to paste over it when the figures drift.

Prints Markdown tables and the machine's load average before and after.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.test_readme import QUICK_BLOCK  # noqa: E402  (the README's blocks as the tests find them)

BIN = Path(sys.executable).parent
STATED = re.compile(r"(?:about |in )?(\d+(?:\.\d+)?)(?:[–-](\d+(?:\.\d+)?))? (s|min)\b")
KORF_SWEEP = ["orchestrate", "sweep", "--name", "korf-heuristics", "--algo", "idastar", "--heuristic", "pdb,pdb-max",
              "--pdb", "6-6-3,5-5-5", "--boards", "data/boards/npuzzle/korf100.csv", "--time-limit", "60"]
KORF_REPORT = ["orchestrate", "report", "korf-heuristics", "--by", "heuristic,pdb", "--columns",
               "expanded_mean,elapsed_mean", "--format", "markdown"]


def commands(block: str) -> list[str]:
    """A block's commands one by one: continued lines joined, a here-document kept with its command."""
    found, current, heredoc = [], "", None
    for line in block.splitlines():
        current = f"{current}\n{line}" if current else line
        if heredoc is not None:
            if line.strip() == heredoc:
                found.append(current)
                current, heredoc = "", None
        elif (marker := re.search(r"<<'?(\w+)'?", line)) is not None:
            heredoc = marker.group(1)
        elif not line.rstrip().endswith("\\"):
            if current.strip() and not current.lstrip().startswith("#"):
                found.append(current)
            current = ""
    return found


def stated_seconds(text: str) -> list[tuple[float, float]]:
    """The times a paragraph states before its block, `2–4 s` or `about 10 s`, as (low, high) seconds: the first is
    its first command's, the last the others' (`about 10 s: ... Then its status ..., 1–2 s each`)."""
    return [(float(low) * (60.0 if unit == "min" else 1.0), float(high or low) * (60.0 if unit == "min" else 1.0))
            for low, high, unit in STATED.findall(text)]


def tour(folder: Path) -> None:
    """Time every command of the README's quick blocks, in order, beside the time the README states for it."""
    text = (ROOT / "README.md").read_text()
    print("| command | README says | measured | measured / stated |\n|---|---:|---:|---:|")
    position = 0
    for match in QUICK_BLOCK.finditer(text):
        before = text[position:match.start()].rstrip().rsplit("\n\n", 1)[-1]
        position = match.end()
        claims = stated_seconds(before)
        for index, command in enumerate(commands(match.group(1))):
            stated = (claims[0] if index == 0 else claims[-1]) if claims else None
            started = time.perf_counter()
            subprocess.run(["bash", "-e", "-c", command], cwd=folder, env=_environment(), check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            seconds = time.perf_counter() - started
            said = "–" if stated is None else f"{stated[0]:g}–{stated[1]:g} s"
            ratio = "–" if stated is None else f"{seconds / stated[1]:.2f}"
            shown = command.splitlines()[0].rstrip(" \\")[:70]
            print(f"| `{shown}` | {said} | {seconds:.2f} s | {ratio} |", flush=True)


def korf(folder: Path) -> None:
    """Run the sweep docs/npuzzle.md quotes and print its table as the page prints it."""
    started = time.perf_counter()
    subprocess.run(KORF_SWEEP, cwd=folder, env=_environment(), check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    print(f"korf-heuristics: 400 jobs in {time.perf_counter() - started:.0f} s (docs/npuzzle.md: 4 minutes on 2 workers)")
    report = subprocess.run(KORF_REPORT, cwd=folder, env=_environment(), check=True, capture_output=True, text=True)
    print(report.stdout, flush=True)


def _environment() -> dict[str, str]:
    environment = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    environment.pop("SLIDELAB_DATABASE_URL", None)
    environment.pop("SLIDELAB_BROKER_URL", None)
    return environment


def main() -> None:
    """Run the parts asked for, each in a fresh folder holding a link to data/."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=("tour", "korf"), default=["tour", "korf"])
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    for part, run in (("tour", tour), ("korf", korf)):
        if part in args.only:
            with tempfile.TemporaryDirectory(prefix=f"slidelab-{part}-") as folder:
                (Path(folder) / "data").symlink_to(ROOT / "data")
                run(Path(folder))
    print(f"load average after: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")


if __name__ == "__main__":
    main()
