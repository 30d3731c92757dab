"""``brag:equilibrium``: plays a small-deck strategy file of ``python -m brag_env.brag.solver``.

Spec: ``brag:equilibrium`` (the shipped ``models/brag_equilibrium.npz``: heads-up, one hand,
``deck_ranks=2``, ``starting_chips=6``, ``max_stake=4``, other options at their defaults) or
``brag:equilibrium:path=FILE.npz``. A table with other rules is refused with a one-line error.

The agent reads only its observation, as every agent does. When it sits down it computes the
``brag_v1`` observation of every information set of the solved hand (``agents.brag_policy``'s
reader) and keeps a table from observation to the solver's probabilities; an observation maps
to one information set there (checked: the table refuses a file where two information sets
with different play share an observation). Observations are relative to the observer, so the
same table serves both seats, whoever deals.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import numpy as np

from agents.base import StrategyFileAgent, TableInfo
from agents.registry import register
from brag_env.brag.observation import BragObserver
from brag_env.brag.solver.io import load_strategy
from brag_env.resources import shipped_dir

DEFAULT_PATH = shipped_dir("models") / "brag_equilibrium.npz"  # package data: any folder


@register("brag", "equilibrium")
class BragEquilibrium(StrategyFileAgent):
    """The CFR+ average strategy of a small heads-up Brag hand (module docstring)."""

    game: ClassVar[str | None] = "brag"
    DEFAULT_PATH: ClassVar[Path] = DEFAULT_PATH
    MADE_BY: ClassVar[str] = "'python -m brag_env.brag.solver' (docs/openspiel.md)"

    def bind(self, table: TableInfo) -> None:
        super().bind(table)
        path = self.strategy_path()
        tree, strategy, meta = load_strategy(path)
        if tree.config != table.config:
            solved = tree.config.to_dict()
            wrong = [k for k, v in table.config.to_dict().items() if solved.get(k) != v]
            shown = ", ".join(f"{k}={solved[k]!r}" for k in wrong[:3])
            raise ValueError(
                f"brag:equilibrium: {str(path)!r} was solved for {shown}, not this table's rules"
            )
        self.meta = meta
        self._table = _observation_table(tree, strategy)

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        key = np.asarray(observation, np.float32).tobytes()
        probs = self._table.get(key)
        if probs is None:
            raise ValueError("brag:equilibrium: an observation outside the solved hand")
        out = probs * np.asarray(action_mask, bool)
        total = out.sum()
        return out / total if total > 0 else np.asarray(action_mask, float) / np.sum(action_mask)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        probs = self.action_probabilities(observation, action_mask)
        return int(self.rng.choice(len(probs), p=probs))


def _observation_table(tree, strategy) -> dict[bytes, np.ndarray]:
    observer = BragObserver(tree.config)
    a = tree.config.num_actions
    table: dict[bytes, np.ndarray] = {}
    for v, p in enumerate(tree.player):
        if p < 0:
            continue
        engine = tree.engines[v]
        dealt = engine.hands[p]
        rows = strategy[v]
        hands = tree.hands.tolist() if rows.ndim == 2 else [dealt]
        for h, hand in enumerate(hands):
            engine.hands[p] = hand
            key = observer.set_from(engine, p).tobytes()
            probs = np.zeros(a)
            row = rows[h] if rows.ndim == 2 else rows
            for i, (action, _) in enumerate(tree.children[v]):
                probs[action] = row[i]
            old = table.get(key)
            if old is not None and not np.allclose(old, probs, atol=1e-9):
                raise ValueError("brag:equilibrium: two information sets share an observation")
            table[key] = probs
        engine.hands[p] = dealt
    return table
