"""A Rush Hour board: an N x N grid of vehicles and walls, and the red car to bring to the exit.

Vehicles have length >= 2 and move along their row (horizontal) or column
(vertical); walls are fixed. The red car is horizontal and leaves through the
right edge of its row. Boards are validated when they are parsed
(`puzzles.rushhour.formats`); these classes trust what they are given.
"""

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Vehicle:
    """A vehicle: its label, orientation, 0-based top-left cell and length."""

    name: str
    horizontal: bool
    row: int
    col: int
    length: int

    def cells(self) -> list[tuple[int, int]]:
        """The (row, col) cells the vehicle covers."""
        if self.horizontal:
            return [(self.row, self.col + i) for i in range(self.length)]
        return [(self.row + i, self.col) for i in range(self.length)]

    @property
    def position(self) -> int:
        """Its position along its line: the column if horizontal, else the row."""
        return self.col if self.horizontal else self.row

    def moved_to(self, position: int) -> "Vehicle":
        """The same vehicle at another position along its line."""
        if self.horizontal:
            return replace(self, col=position)
        return replace(self, row=position)


@dataclass(frozen=True)
class RushHourBoard:
    """A validated Rush Hour board; `red` names the red car."""

    size: int
    vehicles: tuple[Vehicle, ...]
    red: str
    walls: frozenset[tuple[int, int]] = field(default_factory=frozenset)
    name: str = ""

    @property
    def red_vehicle(self) -> Vehicle:
        """The red car."""
        return next(v for v in self.vehicles if v.name == self.red)

    def grid(self) -> list[list[str | None]]:
        """Rows of cells holding a vehicle name, "#" for a wall, or None."""
        cells: list[list[str | None]] = [[None] * self.size for _ in range(self.size)]
        for row, col in self.walls:
            cells[row][col] = "#"
        for vehicle in self.vehicles:
            for row, col in vehicle.cells():
                cells[row][col] = vehicle.name
        return cells

    def is_solved(self) -> bool:
        """True when the red car touches the right edge."""
        red = self.red_vehicle
        return red.col + red.length == self.size

    def with_positions(self, positions: list[int]) -> "RushHourBoard":
        """The board with each vehicle moved to the given position along its line."""
        moved = tuple(v.moved_to(p) for v, p in zip(self.vehicles, positions))
        return replace(self, vehicles=moved)
