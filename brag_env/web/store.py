"""Open games (and loaded replays) by unguessable id, bounded in number and in idle time.

An id is ``secrets.token_urlsafe(16)``: 128 random bits, so one game's id says nothing about
another's and cannot be guessed. An entry idle for longer than ``idle_seconds`` is dropped at
the next access; when ``capacity`` entries are open a new one pushes out the one idle longest,
and so does one that would take the entries' sizes (``add(item, size)``, e.g. a replay's file
bytes) over ``max_size``. Memory therefore stays bounded however many games are abandoned.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class BoundedStore(Generic[T]):
    """``add`` an item to get its id; ``get`` it back (``KeyError`` once unknown or expired)."""

    def __init__(
        self,
        capacity: int,
        idle_seconds: float,
        clock: Callable[[], float] = time.monotonic,
        max_size: int | None = None,
    ) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        if idle_seconds <= 0:
            raise ValueError(f"idle_seconds must be positive, got {idle_seconds}")
        if max_size is not None and max_size < 1:
            raise ValueError(f"max_size must be at least 1, got {max_size}")
        self.capacity = capacity
        self.max_size = max_size
        self.size = 0  # the sizes of the entries held
        self.idle_seconds = idle_seconds
        self.clock = clock
        self._items: OrderedDict[str, tuple[float, T, int]] = OrderedDict()  # oldest access first
        self._lock = threading.Lock()

    def _expire(self, now: float) -> None:
        while self._items:
            key, (seen, _, _) = next(iter(self._items.items()))
            if now - seen <= self.idle_seconds:
                break
            self._drop(key)

    def _drop(self, key: str) -> None:
        _, _, size = self._items.pop(key)
        self.size -= size

    def add(self, item: T, size: int = 0) -> str:
        """Keep ``item`` (of ``size``, counted against ``max_size``); ``ValueError`` if it
        alone is larger than ``max_size``."""
        if self.max_size is not None and size > self.max_size:
            raise ValueError(f"an entry of {size:,} bytes is more than the {self.max_size:,} kept")
        key = secrets.token_urlsafe(16)
        with self._lock:
            now = self.clock()
            self._expire(now)
            while len(self._items) >= self.capacity or (
                self.max_size is not None and self._items and self.size + size > self.max_size
            ):
                self._drop(next(iter(self._items)))  # the one idle longest
            self._items[key] = (now, item, size)
            self.size += size
        return key

    def get(self, key: str) -> T:
        with self._lock:
            now = self.clock()
            self._expire(now)
            _, item, size = self._items[key]  # KeyError: unknown, expired or pushed out
            self._items[key] = (now, item, size)
            self._items.move_to_end(key)
            return item

    def __len__(self) -> int:
        with self._lock:
            self._expire(self.clock())
            return len(self._items)
