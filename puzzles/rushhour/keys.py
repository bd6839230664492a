"""Rush Hour's key layout: the vehicles of a lane ranked together, the ranks packed end to end in 64-bit words.

Vehicles that share a lane (horizontal ones on a row, vertical ones on a
column) never pass one another, so their positions p_0 < p_1 < ... (in lane
order, lengths l_0, l_1, ...) form a combination: d_j = p_j - (l_0 + ... +
l_{j-1}) + j rises strictly within 0 .. F + m - 1, where m is their number and
F = N - (l_0 + ... + l_{m-1}), and its colex rank, the sum of C(d_j, j + 1),
numbers their arrangements 0 .. C(F + m, m) - 1. On 12x12_7 that makes 112
bits of 44 vehicles (two words) where a field per vehicle took 176 (three).

A *group* is a run of consecutive vehicles of one lane whose arrangements
number at most MAX_ARRANGEMENTS (long lanes of big boards are cut into
several). Its rank takes ceil(log2(arrangements)) bits, and the fields lie end
to end from bit 0 of word 0, so a field may straddle two words; the last
word's top RESERVED_BITS stay zero. Moving vehicle i from p to q adds
weight[i, q] - weight[i, p] to its group's rank (weight[i, p] is its term
C(d_j, j + 1)); a table per group gives its members' positions from its
rank, `width` bits apart.
"""

import math
from dataclasses import dataclass

import numpy as np

from puzzles.errors import PuzzleError
from puzzles.problem import RESERVED_BITS
from puzzles.rushhour.board import RushHourBoard

MAX_ARRANGEMENTS = 1 << 10


@dataclass(frozen=True)
class KeyLayout:
    """Where each vehicle's position lives in a key: the arrays the compiled spec carries, and the word count."""

    key_words: int
    width: int  # bits per position in a group's table entry
    group: np.ndarray  # of each vehicle
    slot_shift: np.ndarray  # of each vehicle: where its position sits in its group's table entries
    weight: np.ndarray  # weight[i, p]: vehicle i's term of its group's rank at position p
    members: np.ndarray  # the vehicles of group g are members[member_start[g]:member_start[g + 1]], in lane order
    member_start: np.ndarray
    field_word: np.ndarray  # of each group: the word its field starts in, the next one (or the same, if last),
    field_next: np.ndarray
    field_shift: np.ndarray  # the bit it starts at in that word,
    field_mask: np.ndarray  # and its width as a mask
    table_start: np.ndarray  # where the group's table starts in `tables`
    tables: np.ndarray  # rank -> the members' positions, `width` bits apart


