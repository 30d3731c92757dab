"""Seven-card Brag baselines (``brag7:<style>``, rule B24): one arrangement per deal.

Each style reads only the ``own_arrangements`` view of its observation (``brag_env.brag7
.observation``): for each of the 140 arrangement ids, the percentile of its first and of its
second hand (the fraction of the deck's three-card hands strictly weaker, in the lowball order
under B21). Equal percentiles mean equal hands, so these styles rank arrangements exactly as
the hand ranking does, and they play lowball and short decks unchanged.

- ``random``: a uniformly random arrangement.
- ``strongest_first``: the strongest first hand the seven cards hold, then the strongest second
  hand from the four cards left (ties: the lowest id).
- ``balanced``: the arrangement most likely to win BOTH hands. Against k opponents whose hands
  were independent random hands, a hand of percentile p would be best with chance about p**k,
  so the scoop chance is about (p1 * p2)**k: whatever k, the best arrangement maximises the
  product p1 * p2 of its two percentiles (``score=product``, the default). ``score=min``
  maximises the weaker hand's percentile instead (then the product breaks ties). Both are
  approximations: real opponents' hands are drawn from the same deck as ours and are arranged,
  not random (``brag_env.brag7.best_response`` measures what this leaves to an exploiter).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from agents.base import RandomAgent, StyleAgent, TableInfo
from agents.registry import register
from brag_env.brag7.observation import layout_fields
from brag_env.brag7.rules import NUM_ARRANGEMENTS


def strongest_first_choice(percentiles: np.ndarray) -> int:
    """The id of the best first hand, then the best second hand (``percentiles``: [140, 2])."""
    p = np.asarray(percentiles, dtype=np.float64)
    # lexsort sorts by the last key first: first hand, then second hand, then the lowest id.
    order = np.lexsort((-np.arange(NUM_ARRANGEMENTS), p[:, 1], p[:, 0]))
    return int(order[-1])


def balanced_choice(percentiles: np.ndarray, score: str = "product") -> int:
    """The id maximising ``p1 * p2`` (``score="product"``) or ``min(p1, p2)`` (``"min"``, the
    product breaking ties); further ties go to the stronger first hand, then the lowest id."""
    p = np.asarray(percentiles, dtype=np.float64)
    product = p[:, 0] * p[:, 1]
    if score == "product":
        keys: tuple[np.ndarray, ...] = (p[:, 0], product)
    elif score == "min":
        keys = (p[:, 0], product, p.min(axis=1))
    else:
        raise ValueError(f"score must be 'product' or 'min', got {score!r}")
    order = np.lexsort((-np.arange(NUM_ARRANGEMENTS), *keys))
    return int(order[-1])


class Brag7Baseline(StyleAgent):
    """Base of the rule-based styles: decode ``own_arrangements``, choose, check the mask."""

    game: ClassVar[str | None] = "brag7"

    def bind(self, table: TableInfo) -> None:
        super().bind(table)
        at = 0
        for name, shape in layout_fields(table.config):
            size = int(np.prod(shape))
            if name == "own_arrangements":
                self._slice = slice(at, at + size)
            at += size

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if self.table is None:
            raise ValueError(f"agent {self.name!r} must be bound to a table before it acts")
        table = np.asarray(observation, dtype=np.float64)[self._slice].reshape(NUM_ARRANGEMENTS, 2)
        action = self.choose(table)
        if not action_mask[action]:  # every arrangement is legal in brag7_v0: a broken mask
            raise ValueError(f"the action mask refuses arrangement {action}")
        return action

    def choose(self, percentiles: np.ndarray) -> int:
        raise NotImplementedError


@register("brag7", "random")
class Brag7Random(RandomAgent):
    """A uniformly random arrangement (the same as the spec ``random``)."""

    game: ClassVar[str | None] = "brag7"
    DEFAULTS: ClassVar[dict[str, Any]] = {}


@register("brag7", "strongest_first")
class StrongestFirst(Brag7Baseline):
    """The strongest first hand, then the strongest second hand of the rest."""

    def choose(self, percentiles: np.ndarray) -> int:
        return strongest_first_choice(percentiles)


@register("brag7", "balanced")
class Balanced(Brag7Baseline):
    """The arrangement with the best product (or min) of its two hands' percentiles."""

    DEFAULTS: ClassVar[dict[str, Any]] = {"score": "product"}

    def __init__(self, seed: Any = None, name: str = "", **params: Any) -> None:
        super().__init__(seed, name, **params)
        if self.score not in ("product", "min"):
            raise ValueError(
                f"parameter score of {self.name} must be product or min, got {self.score!r}"
            )

    def choose(self, percentiles: np.ndarray) -> int:
        return balanced_choice(percentiles, self.score)
