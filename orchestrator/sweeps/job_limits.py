"""A job's limits: time, expanded states and memory, as given on the command line and as stored."""

import math
import re
from typing import Any

from orchestrator.sweeps.grid import flag_name
from orchestrator.text import bytes_text, cell, count_text, duration_text
from puzzles.errors import PuzzleError
from puzzles.textio import brief, quote

_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
MAX_LIMITS = {"time_limit": 1e9, "max_nodes": 2**62, "memory_limit": 2**50}  # 31 years, 4.6e18 states, 1 PiB
LIMIT_WRITERS = {"time_limit": duration_text, "max_nodes": count_text, "memory_limit": bytes_text}


def parse_size(text: str) -> int:
    """Bytes of a size such as `512M`, `2G`, `1.5GiB` or `1000000`, at most MAX_LIMITS["memory_limit"]."""
    match = _SIZE.match(text)
    if not match:
        raise PuzzleError(f"--memory-limit: {quote(text)} is not a size (write e.g. 512M or 2G)")
    size = float(match.group(1)) * _UNITS[match.group(2).lower()]
    if size > MAX_LIMITS["memory_limit"]:
        raise PuzzleError(f"--memory-limit: {quote(text)} is more than 1 PiB")
    return int(size)


def job_limits(time_limit: float | None, max_nodes: int | None, memory_limit: str | None) -> dict[str, Any]:
    """The limits of every job of a sweep, as the sweep row keeps them; PuzzleError for one out of range."""
    return checked_limits({
        "time_limit": time_limit,
        "max_nodes": max_nodes,
        "memory_limit": parse_size(memory_limit) if memory_limit else None,
    })


def checked_limits(limits: dict[str, Any]) -> dict[str, Any]:
    """`limits` (None for no limit) once each is a finite number between 0 and its maximum in MAX_LIMITS."""
    for name, value in limits.items():
        if value is None:
            continue
        option = flag_name(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise PuzzleError(f"{option}: {brief(value)} is not a number")
        if not 0 <= value <= MAX_LIMITS[name]:
            raise PuzzleError(f"{option}: {brief(value)} is out of range (0 to {MAX_LIMITS[name]:g})")
    return limits


def limits_text(limits: dict[str, Any]) -> str:
    """The limits given, as `name=value` pairs written as every output writes them (`memory_limit=2 GiB`), or "none"."""
    given = {name: value for name, value in limits.items() if value is not None}
    return ", ".join(f"{name}={LIMIT_WRITERS.get(name, cell)(value)}" for name, value in sorted(given.items())) or "none"
