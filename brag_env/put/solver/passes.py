"""Forward reach and backward counterfactual values over the layered Put tree.

A *strategy profile* gives, per layer d < 6 (see ``tree``):

- ``put[d]`` (N, Ha): probability that the actor calls Put in the free state;
- ``play[d]`` (S, N, Ha, Ha): probability of playing the card in each slot (the distinct ranks
  held, best first) in every state; in the free state the plays and ``put`` sum to 1. With one
  card left (Ha == 1) it is implied (the rest of the mass) and stored as None;
- ``see[d]`` (N, Ho): probability that the other player sees a Put called at this node.

Counterfactual values are per role ordering of the layer: ``va`` for the actor, ``vo`` for the
other, weighted by the deal probabilities and the opponent's reach (never one's own).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from brag_env.put.solver.tree import DEPTH, PutTree, actor_size, num_states, other_size


@dataclass(frozen=True)
class Payoff:
    """Points of the one-hand game for the non-dealer (the dealer gets the negative).

    ``seen`` is the stake of a seen Put won (``seen_put_points``; with "game" the points the
    winner still lacks, so it depends on the score); ``draw_to_opponent`` is P5's option.
    """

    seen_nd: float  # the non-dealer wins a seen Put
    seen_d: float  # the dealer wins a seen Put
    draw_to_opponent: bool = False

    @classmethod
    def from_config(cls, config, score: tuple[int, int]) -> Payoff:
        spp = config.seen_put_points
        if spp == "game":
            return cls(
                config.target_points - score[0],
                config.target_points - score[1],
                config.put_draw_to_opponent,
            )
        return cls(float(spp), float(spp), config.put_draw_to_opponent)


def terminal_points(tree: PutTree, pay: Payoff) -> np.ndarray:
    """(7, N6) points for the non-dealer at each played-out end, per Put state."""
    last = tree.layers[DEPTH]
    diff = last.won[:, 0].astype(np.int32) - last.won[:, 1]
    outcome = np.sign(diff).astype(np.float64)
    out = np.empty((num_states(DEPTH), last.size))
    out[0] = outcome
    seen = np.where(outcome > 0, pay.seen_nd, np.where(outcome < 0, -pay.seen_d, 0.0))
    for j in range(DEPTH):
        row = seen.copy()
        if pay.draw_to_opponent:
            caller = last.callers[:, j]
            row = np.where(outcome == 0, np.where(caller == 0, -1.0, 1.0), row)
        out[1 + j] = row
    return out


def play_probs(strategy, d: int, tree: PutTree) -> np.ndarray:
    """(S, N, Ha, Ha) play probabilities, filling in the implied one-card layers."""
    p = strategy.play[d]
    if p is not None:
        return p
    layer = tree.layers[d]
    s = num_states(d)
    held = tree.hands.counts[1].sum(axis=1) > 0  # every 1-card hand holds its card
    out = np.ones((s, layer.size, len(held), 1))
    out[0, :, :, 0] = 1.0 - strategy.put[d]
    return out


def forward(tree: PutTree, strategy) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Reach of each player's own actions: ra[d] (S, N, Ha), ro[d] (S, N, Ho)."""
    ra: list[np.ndarray] = []
    ro: list[np.ndarray] = []
    h = tree.hands
    cur_a = np.ones((num_states(0), 1, len(h.counts[3])))
    cur_o = np.ones_like(cur_a)
    for d in range(DEPTH):
        nxt = tree.layers[d + 1]
        cur_a[1 + d] = cur_a[0] * strategy.put[d]
        cur_o[1 + d] = cur_o[0] * strategy.see[d]
        ra.append(cur_a)
        ro.append(cur_o)
        s = num_states(d)
        ha, ha2 = actor_size(d), actor_size(d) - 1
        parent, rank = nxt.parent, nxt.last
        x = h.add[ha2][:, rank].T  # (Nc, H') parent hand of each child hand
        slot = h.slot_of[ha][x, rank[:, None]]
        flat_x = parent[:, None] * len(h.counts[ha]) + x
        probs = play_probs(strategy, d, tree)
        a_child = cur_a.reshape(s, -1)[:, flat_x] * probs.reshape(s, -1)[:, flat_x * ha + slot]
        o_child = cur_o[:, parent, :]
        s2 = num_states(d + 1)
        na = np.zeros((s2, nxt.size, len(h.counts[actor_size(d + 1)])))
        no = np.zeros((s2, nxt.size, len(h.counts[other_size(d + 1)])))
        if d % 2 == 0:  # the leader becomes the other player
            na[:s] = o_child
            no[:s] = a_child
        else:
            same = nxt.same[None, :, None]
            na[:s] = np.where(same, a_child, o_child)
            no[:s] = np.where(same, o_child, a_child)
        cur_a, cur_o = na, no
    ra.append(cur_a)
    ro.append(cur_o)
    return ra, ro


