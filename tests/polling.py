"""Waiting for something another process or thread does, with a deadline instead of a fixed sleep."""

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_for(condition: Callable[[], T], timeout: float, what: str, interval: float = 0.2,
             on_timeout: Callable[[], str] | None = None) -> T:
    """Poll `condition()` until it returns something true; that value. AssertionError after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            detail = f"\n{on_timeout()}" if on_timeout else ""
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}{detail}")
        time.sleep(interval)
