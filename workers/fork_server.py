"""Loaded once by the fork server that job processes are forked from (`workers.runner`), and by nothing else.

What every job process needs before its first job is loaded here, once: the
job function, numba and its compiler's set-up (its registries of NumPy
support, its look-up of BLAS), and the identity of the code. A job process
then starts in about 0.1 CPU-s (mostly its own speed calibration and its
kernels) rather than the 1.2 CPU-s of a new interpreter.
"""

import os
import signal

import numba

from workers import provenance, runner  # the job processes' side: their loop and the job function

runner.die_with_parent(os.getppid())  # and with the server, every job process forked from it
signal.signal(signal.SIGHUP, signal.SIG_IGN)  # a closed terminal is the parent's to handle (it hands the jobs back)
numba.njit(lambda: 0)()  # a first compile sets numba's compiler up: every job process starts with it
provenance.environment()  # the code's identity, read once: the job processes run the code loaded here
