"""Rush Hour's key layout: the vehicles of a lane ranked together, the ranks packed in 64-bit words.

Vehicles that share a lane (horizontal ones on a row, vertical ones on a
column) never pass one another, so their positions p_0 < p_1 < ... (in lane
order, lengths l_0, l_1, ...) form a combination: d_j = p_j - (l_0 + ... +
l_{j-1}) + j rises strictly within 0 .. F + m - 1, where m is their number and
F = N - (l_0 + ... + l_{m-1}), and its colex rank, the sum of C(d_j, j + 1),
numbers their arrangements 0 .. C(F + m, m) - 1. On 12x12_7 that makes 112
bits of 44 vehicles (two words) where a field per vehicle took 176 (three).

A *group* is a run of consecutive vehicles of one lane whose arrangements
number at most MAX_ARRANGEMENTS (long lanes of big boards are cut into
several). A *field* holds the ranks of one or more groups as one number in
mixed radix (rank_1 + count_1 * (rank_2 + count_2 * ...)), in as many bits as
the product of their counts needs: groups whose counts leave bits unused share
a field while that saves a bit and the product stays within MAX_ARRANGEMENTS
(9x9_6's 17 groups take 61 bits in 15 fields, 63 in a field each: one word
instead of two). The fields lie end to end from bit 0 of word 0, so a field
may straddle two words; the last word's top RESERVED_BITS stay zero. Moving
vehicle i from p to q adds weight[i, q] - weight[i, p] to its field
(weight[i, p] is its term C(d_j, j + 1) times its group's radix); a table per
vehicle gives its position from its field's value.
"""

import heapq
import itertools
import math
from dataclasses import dataclass

import numpy as np

from puzzles.errors import PuzzleError
from puzzles.problem import RESERVED_BITS
from puzzles.rushhour.board import RushHourBoard

MAX_ARRANGEMENTS = 1 << 10  # of a group, and of a field: each member's table has an entry per value of its field
WORD, NEXT_WORD, SHIFT, MASK, TABLE_START = range(5)  # the columns of KeyLayout.place


@dataclass(frozen=True)
class KeyLayout:
    """Where each vehicle's position lives in a key, and the number of words.

    Row i of `place` is vehicle i's: its field lies at bit SHIFT of word
    WORD, MASK wide, running on into word NEXT_WORD if it straddles (else
    NEXT_WORD is WORD or the word after it); its position when the field holds
    value v is `table[TABLE_START + v]`.
    """

    key_words: int
    place: np.ndarray
    weight: np.ndarray  # weight[i, p]: vehicle i's term of its field's value at position p
    table: np.ndarray
    groups: tuple[tuple[int, ...], ...]  # the vehicles ranked together, each group in lane order
    fields: tuple[tuple[int, ...], ...]  # the groups (indices into `groups`) of each field, lowest radix first
    counts: tuple[int, ...]  # each group's number of arrangements

    def field(self, i: int) -> tuple[int, int]:
        """(the bit where vehicle i's group's field starts, counting from bit 0 of word 0; the field's mask)."""
        return 64 * int(self.place[i, WORD]) + int(self.place[i, SHIFT]), int(self.place[i, MASK])


