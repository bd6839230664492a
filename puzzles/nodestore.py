"""A compiled store of search nodes: state keys with parent links, found by hash.

Nodes live in append-only arrays (key, parent, move, cost) and are found
through an open-addressing table of node ids with linear probing, two slots per
node of capacity (so at most half full). A store made without moves keeps none
(its user recovers them from the keys). A node of capacity costs `8 * key_words
+ 20` bytes (16 without moves), and the arrays grow as much as keeps that
within MAX_BYTES_PER_NODE per node stored when they are full, from a quarter
(two-word keys) to two thirds (one word, no moves) at a time: each growth
copies the nodes and indexes them again, and takes fresh memory: the arrays
stay on ordinary pages, where zeroing each growth's fresh huge pages cost A*
more (10-15 % on 9x9_5) than their fewer TLB misses saved. Adding may grow the
arrays, so `add` returns the store to use from then on. Keys are passed as a
2-D array and a row number.
"""

from typing import NamedTuple

import numpy as np

from puzzles.intrinsics import prefetch
from puzzles.jit import nb

NO_PARENT = -1
HASH_SEED = np.uint64(0x9E3779B97F4A7C15)
_EMPTY = -1
MAX_BYTES_PER_NODE = 40
_REINDEX_BATCH = 32


class Store(NamedTuple):
    """The arrays of a node store; `count[0]` nodes are in use."""

    keys: np.ndarray
    parent: np.ndarray
    move: np.ndarray
    cost: np.ndarray
    table: np.ndarray
    count: np.ndarray


@nb.njit(inline="always", cache=True)
def hash_row(keys, row):
    """A 64-bit hash of row `row` of a 2-D array of keys (splitmix64's finaliser over its words).

    Keys are passed as (array, row) rather than as row views throughout the hot
    loops: a view costs two atomic reference-count updates.
    """
    h = HASH_SEED
    for w in range(keys.shape[1]):
        h = mix_word(h, keys[row, w])
    return h


@nb.njit(inline="always", cache=True)
def mix_word(h, word):
    """`hash_row`'s step: the hash so far with one more word of the key mixed in."""
    h = (h ^ word) * np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(31)
    h *= np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(29))


@nb.njit(inline="always", cache=True)
def same_rows(a, i, b, j):
    """True if row i of `a` equals row j of `b`."""
    for w in range(a.shape[1]):
        if a[i, w] != b[j, w]:
            return False
    return True


@nb.njit(inline="always", cache=True)
def copy_row(target, i, source, j):
    """Copy row j of `source` into row i of `target`."""
    for w in range(source.shape[1]):
        target[i, w] = source[j, w]


@nb.njit(cache=True)
def resized(array, capacity):
    """A 1-D array of `capacity` entries starting with those of `array`."""
    bigger = np.empty(capacity, dtype=array.dtype)
    bigger[: array.shape[0]] = array
    return bigger


@nb.njit(cache=True)
def new_store(key_words, capacity, with_moves=True):
    """An empty store with room for `capacity` nodes before it grows; `with_moves=False` keeps no moves."""
    capacity = max(capacity, 16)
    return Store(
        np.empty((capacity, key_words), dtype=np.uint64),
        np.empty(capacity, dtype=np.int32),
        np.empty(capacity if with_moves else 0, dtype=np.int32),
        np.empty(capacity, dtype=np.int32),
        _empty_table(2 * capacity),
        np.zeros(1, dtype=np.int64),
    )


@nb.njit(cache=True)
def _empty_table(slots):
    """A table of `slots` empty slots."""
    table = np.empty(slots, dtype=np.int32)
    table[:] = _EMPTY
    return table


@nb.njit(cache=True, _nrt=False)
def find(store, keys, row):
    """The id of the node whose key is row `row` of `keys`, or -1."""
    return find_hashed(store, keys, row, hash_row(keys, row))


@nb.njit(cache=True, _nrt=False)
def find_hashed(store, keys, row, h):
    """As `find`, given the key's hash `h`."""
    return lookup(store.table, store.keys, keys, row, h)


@nb.njit(cache=True, _nrt=False)
def lookup(table, node_keys, keys, row, h):
    """As `find_hashed`, given the store's `table` and `keys` arrays rather than the store.

    For hot loops that hold those arrays: passing the whole store to a call
    costs reference-count updates on each of its arrays.
    """
    slot = home_slot(table, h)
    while True:
        node = table[slot]
        if node == _EMPTY or same_rows(node_keys, node, keys, row):
            return node
        slot = _next_slot(table, slot)