@dataclass
class Values:
    """Backward results: root values per role, and per-layer action values for regrets."""

    root: tuple[float, float]  # expected points of (non-dealer, dealer)
    q_play: list[np.ndarray]  # (S, N, Ha, Ha) actor's value of each slot's card
    q_put: list[np.ndarray]  # (N, Ha) actor's value of calling Put (free state)
    v_act: list[np.ndarray]  # (S, N, Ha) actor's value
    q_see: list[np.ndarray]  # (N, Ho) other's value of seeing
    q_fold: list[np.ndarray]  # (N, Ho) other's value of folding


def backward(
    tree: PutTree,
    strategy,
    reach: tuple[list[np.ndarray], list[np.ndarray]],
    points: np.ndarray,
    best: bool = False,
    keep: bool = False,
) -> Values:
    """Counterfactual values. ``best``: every player maximises (each player's values are then
    its best response to the other's strategy: a player's values never use its own strategy)."""
    ra, ro = reach
    h = tree.hands
    last = tree.layers[DEPTH]
    w6 = last.weight[:, 0, 0]
    nd_is_actor = last.actor == 0
    r_nd = np.where(nd_is_actor, ra[DEPTH][:, :, 0], ro[DEPTH][:, :, 0])
    r_d = np.where(nd_is_actor, ro[DEPTH][:, :, 0], ra[DEPTH][:, :, 0])
    v_nd = points * w6 * r_d
    v_d = -points * w6 * r_nd
    va = np.where(nd_is_actor, v_nd, v_d)[:, :, None]
    vo = np.where(nd_is_actor, v_d, v_nd)[:, :, None]
    out = Values(
        (0.0, 0.0), [None] * DEPTH, [None] * DEPTH, [None] * DEPTH, [None] * DEPTH, [None] * DEPTH
    )
    for d in range(DEPTH - 1, -1, -1):
        layer, nxt = tree.layers[d], tree.layers[d + 1]
        s = num_states(d)
        ha, ha2 = actor_size(d), actor_size(d) - 1
        na = len(h.counts[ha])
        parent, rank = nxt.parent, nxt.last
        if d % 2 == 0:
            a_child, o_child = vo[:s], va[:s]
        else:
            same = nxt.same[None, :, None]
            a_child = np.where(same, va[:s], vo[:s])
            o_child = np.where(same, vo[:s], va[:s])
        x = h.add[ha2][:, rank].T
        slot = h.slot_of[ha][x, rank[:, None]]
        q = np.full((s, layer.size * na * ha), -np.inf if best else 0.0)
        q[:, (parent[:, None] * na + x) * ha + slot] = a_child
        q = q.reshape(s, layer.size, na, ha)
        v_other = np.add.reduceat(o_child, layer.starts, axis=1)  # (s, N, Ho)
        probs = play_probs(strategy, d, tree)
        if best:
            v_play = q.max(axis=3)
            v_play[~np.isfinite(v_play)] = 0.0  # a hand the public cards rule out: weight 0
        else:
            v_play = np.einsum("snxa,snxa->snx", probs, np.where(np.isfinite(q), q, 0.0))
        # Answer node of a Put called here in the free state.
        w = layer.weight
        p, see = strategy.put[d], strategy.see[d]
        fold_a = np.einsum("nxy,ny->nx", w, ro[d][0] * (1.0 - see))
        fold_o = -np.einsum("nxy,nx->ny", w, ra[d][0] * p)
        see_a, see_o = v_play[1 + d], v_other[1 + d]
        ans_o = np.maximum(see_o, fold_o) if best else see * see_o + (1.0 - see) * fold_o
        ans_a = see_a + fold_a
        v_act = v_play.copy()
        v_act[0] = np.maximum(v_play[0], ans_a) if best else v_play[0] + p * ans_a
        v_oth = v_other.copy()
        v_oth[0] = v_other[0] + ans_o
        if keep:
            out.q_play[d] = q
            out.q_put[d] = ans_a
            out.v_act[d] = v_act
            out.q_see[d] = see_o
            out.q_fold[d] = fold_o
        va, vo = v_act, v_oth
    out.root = (float(va[0, 0].sum()), float(vo[0, 0].sum()))
    return out


def best_response_values(tree: PutTree, strategy, points: np.ndarray) -> tuple[float, float]:
    """(non-dealer's best-response value against the dealer's strategy, dealer's likewise)."""
    return backward(tree, strategy, forward(tree, strategy), points, best=True).root


def expected_values(tree: PutTree, strategy, points: np.ndarray) -> tuple[float, float]:
    """Expected points of (non-dealer, dealer) when both play ``strategy``."""
    return backward(tree, strategy, forward(tree, strategy), points).root
