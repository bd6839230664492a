"""`orchestrate analyze`: how close each N-puzzle heuristic comes to the true distance, over a whole space."""

from dataclasses import dataclass

import pandas as pd

from puzzles.domains import find_domain
from puzzles.errors import PuzzleError

DOMAIN = "npuzzle"  # the domain whose boards `orchestrate analyze` enumerates


@dataclass(frozen=True)
class Analysis:
    """Every board with its distance and estimates, the summary per heuristic, and the boards per distance."""

    rows: pd.DataFrame
    summary: pd.DataFrame
    depths: pd.DataFrame


def analysis(width: int, height: int, goal: str, pdb: str | None) -> Analysis:
    """The analysis of every solvable board.

    `pdb` is a comma-separated list of pattern-database partitions to score (default: the size's own).
    """
    rows = analyze(width, height, goal, [part.strip() for part in pdb.split(",")] if pdb else None)
    return Analysis(rows, summary(rows), depth_histogram(rows))


def analyze(width: int, height: int, goal: str, partitions: list[str] | None = None, domain: str = DOMAIN) -> pd.DataFrame:
    """One row per solvable board: its tiles, its distance to the goal, and each heuristic's estimate.

    The pattern databases are those of `partitions` (default: the size's own).
    PuzzleError if the domain offers no analysis.
    """
    found = find_domain(domain)
    if found.analysis is None:
        raise PuzzleError(f"{found.title} offers no analysis of its boards")
    return pd.DataFrame(found.analysis(width, height, goal, partitions))


def summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Per heuristic: mean estimate, mean of estimate / distance (boards off the goal), share exact, share admissible."""
    away = rows[rows["distance"] > 0]
    records = []
    for name in rows.columns.drop(["board", "distance"]):
        records.append(
            {
                "heuristic": name,
                "mean_h": rows[name].mean(),
                "mean_h_over_distance": (away[name] / away["distance"]).mean(),
                "exact_share": (rows[name] == rows["distance"]).mean(),
                "admissible_share": (rows[name] <= rows["distance"]).mean(),
            }
        )
    return pd.DataFrame.from_records(records)


def depth_histogram(rows: pd.DataFrame) -> pd.DataFrame:
    """How many boards lie at each distance from the goal."""
    return rows.groupby("distance").size().rename("boards").reset_index()
