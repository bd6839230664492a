"""A depth-first search's memo (a transposition table): each state with the bound and budget it was last searched to.

Fogleman's Rush Hour solver keeps such a memo: a state already searched with at
least the moves left now is not searched again, which turns the exponential
revisits of depth-first search on a graph full of transpositions into a few
passes over the states. An informed search also keeps each state's heuristic
value there, so that it is computed once per state rather than once per path
to it. A slot is `key_words + 1` words: the key, then the entry, three
21-bit fields `bound | budget + 1 | estimate + 1` (so bounds and estimates
below 2**21 - 1, two million moves), 0 for an empty slot; a
state met beyond the bound is held for its estimate alone, with the budget
NOT_SEARCHED. The home slot and
the probing are the state set's (`puzzles.stateset`). The table grows twice
as large when 3/4 full; when it cannot (a memory cap, RLIMIT_AS, was reached)
it stops taking new states, and the search goes on with what it holds: the memo
saves time and never changes an answer.
"""

import numpy as np

from puzzles.intrinsics import prefetch
from puzzles.jit import nb
from puzzles.nodestore import HASH_SEED, mix_word
from puzzles.stateset import full, home

NEW, SEARCHED_NOW, SEARCHED_BEFORE = range(3)  # what `remember` found
STORED, SATURATED = range(2)  # a memo's fill: the states it holds, and 1 once it could not grow
NOT_SEARCHED = -1  # the budget of a state held for its estimate only
_FIELD = np.uint64(21)
_MASK = np.uint64((1 << 21) - 1)
FIRST_CAPACITY = 1 << 12


@nb.njit(cache=True)
def new_memo(key_words, capacity):
    """An empty memo of `capacity` slots for keys of `key_words` words (capacity 0: no memo), and its fill."""
    return np.zeros((capacity, key_words + 1), dtype=np.uint64), np.zeros(2, dtype=np.int64)


@nb.njit(inline="always", cache=True)
def key_hash(keys, layer, row):
    """The hash of the key `keys[layer, row]` (`keys` 3-D: a search's stack of children, no row view made)."""
    h = HASH_SEED
    for w in range(keys.shape[2]):
        h = mix_word(h, keys[layer, row, w])
    return h


@nb.njit(inline="always", cache=True)
def prefetch_slot(table, h):
    """Start loading the home slot of hash `h` into the cache (a search does it for every child it generates)."""
    if table.shape[0]:
        prefetch(table, home(h, table.shape[0]))


@nb.njit(inline="always", cache=True)
def find(table, keys, layer, row, h):
    """The slot holding the key `keys[layer, row]`, whose hash is `h`, or the empty slot where it belongs."""
    words = table.shape[1] - 1
    slot = home(h, table.shape[0])
    while table[slot, words] != 0:
        same = True
        for w in range(words):
            if table[slot, w] != keys[layer, row, w]:
                same = False
                break
        if same:
            return slot
        slot = slot + 1 if slot + 1 < table.shape[0] else 0
    return slot


@nb.njit(inline="always", cache=True)
def estimate_in(table, slot):
    """The heuristic value kept in `slot` (found by `find`), or -1 if the slot is empty."""
    return np.int64(table[slot, table.shape[1] - 1] & _MASK) - 1


@nb.njit(inline="always", cache=True)
def _budget(entry):
    return np.int64((entry >> _FIELD) & _MASK) - 1


@nb.njit(inline="always", cache=True)
def remember(table, fill, slot, keys, layer, row, h, bound, budget, estimate):
    """Look up the key `keys[layer, row]` (hash `h`, in `slot` as `find` gave), searched now in the iteration of
    `bound` with `budget` moves left (NOT_SEARCHED: only met), its heuristic value `estimate`.

    Returns (table, found, its budget then): SEARCHED_NOW or SEARCHED_BEFORE
    (in this iteration or an earlier one) if it was searched with at least
    `budget` moves left, and then it need not be searched again; else NEW,
    and the state is recorded with `bound`, `budget` and `estimate`, the
    table grown if need be (a state not held yet is not recorded once the
    table could not grow).
    """
    words = table.shape[1] - 1
    entry = table[slot, words]
    if entry != 0 and _budget(entry) >= budget:
        found = SEARCHED_NOW if np.int64(entry >> (_FIELD + _FIELD)) == bound else SEARCHED_BEFORE
        return table, found, _budget(entry)
    if entry == 0:
        if full(table, fill[STORED] + 1):
            if fill[SATURATED]:
                return table, NEW, budget
            table = _grown(table, fill)
            if fill[SATURATED]:
                return table, NEW, budget
            slot = find(table, keys, layer, row, h)
        for w in range(words):
            table[slot, w] = keys[layer, row, w]
        fill[STORED] += 1
    table[slot, words] = ((np.uint64(bound) << (_FIELD + _FIELD)) | (np.uint64(budget + 1) << _FIELD)
                          | np.uint64(estimate + 1))
    return table, NEW, budget


@nb.njit(cache=True)
def _grown(table, fill):
    """The table twice as large, its entries moved; the same table, marked SATURATED, if the allocation fails."""
    try:
        bigger = np.zeros((2 * table.shape[0], table.shape[1]), dtype=np.uint64)
    except Exception:  # noqa: BLE001 - numba catches no narrower class than Exception (here a MemoryError)
        fill[SATURATED] = 1
        return table
    words = table.shape[1] - 1
    for slot in range(table.shape[0]):
        if table[slot, words] != 0:
            h = HASH_SEED
            for w in range(words):
                h = mix_word(h, table[slot, w])
            target = home(h, bigger.shape[0])
            while bigger[target, words] != 0:  # the keys are distinct: the first empty slot from home is theirs
                target = target + 1 if target + 1 < bigger.shape[0] else 0
            for w in range(words + 1):
                bigger[target, w] = table[slot, w]
    return bigger
