"""slidelab's solver core: puzzle domains, search algorithms and heuristics.

A pure library: it imports numpy and numba, never the runner's queue, database
or command-line packages. Laid out by concern: the shared modules here, one
module per algorithm in `search/`, one package per domain (`rushhour/`,
`npuzzle/`).

Compiled code is cached on disk in a folder named after a digest of every
source file of this package, sub-packages included, each hashed with its path
relative to the package. numba invalidates a cached function only when its
own file changes, yet the kernel dispatch (`puzzles.kernels`) compiles domain
code into every algorithm: with one digest over everything, an edit to any
file gives a fresh folder and never reuses stale machine code. `NUMBA_CACHE_DIR`
overrides the folder.
"""

import hashlib
from pathlib import Path

import numba

PACKAGE = Path(__file__).resolve().parent


def source_digest(package: Path = PACKAGE) -> str:
    """16 hex digits of the sha256 of every `.py` under `package`, each with its path relative to it."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


if not numba.config.CACHE_DIR:
    numba.config.CACHE_DIR = str(Path.home() / ".cache" / "slidelab" / "numba" / source_digest())
