"""Where a result came from: the code, the software around it and the machine that ran it.

`environment()` describes this installation once per process: slidelab's
version, the git commit it runs from (with a flag for uncommitted changes), a
hash of its source files, and the versions of Python, numba and numpy.
`code_version` condenses that into the one label two results are compared by:
the same sources give the same label, with or without git.
`host_speed()` times a fixed piece of work in this process, so a report can
tell hosts of different speed apart. A result made by plugins also records
their origins; `plugin_keys` reads the plugins key a job was planned with
(`jobs.plugins`) back, for messages and reports.
"""

import hashlib
import os
import platform
import re
import subprocess
import time
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("puzzles", "workers")  # the code that produces a result (the orchestrator only plans and reports)
CALIBRATION_STEPS = 200_000
CALIBRATION_ROUNDS = 5
_KEYS = re.compile(r"(?<=#[0-9a-f]{12}) ")  # between two plugins' keys (a file's path may hold spaces)
TIMING = (
    "elapsed_s is the wall time of the search alone, in the job process, after its kernels and tables were compiled"
    " or loaded: it excludes queue waiting, process start-up and that warm-up (warmup_s, apart);"
    " cpu_s is the job process's CPU time over the same span"
)


@lru_cache
def environment() -> dict[str, Any]:
    """This installation: versions, commit, dirty flag, source hash, platform and CPU model."""
    commit, dirty = _git_state()
    env = {
        "slidelab": _slidelab_version(),
        "commit": commit,
        "dirty": dirty,
        "source": source_hash(),
        "python": platform.python_version(),
        "numba": metadata.version("numba"),
        "numpy": metadata.version("numpy"),
        "platform": platform.platform(),
        "cpu": _cpu_model(),
    }
    return {"code_version": code_version(env), **env}


def code_version(env: dict[str, Any]) -> str:
    """The label results are compared by: slidelab's version and the hash of its sources, `0.1.0+2f34988991ab`.

    The same sources give the same label from a git checkout, an installed
    package or the Docker image; any edit gives another. The commit and the
    dirty flag say where the sources came from, beside it.
    """
    return f"{env['slidelab']}+{env['source'][:12]}"


def source_hash() -> str:
    """The sha256 of the Python sources of the packages that produce results, by path and content."""
    digest = hashlib.sha256()
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@lru_cache
def host_speed() -> float:
    """Millions of steps per second of a fixed integer loop in this process, the best of a few rounds."""
    best = float("inf")
    for _ in range(CALIBRATION_ROUNDS):
        started = time.perf_counter()
        value = 0
        for step in range(CALIBRATION_STEPS):
            value = (value * 31 + step) & 0xFFFF
        best = min(best, time.perf_counter() - started)
    return round(CALIBRATION_STEPS / best / 1e6, 2)


def process() -> dict[str, Any]:
    """This process's part of a result's provenance: the environment, its pid and its speed."""
    return {**environment(), "pid": os.getpid(), "speed": host_speed()}


class PluginKey(NamedTuple):
    """One plugin's part of a plugins key (`puzzles.plugins.Origin.key`): its distribution (a file's path), version
    (`local` for a file) and the first 12 hex digits of its source's sha256."""

    distribution: str
    version: str
    source: str

    @property
    def label(self) -> str:
        """`greedy-search 0.2.0`, or a file plugin's path."""
        return self.distribution if self.version == "local" else f"{self.distribution} {self.version}"

    @property
    def text(self) -> str:
        """`greedy-search 0.2.0 (source 3f2a9c1b07de)`: the label and the source that tell two versions apart."""
        return f"{self.label} (source {self.source})"


def plugin_keys(plugins: str | None) -> list[PluginKey]:
    """The plugins of a plugins key (`jobs.plugins`, as `puzzles.plugins.plugins_key` makes it); none for None."""
    if not plugins:
        return []
    found = []
    for key in _KEYS.split(plugins):
        head, _, source = key.rpartition("#")
        distribution, _, version = head.rpartition("==")
        found.append(PluginKey(distribution, version, source))
    return found


def plugins_text(plugins: str | None) -> str:
    """The plugins of a plugins key as messages name them, `greedy-search 0.2.0 (source 3f2a9c1b07de)` (two joined by
    `and`); `slidelab's own` for None."""
    return " and ".join(key.text for key in plugin_keys(plugins)) or "slidelab's own"


def _slidelab_version() -> str:
    try:
        return metadata.version("slidelab")
    except metadata.PackageNotFoundError:
        return "unknown"


def _git_state() -> tuple[str | None, bool]:
    """(commit, uncommitted changes in the packages) of the checkout holding the code, or (None, False)."""
    if not (ROOT / ".git").exists():
        return None, False
    try:
        commit = _git("rev-parse", "HEAD")
        changed = _git("status", "--porcelain", "--", *PACKAGES)
    except (OSError, subprocess.SubprocessError):
        return None, False
    return commit, bool(changed)


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True, timeout=10
    ).stdout.strip()


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
