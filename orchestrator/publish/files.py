"""Tables written out as they are: CSV, JSON and Parquet files, or the text of one, and read back.

The last step of `report`, `compare`, `export` and `analyze`: formatting and
writing only, the rows and summaries made before (`orchestrator.reports`).
An OSError while writing names the file.
"""

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pandas as pd

from puzzles.errors import PuzzleError

EXPORT_FORMATS = ("csv", "parquet")


def write(frame: pd.DataFrame, fmt: str, out: Path | None) -> str | None:
    """`frame` as csv or json (returned when `out` is None) or parquet (needs `out`): its columns' names, raw values."""
    if fmt == "parquet":
        if out is None:
            raise PuzzleError("--format parquet needs --out FILE")
        frame.to_parquet(out, index=False)
        return None
    writers: dict[str, Callable[[], str]] = {
        "csv": lambda: frame.to_csv(index=False),
        "json": lambda: frame.to_json(orient="records", indent=1),
    }
    text = writers[fmt]()
    if out is None:
        return text
    write_texts([text], out)
    return None


def read(path: Path, fmt: str) -> pd.DataFrame:
    """A table written by `write` (csv, json or parquet), read back."""
    readers: dict[str, Callable[[Path], pd.DataFrame]] = {
        "csv": pd.read_csv, "json": lambda p: pd.read_json(p, orient="records"), "parquet": pd.read_parquet,
    }
    return readers[fmt](path)


def csv_texts(slices: Iterable[pd.DataFrame]) -> Iterator[str]:
    """Each frame of `slices` as CSV text, the header before the first."""
    for number, frame in enumerate(slices):
        yield frame.to_csv(index=False, header=number == 0)


def write_texts(texts: Iterable[str], out: Path) -> None:
    """Write the texts one after the other into the file `out`; an OSError names the file."""
    try:
        with open(out, "w", newline="", encoding="utf-8") as handle:
            handle.writelines(texts)
    except OSError as err:  # a full disk says so only when the file is closed, without its name
        raise OSError(err.errno, err.strerror, str(out)) from None
