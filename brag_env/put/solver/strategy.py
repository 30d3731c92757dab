"""Strategy profiles over the layered tree (layout in ``passes``), and the uniform one."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from brag_env.put.rules import FOLD, PLAY, PUT, SEE
from brag_env.put.solver.tree import DEPTH, PutTree, actor_size, num_states, other_size


@dataclass
class Strategy:
    put: list[np.ndarray]  # d: (N, Ha)
    play: list[np.ndarray | None]  # d: (S, N, Ha, Ha) or None with one card left
    see: list[np.ndarray]  # d: (N, Ho)


def legal_slots(tree: PutTree, d: int) -> np.ndarray:
    """(Ha_hands, Ha) bool: the slots that hold a rank, per actor hand of layer d."""
    return tree.hands.slot_rank[actor_size(d)] >= 0


def uniform(tree: PutTree) -> Strategy:
    """Every legal action with equal probability (the agent ``random``)."""
    put, play, see = [], [], []
    for d in range(DEPTH):
        layer = tree.layers[d]
        n, ha = layer.size, actor_size(d)
        legal = legal_slots(tree, d).astype(np.float64)  # (H, ha)
        distinct = legal.sum(axis=1)  # (H,)
        put.append(np.broadcast_to(1.0 / (distinct + 1), (n, len(distinct))).copy())
        see.append(np.full((n, len(tree.hands.counts[other_size(d)])), 0.5))
        if ha == 1:
            play.append(None)
            continue
        p = np.empty((num_states(d), n, len(distinct), ha))
        p[:] = legal / distinct[:, None]
        p[0] = legal / (distinct[:, None] + 1)
        play.append(p)
    return Strategy(put, play, see)


def action_probabilities(
    tree: PutTree, strategy: Strategy, where: tuple[int, str, int, int, int]
) -> dict[int, float]:
    """The strategy's probabilities (by env action id) at ``observe.locate``'s information set."""
    d, kind, s, node, x = where
    if kind == "answer":
        see = float(strategy.see[d][node, x])
        return {SEE: see, FOLD: 1.0 - see}
    ranks = tree.hands.slot_rank[actor_size(d)][x]
    out: dict[int, float] = {}
    put = float(strategy.put[d][node, x]) if s == 0 else 0.0
    if strategy.play[d] is None:
        out[PLAY + int(ranks[0])] = 1.0 - put
    else:
        for j, r in enumerate(ranks):
            if r >= 0:
                out[PLAY + int(r)] = float(strategy.play[d][s, node, x, j])
    if s == 0:
        out[PUT] = put
    return out
