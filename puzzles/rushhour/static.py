"""What proves a Rush Hour board unsolvable without a search: a blocker of the exit that can never leave the red row.

Walls never move, a horizontal vehicle never leaves its row, and vertical
vehicles in one column never pass each other. So the red car never reaches
the exit if, to its right in its row, there is a wall, a horizontal vehicle,
or a vertical vehicle that cannot clear the row: above it, the stretch of its
column up to the nearest wall (or the edge) is too short for it and the
vertical vehicles above it there, and so is the stretch below it for it and
those below. Every other obstacle is taken as movable, so the check is sound:
it never calls a solvable board unsolvable, and says nothing of most
unsolvable ones (only a search proves those).
"""

from puzzles.rushhour.board import RushHourBoard, Vehicle


def exit_blocked(board: RushHourBoard) -> str | None:
    """Why the red car can never reach the exit, or None if nothing static stops it."""
    red = board.red_vehicle
    row = red.row
    for col in range(red.col + red.length, board.size):
        if (row, col) in board.walls:
            return f"a wall stands between the red car and the exit (row {row + 1}, column {col + 1})"
    for vehicle in board.vehicles:
        if vehicle.name == red.name or not any(r == row and c > red.col for r, c in vehicle.cells()):
            continue
        if vehicle.horizontal:
            return f"{vehicle.name} lies between the red car and the exit in its row, and never leaves it"
        if not _can_clear(board, vehicle, row):
            return f"{vehicle.name} blocks the exit and has no room in its column to clear the red car's row"
    return None


def _can_clear(board: RushHourBoard, blocker: Vehicle, row: int) -> bool:
    """True if the column leaves the vertical `blocker` room to clear `row`, above or below, as far as walls and
    the vertical vehicles of its column (which it cannot pass) say."""
    column = blocker.col
    walls = [r for r in range(board.size) if (r, column) in board.walls]
    top = max((r + 1 for r in walls if r < row), default=0)
    bottom = min((r - 1 for r in walls if r > row), default=board.size - 1)
    stack = [v for v in board.vehicles if not v.horizontal and v.col == column and top <= v.row <= bottom]
    above = sum(v.length for v in stack if v.row < blocker.row)
    below = sum(v.length for v in stack if v.row > blocker.row)
    return row - top >= blocker.length + above or bottom - row >= blocker.length + below
