"""Reading board texts: files, JSON, sizes (`WxH`), short quotes of bad values for error messages, and counted nouns.

Shared by every domain's formats; each problem is a `PuzzleError` naming the source.
"""

import hashlib
import json
import math
import os
from pathlib import Path
from typing import TypeGuard

from puzzles.errors import PuzzleError

MAX_FILE_BYTES = 1 << 20


def read_text(path: Path, source: str, limit: int = MAX_FILE_BYTES) -> str:
    """The text of a regular file of at most `limit` bytes, refusing empty, oversized or non-UTF-8 files."""
    try:
        if not path.is_file():
            raise PuzzleError("not a regular file" if path.exists() else "no such file", source=source)
        nbytes = path.stat().st_size
        if nbytes > limit:
            raise PuzzleError(f"file too large ({nbytes:,} bytes; the limit is {limit >> 20} MiB)", source=source)
        if nbytes == 0:
            raise PuzzleError("empty file", source=source)
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PuzzleError(f"not UTF-8 text (byte {exc.start})", source=source) from None
    except OSError as exc:
        raise PuzzleError(f"cannot read file: {exc.strerror}", source=source) from None


def neither_file_nor_board(source: str, allowed: set[str], alphabet: str) -> str:
    """Why `source`, which names no file, is not a board string either: the first character outside `allowed`."""
    if os.path.exists(source):
        return "not a regular file"
    if Path(source).suffix[1:].isalpha():
        return "no such file"
    index, char = next((i, c) for i, c in enumerate(source) if c not in allowed)
    return f"no such file, and not a board string: {char!r} at character {index + 1} is none of {alphabet}"


def json_load(text: str, source: str) -> object:
    """The JSON value of a text, refusing malformed JSON, NaN/Infinity and duplicate keys."""

    def no_constant(constant: str) -> None:
        raise PuzzleError(f"not valid JSON: {constant} is not a number", source=source)

    def unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise PuzzleError(f"duplicate key {key!r} in JSON board", source=source)
            seen.add(key)
        return dict(pairs)

    try:
        return json.loads(text, object_pairs_hook=unique_keys, parse_constant=no_constant)
    except json.JSONDecodeError as exc:
        raise PuzzleError(f"not valid JSON: {exc.msg} (col {exc.colno})", source=source, line=exc.lineno) from None
    except RecursionError:
        raise PuzzleError("not valid JSON: nested too deeply", source=source) from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise PuzzleError(f"not valid JSON: {str(exc).split(';')[0]}", source=source) from None


def is_integer(value: object) -> TypeGuard[int]:
    """True for a JSON integer (not a bool, not a float)."""
    return isinstance(value, int) and not isinstance(value, bool)


def brief(value: object) -> str:
    """A JSON value as short text for an error message (an integer of many digits by its size)."""
    if is_integer(value) and value.bit_length() > 128:
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    text = json.dumps(value, default=repr)
    return text if len(text) <= 40 else text[:37] + "..."


def quote(text: str, limit: int = 40) -> str:
    """A string quoted as Python writes it (control characters escaped), cut to about `limit` characters."""
    return repr(text) if len(text) <= limit else repr(text[: limit - 3]) + "..."


def plural(count: int, noun: str) -> str:
    """`1 job`, `2 jobs`, `12,345 jobs`: a count and its noun, which takes an s unless the count is one."""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def numbered_names(prefix: str, count: int) -> list[str]:
    """`count` board names `<prefix>-001`, `<prefix>-002`, ... (more digits where `count` needs them)."""
    digits = max(3, len(str(count)))
    return [f"{prefix}-{number:0{digits}d}" for number in range(1, count + 1)]


def text_id(text: str) -> str:
    """The sha256 hex digest of a board's canonical text: its id in the results database."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def json_object(text: str, source: str, keys: tuple[str, ...]) -> dict[str, object]:
    """A JSON board: an object with exactly `keys`, or a PuzzleError naming what is missing or unknown."""
    data = json_load(text, source)
    if not isinstance(data, dict):
        raise PuzzleError(f"a JSON board is an object with keys {', '.join(keys)}", source=source)
    missing = [key for key in keys if key not in data]
    if missing:
        raise PuzzleError(f"JSON board lacks key {', '.join(missing)}", source=source)
    unknown = sorted(set(data) - set(keys))
    if unknown:
        raise PuzzleError(
            f"unknown key {', '.join(map(repr, unknown))} in JSON board (expected {', '.join(keys)})",
            source=source,
        )
    return data


def parse_shape(text: str) -> tuple[int, int]:
    """(width, height) of a board size written `WxH` (`4x4`); PuzzleError otherwise."""
    width, _, height = text.lower().partition("x")
    if not (width.isdigit() and height.isdigit()):
        raise PuzzleError(f"size {text!r} is not WxH (e.g. 3x3)")
    return int(width), int(height)
