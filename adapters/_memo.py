"""Records already built from the same JSON item, kept by one adapter instance.

A search answer repeats works other answers held (the same work ranks among the hits of
many similar searches), and building a :class:`~verifier.citations.models.WorkRecord`
(cleaning every field, splitting names, a frozen value per author) costs ten times more
than serialising the decoded item back to JSON. :class:`RecordMemo` keeps the record
built from an item under the item's JSON text (:func:`item_key`: ``orjson.dumps``, so
``1996``, ``1996.0`` and ``true`` are three keys, as the adapters read them differently)
plus whatever else the record depends on, and hands it out again only for the same key:
memoisation by value, so a record from the memo is the record the adapter would build.
It is bounded (:data:`MEMO_ITEMS`, oldest stored first out) and belongs to one adapter
instance (one per checker, so one per session): nothing is kept across runs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import orjson

from verifier.citations.models import WorkRecord

MEMO_ITEMS = 4096
"""Records one adapter keeps (with their keys, the items' JSON text: a few MB at most)."""


def item_key(item: Any) -> bytes:
    """The JSON text of an item decoded by ``orjson.loads``: equal texts are equal items,
    types included. (orjson writes a non-finite float as ``null``, but ``orjson.loads``
    never makes one: it refuses ``1e400``, ``NaN`` and ``Infinity``.) Raises
    ``TypeError`` for what JSON cannot hold."""
    return orjson.dumps(item)


class RecordMemo:
    """Records by a key that determines them in full (see the module docstring): the
    caller's promise is that two equal keys would build two equal records."""

    __slots__ = ("_entries", "_size")

    def __init__(self, size: int = MEMO_ITEMS) -> None:
        if size <= 0:
            raise ValueError(f"size must be positive, not {size}")
        self._size = size
        self._entries: dict[Hashable, WorkRecord] = {}

    def get(self, key: Hashable) -> WorkRecord | None:
        """The record stored under ``key``, or None."""
        return self._entries.get(key)

    def put(self, key: Hashable, record: WorkRecord) -> WorkRecord:
        """Keep ``record`` under ``key``; returns ``record``. The oldest entry goes when
        the memo is full."""
        entries = self._entries
        if key not in entries and len(entries) >= self._size:
            del entries[next(iter(entries))]
        entries[key] = record
        return record

    def record(self, item: object, build: Callable[[Any], WorkRecord]) -> WorkRecord:
        """``build(item)``, from the memo when the same item was built before: for an
        adapter whose record depends on the item alone. What is not a JSON object is
        built every time (``build`` refuses it)."""
        if type(item) is not dict:
            return build(item)
        key = item_key(item)
        record = self._entries.get(key)
        if record is None:
            record = self.put(key, build(item))
        return record

    def __len__(self) -> int:
        return len(self._entries)