def layout(board: RushHourBoard) -> KeyLayout:
    """The key layout of a board: its lanes' vehicles in groups, the groups in fields, each vehicle's weights and
    table."""
    groups = _groups(board)
    count = len(board.vehicles)
    counts = [_count(board.size, [board.vehicles[i].length for i in members]) for members in groups]
    fields = _fields(counts)
    weight = np.zeros((count, board.size), np.int64)
    table: list[int]  # every vehicle's table, end to end
    bits, field_of, table_start, table = [], np.zeros(count, np.int64), np.zeros(count, np.int64), []
    for f, field in enumerate(fields):
        values = math.prod(counts[g] for g in field)
        bits.append(_bits(values))
        radix = 1
        for g in field:
            members = groups[g]
            lengths = [board.vehicles[i].length for i in members]
            arrangements = _arrangements(board.size, lengths)
            for j, i in enumerate(members):
                field_of[i] = f
                before = sum(lengths[:j])
                for p in range(before, board.size):
                    weight[i, p] = math.comb(p - before + j, j + 1) * radix
                table_start[i] = len(table)
                table += [arrangements[value // radix % counts[g]][j] for value in range(values)]
            radix *= counts[g]
    offsets = np.cumsum([0] + bits)[field_of]
    key_words = -(-(sum(bits) + RESERVED_BITS) // 64)
    masks = [(1 << bits[f]) - 1 for f in field_of]
    place = np.stack([offsets // 64, np.minimum(offsets // 64 + 1, key_words - 1), offsets % 64, masks, table_start], axis=1)
    return KeyLayout(key_words=key_words, place=place.astype(np.int64), weight=weight, table=np.array(table, np.uint8),
                     groups=tuple(tuple(members) for members in groups), fields=tuple(tuple(f) for f in fields),
                     counts=tuple(counts))


def _bits(values: int) -> int:
    """The bits a field of `values` values takes (at least one)."""
    return max((values - 1).bit_length(), 1)


def _fields(counts: list[int]) -> list[list[int]]:
    """The groups (by index) sharing each field: two fields merged at a time, the merge saving most bits first (then
    the smallest product), while one saves a bit and keeps the product of counts within MAX_ARRANGEMENTS.

    The candidate merges wait in a heap; those of a field already merged are
    dropped when they come up, so a board of F groups takes O(F^2 log F).
    """
    fields, values = {g: [g] for g in range(len(counts))}, dict(enumerate(counts))
    merges: list[tuple[int, int, int, int]] = []
    ids = itertools.count(len(counts))  # a merged field's id: one no field has had

    def consider(a: int, b: int) -> None:
        product = values[a] * values[b]
        saving = _bits(values[a]) + _bits(values[b]) - _bits(product)
        if product <= MAX_ARRANGEMENTS and saving > 0:
            heapq.heappush(merges, (-saving, product, a, b))

    least = min(counts, default=1)
    small = [g for g in fields if values[g] * least <= MAX_ARRANGEMENTS]  # the others cannot share a field
    for at, a in enumerate(small):
        for b in small[at + 1:]:
            consider(a, b)
    while merges:
        _, product, a, b = heapq.heappop(merges)
        if a not in fields or b not in fields:
            continue
        merged = next(ids)
        fields[merged], values[merged] = fields.pop(a) + fields.pop(b), product
        del values[a], values[b]
        for other in fields:
            if other != merged:
                consider(other, merged)
    return list(fields.values())


def _groups(board: RushHourBoard) -> list[list[int]]:
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
            if run and _count(board.size, lengths) > MAX_ARRANGEMENTS:
                groups.append(run)
                run = []
            run.append(i)
        groups.append(run)
    return groups


def _count(size: int, lengths: list[int]) -> int:
    """How many ways vehicles of these lengths, in this order, fit in a lane of `size` cells."""
    return math.comb(size - sum(lengths) + len(lengths), len(lengths))


def _arrangements(size: int, lengths: list[int]) -> list[list[int]]:
    """Every arrangement of vehicles of these lengths in a lane, in rank order, as their positions."""
    table = []
    for chosen in _colex_combinations(size - sum(lengths) + len(lengths), len(lengths)):
        table.append([d - j + sum(lengths[:j]) for j, d in enumerate(chosen)])
    return table


def _colex_combinations(n: int, m: int) -> list[tuple[int, ...]]:
    """The m-subsets of 0..n-1 as increasing tuples, in colex order (that of the rank sum C(d_j, j + 1))."""
    if m == 0:
        return [()]
    return [rest + (last,) for last in range(m - 1, n) for rest in _colex_combinations(last, m - 1)]


def encode(key_layout: KeyLayout, lengths: list[int], positions: list[int]) -> np.ndarray:
    """The key of the vehicles at these positions; PuzzleError if two of one lane overlap or change order."""
    for group in key_layout.groups:
        for a, b in zip(group, group[1:]):
            if positions[a] + lengths[a] > positions[b]:
                raise PuzzleError(f"vehicles {a} and {b} overlap or have swapped places in their lane")
    big = 0
    for field in key_layout.fields:
        members = [i for g in field for i in key_layout.groups[g]]
        big |= sum(int(key_layout.weight[i, positions[i]]) for i in members) << key_layout.field(members[0])[0]
    return np.array([(big >> (64 * w)) & ((1 << 64) - 1) for w in range(key_layout.key_words)], dtype=np.uint64)


def decode(key_layout: KeyLayout, key: np.ndarray) -> list[int]:
    """The position of each vehicle in the key."""
    big = sum(int(word) << (64 * w) for w, word in enumerate(key))
    positions = []
    for i in range(key_layout.place.shape[0]):
        at, mask = key_layout.field(i)
        positions.append(int(key_layout.table[key_layout.place[i, TABLE_START] + ((big >> at) & mask)]))
    return positions
