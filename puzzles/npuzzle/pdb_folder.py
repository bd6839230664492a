"""The folder that holds the pattern-database files, apart from `pdb` so that setting it loads no compiled code."""

from pathlib import Path

_directory: Path | None = None


def use_directory(path: Path) -> None:
    """Keep database files under `path` (the runner passes its cache directory's `pdb` folder)."""
    global _directory
    _directory = Path(path)


def directory() -> Path:
    """Where database files are kept: the folder given to `use_directory`, else ~/.cache/slidelab/pdb."""
    return _directory or Path.home() / ".cache" / "slidelab" / "pdb"
