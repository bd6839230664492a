"""Printing the board catalogue: the sets, a set's boards, and one board with its picture."""

import json

from rich.table import Table

from orchestrator.boards.catalogue import BoardInfo, SetSummary
from orchestrator.boards.show import plain_grid
from orchestrator.text import plain_table
from puzzles.npuzzle.formats import format_npuzzle, parse_npuzzle
from puzzles.rushhour.formats import parse_board
from workers.store import Database
from workers.store.boards import StoredBoard

DOMAIN_NAMES = {"rushhour": "Rush Hour", "npuzzle": "N-puzzle"}
WIDTH = 88


def sets_table(sets: list[SetSummary]) -> Table:
    """One row per set: its boards, how many have a known optimum, when it was made (or that it ships)."""
    table = plain_table()
    for column in ("set", "boards", "known optima", "created"):
        table.add_column(column, justify="right" if column in ("boards", "known optima") else "left")
    for summary in sets:
        created = summary.created_at.strftime("%Y-%m-%d %H:%M") if summary.created_at else "imported on first use"
        table.add_row(summary.name, f"{summary.boards:,}", f"{summary.optima:,}", created + " (shipped)" * summary.shipped)
    return table


def boards_table(boards: list[StoredBoard]) -> Table:
    """One row per board, in the order given: its name, domain, size, known optimum and id."""
    table = plain_table()
    for column in ("#", "board", "domain", "size", "known optimum", "id"):
        table.add_column(column, justify="right" if column in ("#", "known optimum") else "left")
    for number, board in enumerate(boards, 1):
        optimum = "–" if board.known_optimum is None else str(board.known_optimum)
        table.add_row(str(number), board.name, DOMAIN_NAMES[board.domain], shape(board.domain, board.canonical_text),
                      optimum, board.id[:12])
    return table


def board_record(board: StoredBoard) -> dict:
    """A board as `boards list --json` gives it: name, domain, shape, known optimum, id and canonical text."""
    return {"name": board.name, "domain": board.domain, "shape": shape(board.domain, board.canonical_text),
            "known_optimum": board.known_optimum, "id": board.id, "text": board.canonical_text}


def board_card(info: BoardInfo) -> str:
    """A board as labelled lines (name, id, domain and size, vehicles or tiles, known optimum, sets), then its picture."""
    board = info.board
    details, picture = (_rushhour if board.domain == "rushhour" else _npuzzle)(board.text)
    rows = [
        ("board", board.name or "-"),
        ("id", board.id),
        ("domain", f"{DOMAIN_NAMES[board.domain]}, {shape(board.domain, board.text)}"),
        *details,
        ("known optimum", "unknown" if info.known_optimum is None else f"{info.known_optimum} moves"),
        ("sets", "not in the database" if info.sets is None else ", ".join(info.sets) or "none"),
    ]
    width = max(len(label) for label, _ in rows) + 2
    lines = [f"{label + ':' if label else '':<{width}}" + text.replace("\n", "\n" + " " * width) for label, text in rows]
    return "\n".join(lines) + "\n\n" + picture


def board_picture(info: BoardInfo) -> str:
    """The board as an SVG file (`boards show BOARD --svg FILE`)."""
    from orchestrator.boards.pictures import board_svg, standalone

    return standalone(board_svg(info.board.domain, info.board.text).svg)


def job_picture(db: Database, record: dict) -> str:
    """The job's board as an SVG file that plays the job's solution, if it has one (`job N --svg FILE`)."""
    from orchestrator.boards.pictures import animated_svg, standalone
    from workers.store.boards import board_with_sets

    board, _ = board_with_sets(db, record["job"]["board_id"])
    solution = (record["result"] or {}).get("solution")
    return standalone(animated_svg(board.domain, board.canonical_text, solution))


def shape(domain: str, text: str) -> str:
    """`WxH` of a board's canonical text."""
    data = json.loads(text)
    return f"{data['size']}x{data['size']}" if domain == "rushhour" else f"{data['width']}x{data['height']}"


def _rushhour(text: str) -> tuple[list[tuple[str, str]], str]:
    """The vehicles as in the course CSV (label, H/V, 1-based column and row, length) and the grid of labels."""
    board = parse_board(text, fmt="json")
    vehicles = [f"{v.name} {'H' if v.horizontal else 'V'} {v.col + 1},{v.row + 1} {v.length}" for v in board.vehicles]
    details = [("vehicles", f"{len(board.vehicles)}, red car {board.red}"), ("", _joined(vehicles, WIDTH - 16))]
    if board.walls:
        details.append(("walls", " ".join(f"{col + 1},{row + 1}" for row, col in sorted(board.walls))))
    return details, plain_grid(board)


def _joined(items: list[str], width: int) -> str:
    """The items separated by `; `, on lines of at most `width` characters, never broken inside an item."""
    lines = [""]
    for item in items:
        if lines[-1] and len(lines[-1]) + len(item) + 2 > width:
            lines.append("")
        lines[-1] += f"; {item}" if lines[-1] else item
    return "\n".join(lines)


def _npuzzle(text: str) -> tuple[list[tuple[str, str]], str]:
    """The tiles on one line and the goal, and the rows of tiles (0 the blank)."""
    board = parse_npuzzle(text, fmt="json")
    return [("tiles", format_npuzzle(board, "line")), ("goal", board.goal)], format_npuzzle(board, "rows").rstrip("\n")
