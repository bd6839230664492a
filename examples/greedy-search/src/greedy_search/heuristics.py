"""Rush Hour's blockers heuristic as a plugin, twice: compiled with numba, and in plain Python.

Both count the vehicles between the red car and the exit, as slidelab's own
`blockers` does, from the state's key: `blockers_nb` runs inside slidelab's
compiled A*, IDA* and beam as well as in plugin algorithms; `blockers_py`,
plain Python, serves plugin algorithms only (slidelab refuses it to a
compiled search, in one line).
"""

import numba

from slidelab.plugin import heuristic, rushhour


@heuristic(domain="rushhour", admissible=True)
@numba.njit(cache=True)
def blockers_nb(spec, work, key):
    """The vehicles between the red car and the exit (compiled)."""
    positions = work.positions
    rushhour.positions(spec, key, positions)
    red = spec.red
    row = spec.line[red]
    exit_side = positions[red] + spec.length[red]  # the first cell right of the red car
    count = 0
    for i in range(spec.count):
        if i == red:
            continue
        if spec.horizontal[i]:
            count += spec.line[i] == row and positions[i] >= exit_side
        else:
            count += spec.line[i] >= exit_side and positions[i] <= row < positions[i] + spec.length[i]
    return count


@heuristic(domain="rushhour", admissible=True)
def blockers_py(spec, work, key):
    """The vehicles between the red car and the exit (plain Python)."""
    positions = work.positions
    rushhour.positions(spec, key, positions)
    red = spec.red
    row = spec.line[red]
    exit_side = positions[red] + spec.length[red]
    return sum(
        (spec.line[i] == row and positions[i] >= exit_side) if spec.horizontal[i]
        else (spec.line[i] >= exit_side and positions[i] <= row < positions[i] + spec.length[i])
        for i in range(spec.count) if i != red
    )