@nb.njit(inline="always", cache=True)
def home_slot(table, h):
    """The slot where the search for hash `h` starts: its high 32 bits scaled to the table's size."""
    return np.int64(((h >> np.uint64(32)) * np.uint64(table.shape[0])) >> np.uint64(32))


@nb.njit(inline="always", cache=True)
def _next_slot(table, slot):
    slot += 1
    return 0 if slot == table.shape[0] else slot


@nb.njit(cache=True)
def add(store, keys, row, parent, move, cost):
    """Append a node whose key (row `row` of `keys`) is not in the store; returns (store, node id)."""
    store = room_for(store, 1)
    return store, append(store.keys, store.parent, store.move, store.cost, store.table, store.count, keys, row, parent,
                         move, cost)


@nb.njit(cache=True, _nrt=False)
def has_room(store, more):
    """True if `more` nodes can be appended without growing the store."""
    return store.count[0] + more <= store.keys.shape[0]


@nb.njit(cache=True)
def room_for(store, more):
    """The store, grown if need be so that `more` nodes can be appended without growing."""
    while not has_room(store, more):
        store = _grown(store)
    return store


@nb.njit(cache=True, _nrt=False)
def append(node_keys, parents, moves, costs, table, count, keys, row, parent, move, cost):
    """As `add`, on the store's arrays, which must have room (`room_for`); returns the node id."""
    node = count[0]
    copy_row(node_keys, node, keys, row)
    parents[node] = parent
    if moves.shape[0]:
        moves[node] = move
    costs[node] = cost
    count[0] = node + 1
    _index(table, node_keys, node)
    return node


@nb.njit(cache=True)
def nbytes(store):
    """The bytes the store's arrays take (their capacity, used or not)."""
    return store.keys.nbytes + store.parent.nbytes + store.move.nbytes + store.cost.nbytes + store.table.nbytes


@nb.njit(cache=True, _nrt=False)
def prefetch_slot(store, h):
    """Start loading the table slot of hash `h` into the cache, ahead of a `find`."""
    prefetch(store.table, home_slot(store.table, h))


@nb.njit(cache=True)
def path_to(store, node):
    """The nodes from the root to `node`, both included."""
    depth = 0
    walk = node
    while store.parent[walk] != NO_PARENT:
        depth += 1
        walk = store.parent[walk]
    nodes = np.empty(depth + 1, dtype=np.int64)
    for i in range(depth, -1, -1):
        nodes[i] = node
        node = store.parent[node]
    return nodes


@nb.njit(cache=True)
def moves_to(store, node):
    """The moves from the root to `node`, in a store that keeps moves."""
    return store.move[path_to(store, node)[1:]].astype(np.int64)


@nb.njit(cache=True, _nrt=False)
def _index(table, keys, node):
    slot = home_slot(table, hash_row(keys, node))
    while table[slot] != _EMPTY:
        slot = _next_slot(table, slot)
    table[slot] = node


@nb.njit(cache=True, _nrt=False)
def _reindex(table, keys, count):
    """Index nodes 0..count-1 in an empty table, a batch at a time: a batch's home slots are prefetched first."""
    for first in range(0, count, _REINDEX_BATCH):
        last = min(first + _REINDEX_BATCH, count)
        for node in range(first, last):
            prefetch(table, home_slot(table, hash_row(keys, node)))
        for node in range(first, last):
            _index(table, keys, node)


@nb.njit(cache=True)
def _growth(store):
    """How much full arrays grow: as much as keeps a node of capacity within MAX_BYTES_PER_NODE per node stored, a
    quarter at least, twice at most."""
    node_bytes = 8 * store.keys.shape[1] + 16 + (4 if store.move.shape[0] else 0)
    return max(1.25, min(2.0, MAX_BYTES_PER_NODE / node_bytes))


@nb.njit(cache=True)
def _grown(store):
    count = store.count[0]
    capacity = (int(store.keys.shape[0] * _growth(store)) + 15) // 16 * 16
    keys = np.empty((capacity, store.keys.shape[1]), dtype=np.uint64)
    keys[:count] = store.keys[:count]
    table = _empty_table(2 * capacity)
    _reindex(table, keys, count)
    return Store(
        keys,
        resized(store.parent, capacity),
        resized(store.move, capacity if store.move.shape[0] else 0),
        resized(store.cost, capacity),
        table,
        store.count,
    )

