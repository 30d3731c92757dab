"""A list that keeps only its last items but still counts them all (``keep_histories``).

A session of 200,000 Brag hands keeps every hand's history and result, about 2.5 KB a hand; an
env made with ``keep_histories=K`` swaps the engine's lists for :class:`RecentList` s, so memory
stays flat while the code that reads them keeps working: ``len()`` is the number of items ever
appended (readers use it as "hands finished so far"), ``[-1]`` is the newest, ``[i:]`` the items
from the i-th on, and iterating gives the kept items. Asking for a forgotten item is an
``IndexError`` naming the limit, never a silent shorter answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar, overload

T = TypeVar("T")


class RecentList(Generic[T]):
    """The last ``keep`` items appended (``keep`` >= 0), indexed as if all were kept."""

    __slots__ = ("_dropped", "_items", "keep")

    def __init__(self, keep: int) -> None:
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 0:
            raise ValueError(f"keep must be a whole number >= 0, got {keep!r}")
        self.keep = keep
        self._items: list[T] = []
        self._dropped = 0  # items appended and forgotten

    def append(self, item: T) -> None:
        items = self._items
        items.append(item)
        if len(items) > self.keep:
            del items[0]
            self._dropped += 1

    def __len__(self) -> int:
        return self._dropped + len(self._items)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __iter__(self) -> Iterator[T]:
        return iter(self._items)

    def _forgotten(self, index: int) -> IndexError:
        return IndexError(
            f"item {index} is no longer kept: only the last {self.keep} are "
            f"(keep_histories={self.keep})"
        )

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        total = len(self)
        if isinstance(index, slice):
            start, stop, step = index.indices(total)
            if step != 1:
                raise ValueError("a RecentList slice takes no step")
            if start < stop and start < self._dropped:
                raise self._forgotten(start)
            return self._items[start - self._dropped : max(stop - self._dropped, 0)]
        position = index + total if index < 0 else index
        if not 0 <= position < total:
            raise IndexError(f"index {index} out of range for {total} items")
        if position < self._dropped:
            raise self._forgotten(position)
        return self._items[position - self._dropped]

    def copy(self) -> RecentList[T]:
        """A new RecentList holding the same items and count (the items themselves shared)."""
        other: RecentList[T] = RecentList(self.keep)
        other._items = self._items[:]
        other._dropped = self._dropped
        return other

    def __repr__(self) -> str:
        return f"RecentList(keep={self.keep}, appended={len(self)}, kept={self._items!r})"
