"""The two vocabularies of a job, never mixed: its lifecycle, and a finished job's outcome.

- `JobState`, the lifecycle: `pending` (planned, not sent anywhere) ->
  `queued` (sent to the broker) -> `running` (claimed by a worker) -> `done`
  (its result is stored). A job given back (Ctrl-C, a lost worker) is pending
  again. `cancelled` (`orchestrate cancel`): it has no result and no worker
  may take it; the one running is stopped by its worker's heartbeat, and
  `orchestrate resume` makes the sweep's cancelled jobs pending again.
- `Outcome` (`puzzles.result`), what a done job's result says: `solved`,
  `unsolvable`, `failed` (an incomplete algorithm gave up), `limit` (a node,
  time or memory limit), `error` (the job raised or its process died).

`orchestrate jobs --status` takes a word of either; every count of the
command line, the reports and the storage uses these words and no others.
"""

from enum import StrEnum

from puzzles.result import Outcome

__all__ = ["JobState", "Outcome", "UNFINISHED", "parse_status"]


class JobState(StrEnum):
    """Where a job is in its life."""

    PENDING = "pending"
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    CANCELLED = "cancelled"


UNFINISHED = (JobState.PENDING, JobState.QUEUED, JobState.RUNNING)  # without a result, and a worker may take them


def parse_status(word: str) -> JobState | Outcome | None:
    """The lifecycle state or outcome a word names, or None."""
    for vocabulary in (JobState, Outcome):
        if word in vocabulary.__members__.values():
            return vocabulary(word)
    return None
