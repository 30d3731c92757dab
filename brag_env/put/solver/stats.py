"""How a profile plays, per dealt hand: how often it calls Put, faces one, folds to one.

Exact probabilities under the profile against itself (no sampling): for every seat and dealt
hand (a rank multiset), P(dealt), P(calls Put | dealt), P(faces a Put | dealt) and
P(folds to a Put | dealt).
"""

from __future__ import annotations

import numpy as np

from brag_env.put.solver.passes import forward
from brag_env.put.solver.tree import DEPTH, PutTree, actor_size, other_size


def _dealt_index(tree: PutTree, held: np.ndarray, played: np.ndarray) -> np.ndarray:
    """Index among the 3-card hands of held + played counts (arrays (..., k))."""
    k = tree.k
    powers = 4 ** np.arange(k, dtype=np.int64)
    codes3 = tree.hands.counts[3].astype(np.int64) @ powers
    order = np.argsort(codes3)
    code = (held.astype(np.int64) + played) @ powers
    return order[np.searchsorted(codes3[order], code)]


def put_profile(tree: PutTree, strategy) -> dict[str, np.ndarray]:
    """Arrays (2 roles, H3 dealt hands): ``dealt``, ``calls``, ``faces``, ``folds`` as
    probabilities of the deal and joint probabilities of the event with it."""
    h3 = len(tree.hands.counts[3])
    out = {name: np.zeros((2, h3)) for name in ("calls", "faces", "folds")}
    w0 = tree.layers[0].weight[0]
    out["dealt"] = np.stack([w0.sum(axis=1), w0.sum(axis=0)])
    ra, ro = forward(tree, strategy)
    for d in range(DEPTH):
        layer = tree.layers[d]
        w = layer.weight
        p, see = strategy.put[d], strategy.see[d]
        a_reach, o_reach = ra[d][0], ro[d][0]
        call = a_reach * p * np.einsum("nxy,ny->nx", w, o_reach)
        faced = o_reach * np.einsum("nxy,nx->ny", w, a_reach * p)
        idx = np.arange(layer.size)
        actor = layer.actor.astype(np.int64)
        held_a = tree.hands.counts[actor_size(d)][None, :, :]
        held_o = tree.hands.counts[other_size(d)][None, :, :]
        dealt_a = _dealt_index(tree, held_a, layer.played[idx, actor][:, None, :])
        dealt_o = _dealt_index(tree, held_o, layer.played[idx, 1 - actor][:, None, :])
        roles_a = np.broadcast_to(actor[:, None], dealt_a.shape)
        roles_o = np.broadcast_to(1 - actor[:, None], dealt_o.shape)
        np.add.at(out["calls"], (roles_a, dealt_a), call)
        np.add.at(out["faces"], (roles_o, dealt_o), faced)
        np.add.at(out["folds"], (roles_o, dealt_o), faced * (1.0 - see))
    return out
