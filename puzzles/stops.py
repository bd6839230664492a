"""Why a search stops, as compiled code says it: its status codes, and node and time limits as kernels check them.

Kernels return one of the status codes below; `outcome_of` turns a code into
an `Outcome` and a reason: the one place kernel codes meet the outcome vocabulary. Time is `CLOCK_MONOTONIC`, the clock of
`time.monotonic()`, read from libc's `clock_gettime` by an intrinsic (so that
functions checking a deadline can still be cached on disk).
"""

import math
import time

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from puzzles.jit import nb
from puzzles.result import Limits, Outcome

SOLVED, UNSOLVABLE, FAILED, NODE_LIMIT, TIME_LIMIT, MEMORY_LIMIT = range(6)
CHECK_EVERY = 1024  # expansions between two reads of the clock

_CLOCK_MONOTONIC = 1


@intrinsic
def _monotonic_ns(typingctx):
    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        timespec = cgutils.alloca_once(builder, ir.LiteralStructType([i64, i64]))
        clock_gettime = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(32), [ir.IntType(32), timespec.type]), "clock_gettime"
        )
        builder.call(clock_gettime, [ir.Constant(ir.IntType(32), _CLOCK_MONOTONIC), timespec])
        seconds = builder.load(cgutils.gep_inbounds(builder, timespec, 0, 0))
        nanoseconds = builder.load(cgutils.gep_inbounds(builder, timespec, 0, 1))
        return builder.add(builder.mul(seconds, ir.Constant(i64, 1_000_000_000)), nanoseconds)

    return types.int64(), codegen


@nb.njit(cache=True)
def now():
    """Monotonic seconds, as `time.monotonic()`."""
    return _monotonic_ns() * 1e-9


@nb.njit(cache=True)
def reached(expanded, max_nodes, deadline):
    """NODE_LIMIT or TIME_LIMIT if a limit is hit, else 0; reads the clock every time."""
    if expanded >= max_nodes:
        return NODE_LIMIT
    if now() > deadline:
        return TIME_LIMIT
    return 0


@nb.njit(cache=True)
def exceeded(expanded, max_nodes, deadline):
    """As `reached`, for a caller counting one expansion at a time: reads the clock every CHECK_EVERY."""
    if expanded >= max_nodes:
        return NODE_LIMIT
    if expanded % CHECK_EVERY == 0:
        return reached(expanded, max_nodes, deadline)
    return 0


def budget(limits: Limits) -> tuple[int, float]:
    """The limits as (max nodes, monotonic deadline) for compiled code."""
    max_nodes = limits.max_nodes if limits.max_nodes is not None else np.iinfo(np.int64).max
    deadline = time.monotonic() + limits.time_limit if limits.time_limit is not None else math.inf
    return max_nodes, deadline


def outcome_of(code: int, limits: Limits) -> tuple[Outcome, str | None]:
    """A kernel's status code as an `Outcome` and, for a limit, the reason."""
    if code == NODE_LIMIT:
        return Outcome.LIMIT, f"node limit of {limits.max_nodes} expansions reached"
    if code == TIME_LIMIT:
        return Outcome.LIMIT, f"time limit of {limits.time_limit} s reached"
    if code == MEMORY_LIMIT:
        return Outcome.LIMIT, "out of memory: the stored states could not grow"
    return {SOLVED: Outcome.SOLVED, UNSOLVABLE: Outcome.UNSOLVABLE, FAILED: Outcome.FAILED}[code], None
