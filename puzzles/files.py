"""Files written whole or not at all: a pattern database, a layered search's checkpoint."""

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


@contextmanager
def written_whole(path: Path) -> Iterator[BinaryIO]:
    """A file to write that becomes `path` only once it was written whole (a temporary file renamed over it).

    Should the writing fail (a full disk, an interrupt), the temporary file is
    removed, so nothing half-written is left for a later run to load, and an
    OSError names `path` and the cause: numpy's short writes say neither.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    try:
        with open(partial, "wb") as out:
            yield out
        os.replace(partial, path)
    except BaseException as err:
        partial.unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise OSError(err.errno or _short_write_cause(path), _reason(err, path), str(path)) from err
        raise


def _short_write_cause(path: Path) -> int:
    return errno.ENOSPC if os.statvfs(path.parent).f_bavail == 0 else errno.EIO


def _reason(err: OSError, path: Path) -> str:
    return err.strerror or os.strerror(_short_write_cause(path))