def layout(board: RushHourBoard) -> KeyLayout:
    """The key layout of a board: its lanes' vehicles in groups, each group's field, weights and table."""
    width = max(max(board.size - v.length for v in board.vehicles), 1).bit_length()
    groups = _groups(board, width)
    count = len(board.vehicles)
    group, slot_shift = np.zeros(count, np.int64), np.zeros(count, np.int64)
    weight = np.zeros((count, board.size), np.int64)
    tables: list[int] = []
    table_start, bits = [], []
    for g, members in enumerate(groups):
        lengths = [board.vehicles[i].length for i in members]
        for j, i in enumerate(members):
            group[i], slot_shift[i] = g, j * width
            before = sum(lengths[:j])
            for p in range(before, board.size):
                weight[i, p] = math.comb(p - before + j, j + 1)
        table_start.append(len(tables))
        tables += _arrangements(board.size, lengths, width)
        bits.append(max((len(tables) - table_start[-1] - 1).bit_length(), 1))
    offsets = np.cumsum([0] + bits)
    key_words = -(-(int(offsets[-1]) + RESERVED_BITS) // 64)
    word = offsets[:-1] // 64
    return KeyLayout(
        key_words=key_words, width=width, group=group, slot_shift=slot_shift, weight=weight,
        members=np.array([i for members in groups for i in members], np.int64),
        member_start=np.cumsum([0] + [len(members) for members in groups]).astype(np.int64),
        field_word=word.astype(np.int64), field_next=np.minimum(word + 1, key_words - 1).astype(np.int64),
        field_shift=(offsets[:-1] % 64).astype(np.int64),
        field_mask=np.array([(1 << b) - 1 for b in bits], np.uint64),
        table_start=np.array(table_start, np.int64), tables=np.array(tables, np.uint64),
    )


def _groups(board: RushHourBoard, width: int) -> list[list[int]]:
    """The vehicles' indices by lane, in lane order, each lane cut into runs of at most MAX_ARRANGEMENTS."""
    lanes: dict[tuple[bool, int], list[int]] = {}
    for i, v in enumerate(board.vehicles):
        lanes.setdefault((v.horizontal, v.row if v.horizontal else v.col), []).append(i)
    groups: list[list[int]] = []
    for lane in lanes.values():
        lane.sort(key=lambda i: board.vehicles[i].position)
        run: list[int] = []
        for i in lane:
            lengths = [board.vehicles[v].length for v in run + [i]]
            if run and (len(lengths) * width > 64 or _count(board.size, lengths) > MAX_ARRANGEMENTS):
                groups.append(run)
                run = []
            run.append(i)
        groups.append(run)
    return groups


def _count(size: int, lengths: list[int]) -> int:
    """How many ways vehicles of these lengths, in this order, fit in a lane of `size` cells."""
    return math.comb(size - sum(lengths) + len(lengths), len(lengths))


def _arrangements(size: int, lengths: list[int], width: int) -> list[int]:
    """Every arrangement of the vehicles in a lane, in rank order, as their positions packed `width` bits apart."""
    table = []
    for chosen in _colex_combinations(size - sum(lengths) + len(lengths), len(lengths)):
        packed, before = 0, 0
        for j, d in enumerate(chosen):
            packed |= (d - j + before) << (j * width)
            before += lengths[j]
        table.append(packed)
    return table


def _colex_combinations(n: int, m: int) -> list[tuple[int, ...]]:
    """The m-subsets of 0..n-1 as increasing tuples, in colex order (that of the rank sum C(d_j, j + 1))."""
    if m == 0:
        return [()]
    return [rest + (last,) for last in range(m - 1, n) for rest in _colex_combinations(last, m - 1)]


def encode(key_layout: KeyLayout, lengths: list[int], positions: list[int]) -> np.ndarray:
    """The key of the vehicles at these positions; PuzzleError if two of one lane overlap or change order."""
    big = 0
    for g in range(key_layout.member_start.shape[0] - 1):
        members = key_layout.members[key_layout.member_start[g]:key_layout.member_start[g + 1]]
        for a, b in zip(members, members[1:]):
            if positions[a] + lengths[a] > positions[b]:
                raise PuzzleError(f"vehicles {a} and {b} overlap or have swapped places in their lane")
        rank = sum(int(key_layout.weight[i, positions[i]]) for i in members)
        big |= rank << (64 * int(key_layout.field_word[g]) + int(key_layout.field_shift[g]))
    return np.array([(big >> (64 * w)) & ((1 << 64) - 1) for w in range(key_layout.key_words)], dtype=np.uint64)


def decode(key_layout: KeyLayout, key: np.ndarray) -> list[int]:
    """The position of each vehicle in the key."""
    big = sum(int(word) << (64 * w) for w, word in enumerate(key))
    positions = [0] * key_layout.group.shape[0]
    for i, g in enumerate(key_layout.group):
        rank = (big >> (64 * int(key_layout.field_word[g]) + int(key_layout.field_shift[g]))) & int(key_layout.field_mask[g])
        entry = int(key_layout.tables[key_layout.table_start[g] + rank])
        positions[i] = (entry >> int(key_layout.slot_shift[i])) & ((1 << key_layout.width) - 1)
    return positions
