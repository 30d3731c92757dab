"""Cheap copies of an engine's state: what ``copy()`` of BragGame, PutGame and Brag7Game share.

Tree searches and the exploit tools copy a game at every node, where ``copy.deepcopy`` (which
visits every object and remembers each one) costs about ten times as much. Most of an engine's
state never changes once made: ints, strings, tuples, frozen configs, finished results and
records, read-only masks; a copy shares those. Only the containers an engine changes in place
get new objects: lists (with the lists inside them: a seat's hand in the list of hands), dicts,
the ``RecentList`` s of ``keep_histories``, the ``Deck`` and the numpy generator.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from brag_env.cards import Deck
from brag_env.recent import RecentList

# Seeds the bit generator a copy makes before its state is overwritten: a fixed seed spares
# the operating system's entropy that an unseeded one asks for (about half a copy's time).
_PLACEHOLDER_SEED = np.random.SeedSequence(0)


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """A generator of the same kind in the same state: it draws what ``rng`` would draw next.
    (``copy.copy`` of a Generator would share its bit generator, so both would advance.)"""
    bits = rng.bit_generator
    fresh = bits.__class__(_PLACEHOLDER_SEED)
    fresh.state = bits.state
    return np.random.Generator(fresh)


class StateCopier:
    """Copies the containers of one engine's state that the engine changes; shares the rest.

    A list reached twice (``BragGame._dealt`` may be ``hands``) is copied once, so the copy
    keeps the original's aliasing. One copier serves one copy of one engine.
    """

    __slots__ = ("_lists",)

    def __init__(self) -> None:
        self._lists: dict[int, list[Any]] = {}  # id of an original list -> its copy

    def __call__(self, value: Any) -> Any:
        kind = value.__class__
        if kind is list:
            return self._list(value)
        if kind is dict or kind is Deck or kind is RecentList:
            return value.copy()
        if kind is np.random.Generator:
            return copy_generator(value)
        return value

    def _list(self, value: list[Any]) -> list[Any]:
        done = self._lists.get(id(value))
        if done is None:
            done = [self._list(x) if x.__class__ is list else x for x in value]
            self._lists[id(value)] = done
        return done
