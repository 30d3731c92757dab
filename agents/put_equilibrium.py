"""``put:equilibrium``: plays a strategy file written by ``python -m brag_env.solve put``.

Spec: ``put:equilibrium`` (the shipped ``models/put_equilibrium.npz``) or
``put:equilibrium:path=FILE.npz``. The file fixes the rules it was solved for (``deck_ranks``,
``seen_put_points``, ``put_draw_to_opponent``); a table with other rules is refused. With an
integer ``seen_put_points`` a hand's payoff does not depend on the score, so the strategy is an
equilibrium of the hand at every score; with ``"game"`` it is solved for the file's score.

The observation says who called Put but not when; the solved game's players remember it, so
the agent does too: it notes the number of cards played when it calls Put or is asked to answer
one (every Put of a hand is one or the other, before its next decision).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import numpy as np

from agents.base import StrategyFileAgent, TableInfo
from agents.registry import register
from brag_env.put.observation import observation_layout
from brag_env.put.rules import NUM_RANKS, PUT
from brag_env.put.solver.io import load_strategy
from brag_env.put.solver.observe import locate
from brag_env.put.solver.strategy import action_probabilities
from brag_env.put.solver.tree import PutTree
from brag_env.resources import shipped_dir

DEFAULT_PATH = shipped_dir("models") / "put_equilibrium.npz"
_RULES = ("deck_ranks", "seen_put_points", "put_draw_to_opponent")


@register("put", "equilibrium")
class PutEquilibrium(StrategyFileAgent):
    """The solver's average strategy for heads-up Put (module docstring)."""

    game: ClassVar[str | None] = "put"
    DEFAULT_PATH: ClassVar[Path] = DEFAULT_PATH
    MADE_BY: ClassVar[str] = "'python -m brag_env.solve put' (docs/solver.md)"

    def bind(self, table: TableInfo) -> None:
        super().bind(table)
        if table.num_players != 2:
            raise ValueError(
                f"put:equilibrium plays heads-up only, not {table.num_players} players"
            )
        path = self.strategy_path()
        self.tree = PutTree(table.config.deck_ranks)
        self.strategy, self.meta = load_strategy(path, self.tree)
        rules = self.meta.get("config", {})
        for name in _RULES:
            if rules.get(name) != getattr(table.config, name):
                raise ValueError(
                    f"put:equilibrium: {str(path)!r} was solved for {name}={rules.get(name)!r}, "
                    f"but the table has {name}={getattr(table.config, name)!r}"
                )
        offsets, pos = {}, 0
        for name, shape in observation_layout(2):
            offsets[name] = (pos, shape)
            pos += int(np.prod(shape))
        self._offsets = offsets
        self._put_depth: dict[int, int] = {}  # per dealer seat as seen: the last Put's depth

    def _view(self, obs: np.ndarray, name: str) -> np.ndarray:
        start, shape = self._offsets[name]
        return obs[start : start + int(np.prod(shape))].reshape(shape)

    def _where(self, obs: np.ndarray, mask: np.ndarray) -> tuple[int, str, int, int, int]:
        hand = np.rint(self._view(obs, "hand")).astype(int)
        played = self._view(obs, "played")  # (3, 2, 13)
        leaders = self._view(obs, "trick_leader")  # (3, 2)
        plays: list[int] = []
        for t in range(3):
            if not leaders[t].any():
                break
            lead = int(np.argmax(leaders[t]))
            for seat in (lead, 1 - lead):
                if played[t, seat].any():
                    plays.append(int(np.argmax(played[t, seat])))
        dealer = int(np.argmax(self._view(obs, "dealer")))
        called = self._view(obs, "put_caller").any()
        seen = bool(self._view(obs, "put_seen")[0])
        answering = bool(self._view(obs, "phase")[2])
        if answering:
            self._put_depth[dealer] = len(plays)
        depth = self._put_depth.get(dealer, 0) if called else None
        if depth is not None and depth > len(plays):
            depth = len(plays)  # a memory from another hand: the best guess left
        return locate(self.tree, plays, depth, seen or not called, hand[:NUM_RANKS])

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The strategy's distribution at this decision (over the 29 action ids)."""
        where = self._where(np.asarray(observation), action_mask)
        out = np.zeros(len(action_mask))
        for action, p in action_probabilities(self.tree, self.strategy, where).items():
            out[action] = max(p, 0.0)
        out *= np.asarray(action_mask, dtype=bool)
        total = out.sum()
        return out / total if total > 0 else np.asarray(action_mask, float) / np.sum(action_mask)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        probs = self.action_probabilities(observation, action_mask)
        action = int(self.rng.choice(len(probs), p=probs))
        if action == PUT:
            plays = int(self._view(np.asarray(observation), "played").sum())
            self._put_depth[int(np.argmax(self._view(observation, "dealer")))] = plays
        return action

    def exact_strategy(self, tree: PutTree):
        """The table itself (the exact solver reads it instead of asking observations)."""
        if tree.k != self.tree.k:
            raise ValueError("put:equilibrium: the tree has another deck_ranks")
        return self.strategy
