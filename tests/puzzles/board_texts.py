"""Board texts the format tests of both domains share, and the error a bad text raises."""

import pytest

from puzzles.errors import PuzzleError
from puzzles.npuzzle.board import NPuzzleBoard

# The 8-puzzle's goal and its canonical JSON.
EIGHT = NPuzzleBoard(3, 3, (1, 2, 3, 4, 5, 6, 7, 8, 0))
EIGHT_JSON = '{"height":3,"tiles":[1,2,3,4,5,6,7,8,0],"width":3}'

# Fogleman's example (row by row, "o" empty, "x" a wall, "A" the red car), the course CSV's header and a
# two-car board's canonical JSON.
FOGLEMAN = "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM"
HEADER = "car,orientation,col,row,length\n"
TWO_CARS = '{"red":"X","size":6,"vehicles":[["A","V",1,1,2],["X","H",2,3,2]],"walls":[]}'


def error_of(call, *args, **kwargs) -> PuzzleError:
    """The PuzzleError a call raises."""
    with pytest.raises(PuzzleError) as info:
        call(*args, **kwargs)
    return info.value
