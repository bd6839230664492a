"""A compiled binary min-heap of (priority, item) pairs for best-first search.

`push` may grow the arrays, so it returns the heap to use from then on.
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


@nb.njit(cache=True)
def push(heap, priority, item):
    """Add an item; returns the heap."""
    i = heap.size[0]
    if i == heap.priority.shape[0]:
        heap = Heap(
            np.concatenate((heap.priority, np.empty_like(heap.priority))),
            np.concatenate((heap.item, np.empty_like(heap.item))),
            heap.size,
        )
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
    return heap


@nb.njit(cache=True)
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
