"""A compiled binary min-heap of (priority, item) pairs for best-first search.

`push` needs room for the item: `room_for` grows the arrays and returns the
heap to use from then on. The hot calls (`has_room`, `push`, `pop`) keep no
reference counts.
"""

from typing import NamedTuple

import numpy as np

from puzzles.jit import nb


class Heap(NamedTuple):
    """The arrays of a heap; `size[0]` entries are in use."""

    priority: np.ndarray
    item: np.ndarray
    size: np.ndarray


@nb.njit(cache=True)
def new_heap(capacity):
    """An empty heap."""
    capacity = max(capacity, 16)
    return Heap(np.empty(capacity, dtype=np.int64), np.empty(capacity, dtype=np.int32), np.zeros(1, dtype=np.int64))


@nb.njit(cache=True, _nrt=False)
def has_room(heap, more):
    """True if `more` items can be pushed without growing the heap."""
    return heap.size[0] + more <= heap.priority.shape[0]


@nb.njit(cache=True)
def room_for(heap, more):
    """The heap, grown if need be so that `more` items can be pushed."""
    while not has_room(heap, more):
        heap = Heap(
            np.concatenate((heap.priority, np.empty_like(heap.priority))),
            np.concatenate((heap.item, np.empty_like(heap.item))),
            heap.size,
        )
    return heap


@nb.njit(cache=True, _nrt=False)
def push(heap, priority, item):
    """Add an item to a heap with room for it (`room_for`)."""
    i = heap.size[0]
    heap.size[0] = i + 1
    while i > 0:
        up = (i - 1) >> 1
        if heap.priority[up] <= priority:
            break
        heap.priority[i] = heap.priority[up]
        heap.item[i] = heap.item[up]
        i = up
    heap.priority[i] = priority
    heap.item[i] = item


@nb.njit(cache=True, _nrt=False)
def pop(heap):
    """Remove and return the item of lowest priority (the heap must not be empty)."""
    top = heap.item[0]
    size = heap.size[0] - 1
    heap.size[0] = size
    priority = heap.priority[size]
    item = heap.item[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and heap.priority[child + 1] < heap.priority[child]:
            child += 1
        if heap.priority[child] >= priority:
            break
        heap.priority[i] = heap.priority[child]
        heap.item[i] = heap.item[child]
        i = child
    heap.priority[i] = priority
    heap.item[i] = item
    return top
