"""A batched engine that deals what a scalar run dealt, read from its hand histories."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def mirrored(
    engine_cls: type, dealer_of: Callable[[int], int], cards_of: Callable[[Any, int], list[int]]
) -> Callable[..., Any]:
    """A ``make_engine(tables, config, seed)`` for ``engine_cls`` whose table ``row`` gets
    ``dealer_of(row)`` as its first dealer and ``cards_of(engine, row)`` as its next deal (the
    cards ``_draw_deals`` returns: top of the deck first)."""

    class Mirrored(engine_cls):
        def _draw_dealers(self, rows):
            return np.array([dealer_of(int(r)) for r in rows])

        def _draw_deals(self, rows):
            return np.array([cards_of(self, int(r)) for r in rows], np.int64)

    return lambda tables, config, seed: Mirrored(tables, config, seed)
