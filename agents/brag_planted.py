"""Brag agents with one planted leak each, for testing exploiters (``docs/exploiters.md``).

Each plays a plain tight game except for one flaw an exploiter should find and profit from;
the third leak of issue 24, staying blind to the end, is ``brag:never_look`` itself.

- ``planted_never_fold``: looks at once and never folds: it raises with equity >=
  ``raise_at`` and otherwise stays, whatever it holds, to the end (covering the pot when
  short, B16); it never sees. Exploited by value bets and by seeing it with strong hands.
- ``planted_fold_to_raise``: ``tight``, except that it folds whenever an opponent raised
  since its last move. Exploited by raising with anything.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from agents.brag import BragBaseline, BragView, Tight
from agents.brag_batch import NO_ACTION, TIGHT, biggest_raise, prefer
from agents.registry import register
from brag_env.brag.rules import FOLD, LOOK, STAY


@register("brag", "planted_never_fold")
class PlantedNeverFold(BragBaseline):
    """Looks, then raises good hands and stays with every other one; never folds or sees."""

    DEFAULTS: ClassVar[dict[str, Any]] = {"raise_at": 0.8}
    vector_rules: ClassVar[bool] = True

    def preferences(self, v: BragView, mask: np.ndarray) -> list[int]:
        if v.blind:
            return [LOOK]
        if v.equity() >= self.raise_at:
            return [*self.biggest_raise(mask), STAY]
        return [STAY]

    def preferences_batch(self, b, masks, bets, rows) -> np.ndarray:
        big = np.where(b.equity() >= self.raise_at, biggest_raise(masks, self.view.raise_ids), -1)
        out = prefer(np.where(big >= 0, big, STAY), np.where(big >= 0, STAY, NO_ACTION))
        return np.where(b.blind[:, None], prefer(LOOK, NO_ACTION), out)


@register("brag", "planted_fold_to_raise")
class PlantedFoldToRaise(Tight):
    """``tight`` that folds to any raise made since its last move."""

    def preferences(self, v: BragView, mask: np.ndarray) -> list[int]:
        if not v.blind and v.raises_since_mine > 0:
            return [FOLD]
        return super().preferences(v, mask)

    compiled_style: ClassVar[int] = TIGHT
    fold_to_raise: ClassVar[bool] = True
