"""numba, with slidelab's compiled-code cache: every compiled module of `puzzles` imports `nb` from here.

Compiled code is cached on disk in a folder named after a digest of every
source file of the package, sub-packages included, each hashed with its path
relative to the package. numba invalidates a cached function only when its
own file changes, yet the kernel dispatch (`puzzles.kernels`) compiles domain
code into every algorithm: with one digest over everything, an edit to any
file gives a fresh folder and never reuses stale machine code.
`NUMBA_CACHE_DIR` overrides the folder. Importing numba takes a third of a
second, so the rest of the package (formats, the algorithm table) does without.
"""

import atexit
import fcntl
import hashlib
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numba as nb
from numba.core import event

PACKAGE = Path(__file__).resolve().parent

__all__ = ["compile_lock", "compile_lock_path", "nb", "on_compiling", "source_digest", "writable_cache"]


def source_digest(package: Path = PACKAGE) -> str:
    """16 hex digits of the sha256 of every `.py` under `package`, each with its path relative to it."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def writable_cache(folder: Path) -> str:
    """`folder`, created if need be; if it cannot be written, a temporary folder, with a warning on stderr."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
        return str(folder)
    except OSError as err:
        fallback = tempfile.mkdtemp(prefix="slidelab-numba-")
        atexit.register(shutil.rmtree, fallback, ignore_errors=True)
        print(f"warning: the compiled-code cache {folder} cannot be written ({err.strerror}): compiled code is"
              f" kept in {fallback} for this process only (set NUMBA_CACHE_DIR to a writable folder)", file=sys.stderr)
        return fallback


if not nb.config.CACHE_DIR:
    nb.config.CACHE_DIR = writable_cache(Path.home() / ".cache" / "slidelab" / "numba" / source_digest())


class _FirstCompile(event.Listener):
    """Calls `say` once, as numba starts compiling a function (loading one from the cache is no compilation)."""

    def __init__(self, say: Callable[[], None]):
        self.say: Callable[[], None] | None = say

    def on_start(self, event: event.Event) -> None:
        if self.say is not None:
            say, self.say = self.say, None
            say()

    def on_end(self, event: event.Event) -> None:
        pass


@contextmanager
def on_compiling(say: Callable[[], None] | None) -> Iterator[None]:
    """Within the block, call `say` once if numba compiles anything (None: nothing to say)."""
    if say is None:
        yield
        return
    with event.install_listener("numba:compile", _FirstCompile(say)):
        yield


def compile_lock_path(kind: str) -> Path:
    """The file whose lock is `compile_lock(kind)`'s, in the cache's folder."""
    return Path(nb.config.CACHE_DIR) / f".compile-{hashlib.sha256(kind.encode()).hexdigest()[:16]}.lock"


@contextmanager
def compile_lock(kind: str) -> Iterator[None]:
    """Hold the machine's lock on compiling `kind` (a name for one algorithm's kernels) into the cache.

    Several processes that start the same algorithm at once (a local pool, a
    worker's threads) would each compile it, side by side, into one cache
    (numba's cache is not safe for that: numba/numba#4807). Under the lock the
    first compiles and writes the cache; the others wait, then load it. Other
    kinds compile meanwhile.
    """
    with open(compile_lock_path(kind), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
