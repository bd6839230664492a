"""A compiled store of search nodes: state keys with parent links, found by hash.

Nodes live in append-only arrays (key, parent, move, cost) and are found
through an open-addressing table of node ids with linear probing, kept at most
half full. A node costs `8 * key_words + 12` bytes plus 8 to 16 bytes of table.
Adding may grow the arrays, so `add` returns the store to use from then on.
"""

from typing import NamedTuple

import numba as nb
import numpy as np

from puzzles.intrinsics import prefetch

NO_PARENT = -1
_EMPTY = -1


class Store(NamedTuple):
    """The arrays of a node store; `count[0]` nodes are in use."""

    keys: np.ndarray
    parent: np.ndarray
    move: np.ndarray
    cost: np.ndarray
    table: np.ndarray
    count: np.ndarray


@nb.njit(inline="always", cache=True)
def hash_key(key):
    """A 64-bit hash of a key (splitmix64's finaliser over its words); a bijection for one word."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for w in range(key.shape[0]):
        h = (h ^ key[w]) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(29)
    return h


@nb.njit(inline="always", cache=True)
def same_key(keys, row, key):
    """True if row `row` of `keys` equals `key`."""
    for w in range(key.shape[0]):
        if keys[row, w] != key[w]:
            return False
    return True


@nb.njit(cache=True)
def new_store(key_words, capacity):
    """An empty store with room for `capacity` nodes before it grows."""
    capacity = max(capacity, 16)
    return Store(
        np.empty((capacity, key_words), dtype=np.uint64),
        np.empty(capacity, dtype=np.int32),
        np.empty(capacity, dtype=np.int32),
        np.empty(capacity, dtype=np.int32),
        np.full(2 * capacity, _EMPTY, dtype=np.int32),
        np.zeros(1, dtype=np.int64),
    )


@nb.njit(cache=True)
def find(store, key):
    """The id of the node with this key, or -1."""
    return find_hashed(store, key, hash_key(key))


@nb.njit(cache=True)
def find_hashed(store, key, h):
    """The id of the node with this key, whose `hash_key` is `h`, or -1."""
    mask = store.table.shape[0] - 1
    slot = np.int64(h & np.uint64(mask))
    while True:
        node = store.table[slot]
        if node == _EMPTY or same_key(store.keys, node, key):
            return node
        slot = (slot + 1) & mask


@nb.njit(cache=True)
def add(store, key, parent, move, cost):
    """Append a node whose key is not in the store; returns (store, node id)."""
    node = store.count[0]
    if node == store.keys.shape[0]:
        store = _grown(store)
    store.keys[node] = key
    store.parent[node] = parent
    store.move[node] = move
    store.cost[node] = cost
    store.count[0] = node + 1
    _index(store.table, store.keys, node)
    return store, node


@nb.njit(inline="always", cache=True)
def prefetch_slot(store, h):
    """Start loading the table slot of hash `h` into the cache, ahead of a `find`."""
    prefetch(store.table, np.int64(h & np.uint64(store.table.shape[0] - 1)))


@nb.njit(cache=True)
def moves_to(store, node):
    """The moves from the root to `node`."""
    depth = 0
    walk = node
    while store.parent[walk] != NO_PARENT:
        depth += 1
        walk = store.parent[walk]
    moves = np.empty(depth, dtype=np.int64)
    walk = node
    for i in range(depth - 1, -1, -1):
        moves[i] = store.move[walk]
        walk = store.parent[walk]
    return moves


@nb.njit(cache=True)
def nbytes(store):
    """Bytes held by the store."""
    return store.keys.nbytes + store.parent.nbytes + store.move.nbytes + store.cost.nbytes + store.table.nbytes


@nb.njit(inline="always", cache=True)
def _index(table, keys, node):
    mask = table.shape[0] - 1
    slot = np.int64(hash_key(keys[node]) & np.uint64(mask))
    while table[slot] != _EMPTY:
        slot = (slot + 1) & mask
    table[slot] = node


@nb.njit(cache=True)
def _grown(store):
    count = store.count[0]
    capacity = 2 * store.keys.shape[0]
    keys = np.empty((capacity, store.keys.shape[1]), dtype=np.uint64)
    keys[:count] = store.keys[:count]
    table = np.full(2 * capacity, _EMPTY, dtype=np.int32)
    for node in range(count):
        _index(table, keys, node)
    return Store(
        keys,
        _resized(store.parent, capacity),
        _resized(store.move, capacity),
        _resized(store.cost, capacity),
        table,
        store.count,
    )


@nb.njit(cache=True)
def _resized(array, capacity):
    bigger = np.empty(capacity, dtype=array.dtype)
    bigger[: array.shape[0]] = array
    return bigger
