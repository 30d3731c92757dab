"""Discounted CFR (Brown and Sandholm's DCFR, alpha 1.5, beta 0, gamma 2) on the layered tree.

The players update in turn (alternating updates: each iteration updates one seat, then the
other, each from one forward and one backward pass). Regrets and the cumulative (average)
strategy are arrays shaped like the strategy profile (``passes``); the average strategy is
the one that converges.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from brag_env.put.solver.passes import backward, forward
from brag_env.put.solver.strategy import Strategy, legal_slots, uniform
from brag_env.put.solver.tree import DEPTH, PutTree, actor_size

ALPHA, BETA, GAMMA = 1.5, 0.0, 2.0


@dataclass
class Accumulators:
    """Per layer: regrets and cumulative strategy weights of every action.

    ``play[d]`` (S, N, Ha, Ha) (with one card left: the free state only, (1, N, Ha, 1)),
    ``put[d]`` (N, Ha), ``see[d]`` and ``fold[d]`` (N, Ho)."""

    play: list[np.ndarray]
    put: list[np.ndarray]
    see: list[np.ndarray]
    fold: list[np.ndarray]

    @classmethod
    def zeros(cls, tree: PutTree, dtype=np.float64) -> Accumulators:
        u = uniform(tree)
        play = []
        for d in range(DEPTH):
            shape = (1, *u.put[d].shape, 1) if u.play[d] is None else u.play[d].shape
            play.append(np.zeros(shape, dtype))
        return cls(
            play,
            [np.zeros(p.shape, dtype) for p in u.put],
            [np.zeros(s.shape, dtype) for s in u.see],
            [np.zeros(s.shape, dtype) for s in u.see],
        )

    def arrays(self) -> dict[str, np.ndarray]:
        out = {}
        for name in ("play", "put", "see", "fold"):
            for d, a in enumerate(getattr(self, name)):
                out[f"{name}{d}"] = a
        return out

    @classmethod
    def from_arrays(cls, arrays) -> Accumulators:
        return cls(
            *(
                [arrays[f"{name}{d}"] for d in range(DEPTH)]
                for name in ("play", "put", "see", "fold")
            )
        )


def normalise(tree: PutTree, acc: Accumulators) -> Strategy:
    """Regret matching (on regrets) or averaging (on cumulative weights): the positive parts,
    normalised over the legal actions; uniform where they are all zero."""
    put, play, see = [], [], []
    for d in range(DEPTH):
        legal = legal_slots(tree, d)  # (H, ha)
        pl = np.where(legal[None, None], np.maximum(acc.play[d], 0.0), 0.0)
        pu = np.maximum(acc.put[d], 0.0)
        free_total = pl[0].sum(axis=2) + pu
        n_legal = legal.sum(axis=1)  # (H,)
        empty = free_total <= 0
        p_put = np.where(empty, 1.0 / (n_legal + 1), pu / np.where(empty, 1.0, free_total))
        if actor_size(d) == 1:
            play.append(None)
        else:
            total = pl.sum(axis=3)
            total[0] = free_total
            empty_s = total <= 0
            fill = legal / n_legal[:, None]
            p = pl / np.where(empty_s, 1.0, total)[..., None]
            free_fill = legal / (n_legal[:, None] + 1)
            fills = np.broadcast_to(fill, p.shape).copy()
            fills[0] = free_fill
            play.append(np.where(empty_s[..., None], fills, p))
        put.append(p_put)
        s_pos, f_pos = np.maximum(acc.see[d], 0.0), np.maximum(acc.fold[d], 0.0)
        tot = s_pos + f_pos
        see.append(np.where(tot > 0, s_pos / np.where(tot > 0, tot, 1.0), 0.5))
    return Strategy(put, play, see)


def _discount(a: np.ndarray, t: int) -> None:
    pos = t**ALPHA / (t**ALPHA + 1)
    neg = t**BETA / (t**BETA + 1)
    np.multiply(a, np.where(a > 0, pos, neg), out=a)


def iterate(
    tree: PutTree, points: np.ndarray, regret: Accumulators, avg: Accumulators, t: int
) -> None:
    """One DCFR iteration ``t`` (1-based) with alternating updates: the non-dealer's regrets
    and average first, then the dealer's against the updated strategy; in place."""
    weight = (t / (t + 1)) ** GAMMA
    for acc in (regret.play, regret.put, regret.see, regret.fold):
        for a in acc:
            _discount(a, t)
    for acc in (avg.play, avg.put, avg.see, avg.fold):
        for a in acc:
            a *= weight
    for role in (0, 1):
        sigma = normalise(tree, regret)
        reach = forward(tree, sigma)
        vals = backward(tree, sigma, reach, points, keep=True)
        ra, ro = reach
        for d in range(DEPTH):
            acts = (tree.layers[d].actor == role)[:, None]  # (N, 1): this role acts here
            answers = ~acts  # and answers the other's Put where it does not act
            q, v = vals.q_play[d], vals.v_act[d]
            if actor_size(d) == 1:
                q, v_use = q[:1], v[:1]
                sig_play, own = (1.0 - sigma.put[d])[None, ..., None], ra[d][:1]
            else:
                v_use, sig_play, own = v, sigma.play[d], ra[d]
            regret.play[d] += (q - v_use[..., None]) * acts[None, :, :, None]
            regret.put[d] += (vals.q_put[d] - v[0]) * acts
            see = sigma.see[d]
            v_ans = see * vals.q_see[d] + (1.0 - see) * vals.q_fold[d]
            regret.see[d] += (vals.q_see[d] - v_ans) * answers
            regret.fold[d] += (vals.q_fold[d] - v_ans) * answers
            avg.play[d] += own[..., None] * sig_play * acts[None, :, :, None]
            avg.put[d] += ra[d][0] * sigma.put[d] * acts
            avg.see[d] += ro[d][0] * see * answers
            avg.fold[d] += ro[d][0] * (1.0 - see) * answers
