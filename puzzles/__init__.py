"""slidelab's solver core: puzzle domains, search algorithms and heuristics.

A pure library: it imports numpy and numba, never the runner's queue, database
or command-line packages. Compiled code is cached on disk in a folder named
after a digest of this package's sources, so an edit to any module (numba
tracks only the file of the function it caches) never reuses stale machine code.
"""

import hashlib
from pathlib import Path

import numba


def _source_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


if not numba.config.CACHE_DIR:
    numba.config.CACHE_DIR = str(Path.home() / ".cache" / "slidelab" / "numba" / _source_digest())
