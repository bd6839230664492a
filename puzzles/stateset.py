"""A compiled set of state keys: an open-addressing table with each key inline and a tag in its reserved bits.

A slot is `key_words` words: the key, with a non-zero tag (1 to MAX_TAG) in the
top RESERVED_BITS of the last word; 0 there is an empty slot. Breadth-first
searches tag a state with its depth modulo 3 (`depth_tag`): moves are
reversible, so a state's neighbours lie one layer before it, in its own, or one
after, and the tag tells those three apart. The home slot of a hash is its top
32 bits scaled to the capacity (any capacity below 2**32), and probing is
linear. When 3/4 full the table grows as much as MAX_BYTES_PER_KEY allows a key
of its width, twice as large at most (one word: 2, two: 1.875, three: 1.25): a
key then costs `8 * key_words` bytes divided by a load of 3/8 to 3/4, at most
40 bytes for keys of up to three words. Growing by half took 10-25 % more time
in beam searches (more tables zeroed, more keys re-inserted). Searches prefetch
the home slots of a batch of keys before they probe any, so that the cache
misses overlap.
"""

import numpy as np

from puzzles.intrinsics import advise_huge_pages, prefetch
from puzzles.jit import nb
from puzzles.nodestore import HASH_SEED, copy_row, mix_word
from puzzles.problem import RESERVED_BITS

_TAG_SHIFT = np.uint64(64 - RESERVED_BITS)
_KEY_BITS = (np.uint64(1) << _TAG_SHIFT) - np.uint64(1)
MAX_TAG = (1 << RESERVED_BITS) - 1
BATCH = 16  # parents a search expands before it probes their successors, whose home slots it prefetched
MAX_BYTES_PER_KEY = 40


@nb.njit(inline="always", cache=True)
def depth_tag(depth):
    """The tag of a state at `depth` (0 or more): its depth modulo 3, plus 1."""
    return depth % 3 + 1


@nb.njit(cache=True)
def new_table(capacity, key_words):
    """An empty table of `capacity` slots (backed by huge pages where Linux allows)."""
    table = np.empty((capacity, key_words), dtype=np.uint64)
    advise_huge_pages(table)
    table[:] = 0
    return table


@nb.njit(inline="always", cache=True)
def home(h, capacity):
    """The first slot for hash `h`."""
    return np.int64(((h >> np.uint64(32)) * np.uint64(capacity)) >> np.uint64(32))


@nb.njit(inline="always", cache=True)
def prefetch_home(table, h):
    """Start loading the home slot of hash `h` into the cache."""
    prefetch(table, home(h, table.shape[0]))


@nb.njit(inline="always", cache=True)
def tag_at(table, slot):
    """The tag stored in a slot, or 0 if it is empty."""
    return np.int64(table[slot, table.shape[1] - 1] >> _TAG_SHIFT)


@nb.njit(inline="always", cache=True)
def slot_of(table, keys, row, h):
    """The slot holding row `row` of `keys` (whose hash is `h`), or the empty slot where it belongs."""
    last = table.shape[1] - 1
    slot = home(h, table.shape[0])
    while True:
        stored = table[slot, last]
        if stored == 0:
            return slot
        if (stored & _KEY_BITS) == keys[row, last]:
            same = True
            for w in range(last):
                if table[slot, w] != keys[row, w]:
                    same = False
                    break
            if same:
                return slot
        slot += 1
        if slot == table.shape[0]:
            slot = 0


@nb.njit(inline="always", cache=True)
def put(table, slot, keys, row, tag):
    """Store row `row` of `keys` with `tag` (1 to MAX_TAG) in an empty slot."""
    last = table.shape[1] - 1
    for w in range(last):
        table[slot, w] = keys[row, w]
    table[slot, last] = keys[row, last] | (np.uint64(tag) << _TAG_SHIFT)


@nb.njit(inline="always", cache=True)
def copy_key(target, row, table, slot):
    """Copy the key held in `slot` (its tag cleared) into row `row` of `target`."""
    copy_row(target, row, table, slot)
    target[row, table.shape[1] - 1] &= _KEY_BITS


@nb.njit(cache=True)
def _grown(table):
    """The table grown (`growth`), every key re-inserted with its tag."""
    bigger = new_table(int(table.shape[0] * growth(table.shape[1])), table.shape[1])
    _rehash(table, bigger)
    return bigger


@nb.njit(cache=True)
def growth(key_words):
    """How much a full table of keys this wide grows: twice, or less if a key would then take over MAX_BYTES_PER_KEY
    bytes (never less than 1.25)."""
    return max(1.25, min(2.0, 0.75 * MAX_BYTES_PER_KEY / (8 * key_words)))


@nb.njit(cache=True, _nrt=False)
def _rehash(table, bigger):
    """Copy every slot in use of `table` into the empty table `bigger`, in slot order, where its key belongs.

    The keys are distinct, so each goes in the first empty slot from its home
    with no comparison; and homes grow with the hash, so `bigger` fills
    nearly in order.
    """
    last = table.shape[1] - 1
    capacity = bigger.shape[0]
    for slot in range(table.shape[0]):
        if table[slot, last] == 0:
            continue
        h = HASH_SEED
        for w in range(last):
            h = mix_word(h, table[slot, w])
        target = home(mix_word(h, table[slot, last] & _KEY_BITS), capacity)
        while bigger[target, last] != 0:
            target = target + 1 if target + 1 < capacity else 0
        copy_row(bigger, target, table, slot)


@nb.njit(inline="always", cache=True)
def full(table, keys):
    """True if `keys` keys would fill more than 3/4 of the table (`room_for` must grow it first)."""
    return 4 * keys > 3 * table.shape[0]


@nb.njit(cache=True)
def room_for(table, stored, more):
    """(table, True), the table grown until `stored + more` keys fit in 3/4 of it; (table, False) if it cannot grow.

    Growing fails when the allocation does (a memory cap, RLIMIT_AS, was reached).
    """
    while full(table, stored + more):
        try:
            table = _grown(table)
        except Exception:  # noqa: BLE001 - numba catches no narrower class than Exception (here a MemoryError)
            return table, False
    return table, True


@nb.njit(cache=True, _nrt=False)
def add_new(table, keys, hashes, n, tag, rows):
    """Store the rows 0..n-1 of `keys` not in the table yet, with `tag`; their row numbers go into `rows`, in order.

    Returns how many there were. `hashes` holds each row's hash; the table must
    have room for all n (`room_for`).
    """
    last = table.shape[1] - 1
    fresh = 0
    for j in range(n):
        slot = slot_of(table, keys, j, hashes[j])
        if table[slot, last] == 0:
            put(table, slot, keys, j, tag)
            rows[fresh] = j
            fresh += 1
    return fresh
