"""Printing the board catalogue: the sets, a set's boards, and one board with its picture."""

from rich.table import Table

from orchestrator.boards.catalogue import BoardInfo, SetSummary
from orchestrator.text import plain_table
from puzzles.domains import find_domain
from puzzles.errors import PuzzleError
from workers.store import Database
from workers.store.boards import StoredBoard


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
        table.add_row(str(number), board.name, find_domain(board.domain).name, shape(board.domain, board.canonical_text),
                      optimum, board.id[:12])
    return table


def board_record(board: StoredBoard) -> dict:
    """A board as `boards list --json` gives it: name, domain, shape, known optimum, id and canonical text."""
    return {"name": board.name, "domain": board.domain, "shape": shape(board.domain, board.canonical_text),
            "known_optimum": board.known_optimum, "id": board.id, "text": board.canonical_text}


def board_card(info: BoardInfo) -> str:
    """A board as labelled lines (name, id, domain and size, vehicles or tiles, known optimum, sets), then its picture."""
    board = info.board
    domain = find_domain(board.domain)
    card = domain.card(board.text)
    rows = [
        ("board", board.name or "-"),
        ("id", board.id),
        ("domain", f"{domain.name}, {card.shape}"),
        *card.details,
        ("known optimum", "unknown" if info.known_optimum is None else f"{info.known_optimum} moves"),
        ("sets", "not in the database" if info.sets is None else ", ".join(info.sets) or "none"),
    ]
    width = max(len(label) for label, _ in rows) + 2
    lines = [f"{label + ':' if label else '':<{width}}" + text.replace("\n", "\n" + " " * width) for label, text in rows]
    return "\n".join(lines) + "\n\n" + card.grid


def board_picture(info: BoardInfo) -> str:
    """The board as an SVG file (`boards show BOARD --svg FILE`)."""
    from orchestrator.boards.pictures import board_svg, standalone

    return standalone(board_svg(info.board.domain, info.board.text).svg)


def job_picture(db: Database, record: dict) -> str:
    """The job's board as an SVG file that plays the job's solution, if it has one (`job N --svg FILE`)."""
    from orchestrator.boards.pictures import animated_svg, standalone
    from workers.store.boards import board_with_sets

    found = board_with_sets(db, record["job"]["board_id"])
    if found is None:
        raise PuzzleError("the job's board is not in the database")
    board, _ = found
    solution = (record["result"] or {}).get("solution")
    return standalone(animated_svg(board.domain, board.canonical_text, solution))


def shape(domain: str, text: str) -> str:
    """`WxH` of a board's canonical text."""
    return find_domain(domain).card(text).shape
