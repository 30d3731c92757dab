"""Any Put agent as the exact strategy it plays in one heads-up hand (for the exact solver).

``batch_probabilities(agent)`` returns a function mapping a batch of observations and masks to
action probabilities, the same numbers ``act`` samples from: random (uniform legal), the rule
baselines of ``agents.put`` (vectorised copies of their rules, tested against ``act``), trained
models (the actor network in numpy) and ``put:equilibrium`` (its table). ``agent_strategy``
queries it at every information set of the solver's tree, in large batches.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.base import Agent, RandomAgent
from agents.put import (
    _PERCENTILE,
    TRICK_WEIGHT,
    Greedy,
    PutBaseline,
    PutBluffer,
    PutCaller,
    PutTips,
)
from brag_env.put.rules import FOLD, NUM_RANKS, PLAY, PUT, SEE, PutConfig
from brag_env.put.solver.observe import (
    _OFF,
    ANSWER_NODE,
    PLAY_NODE,
    batches,
    observations,
)
from brag_env.put.solver.strategy import Strategy
from brag_env.put.solver.tree import DEPTH, PutTree, actor_size, num_states, other_size

BatchPolicy = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _uniform(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    m = mask.astype(np.float64)
    return m / m.sum(axis=1, keepdims=True)


def _strength(obs: np.ndarray) -> tuple[np.ndarray, ...]:
    """Vectorised ``PutView``: live strength, leading flag, best rank on the table, trick,
    rank counts held and rank counts in play (held plus one's card on the table)."""
    b = len(obs)
    rows = np.arange(b)
    counts = np.rint(obs[:, _OFF["hand"] : _OFF["hand"] + NUM_RANKS]).astype(np.int64)
    won = obs[:, _OFF["tricks_won"] : _OFF["tricks_won"] + 2]
    ahead = np.rint(won[:, 0] - won[:, 1]).astype(np.int64)
    cur = obs[:, _OFF["current_trick"] : _OFF["current_trick"] + 3]
    trick = np.where(cur.any(axis=1), cur.argmax(axis=1), 2)
    played = obs[:, _OFF["played"] : _OFF["played"] + 3 * 2 * NUM_RANKS].reshape(b, 3, 2, -1)
    here = played[rows, trick]  # (B, 2, 13)
    in_play = counts.copy()
    mine = here[:, 0].any(axis=1)
    in_play[rows[mine], here[mine, 0].argmax(axis=1)] += 1
    opp = here[:, 1].any(axis=1)
    best = np.full(b, NUM_RANKS)
    for s in (0, 1):
        has = here[:, s].any(axis=1)
        r = np.where(has, here[:, s].argmax(axis=1), NUM_RANKS)
        best = np.minimum(best, r)
    leading = ~(mine | opp)
    value = NUM_RANKS - 1 - np.arange(NUM_RANKS)
    size = in_play.sum(axis=1)
    total = in_play @ value
    pct = np.zeros(b)
    for k in (1, 2, 3):
        sel = size == k
        pct[sel] = _PERCENTILE[k][total[sel]]
    strength = np.clip(pct + TRICK_WEIGHT * ahead, 0.0, 1.0)
    strength[size == 0] = 0.0
    return strength, leading, best, trick, counts, in_play


def _baseline(agent: PutBaseline) -> BatchPolicy:
    """The greedy card play and the Put rules of ``agents.put``, for two players."""

    def probs(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        b = len(obs)
        rows = np.arange(b)
        strength, leading, best, trick, counts, in_play = _strength(obs)
        out = np.zeros(mask.shape)  # the table's action count (29 heads-up)
        answering = mask[:, SEE].astype(bool)
        if isinstance(agent, PutTips):
            see, put = _tips(agent, obs, strength, leading, trick, in_play)
        elif isinstance(agent, PutCaller):
            see = strength >= agent.see_at
            put = (strength >= agent.put_at).astype(np.float64)
            if isinstance(agent, PutBluffer):
                first = (trick == 0) & (counts.sum(axis=1) == 3)
                put = np.where(first & (put == 0), agent.bluff, put)
        else:  # greedy
            see, put = np.ones(b, bool), np.zeros(b)
        out[answering, SEE] = see[answering]
        out[answering, FOLD] = ~see[answering]
        held = mask[:, PLAY : PLAY + NUM_RANKS].astype(bool)
        idx = np.arange(NUM_RANKS)
        top = np.where(held, idx, NUM_RANKS).min(axis=1)  # best card held
        low = np.where(held, idx, -1).max(axis=1)  # lowest card held
        beat = held & (idx[None, :] < best[:, None])
        cheapest = np.where(beat, idx, -1).max(axis=1)
        card = np.where(leading, top, np.where(cheapest >= 0, cheapest, low))
        put = np.where(mask[:, PUT].astype(bool), put, 0.0)
        playing = ~answering
        out[rows[playing], PLAY + card[playing]] = 1.0 - put[playing]
        out[playing, PUT] = put[playing]
        return out

    return probs


def _tips(
    agent: PutTips,
    obs: np.ndarray,
    strength: np.ndarray,
    leading: np.ndarray,
    trick: np.ndarray,
    in_play: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``PutTips.answer_put`` (see or not) and the chance ``call_put`` calls, per row.

    The one random choice, tip 5, is drawn afresh at the one decision where it applies (leading
    trick 2 after taking trick 1) and nothing is remembered, so its chance is ``after_win``.
    """
    b = len(obs)
    rows = np.arange(b)
    target = agent.target
    scores = obs[:, _OFF["scores"] : _OFF["scores"] + 2].astype(np.float64) * target
    mine, theirs = np.rint(scores[:, 0]), np.rint(scores[:, 1])
    three, two = in_play[:, 0] > 0, in_play[:, 1] > 0
    # answering: a 3, or folding would give the caller the match (tip 4), or strength
    callers = obs[:, _OFF["put_caller"] : _OFF["put_caller"] + 2]
    caller_points = np.where(callers.any(axis=1), np.rint(scores[rows, callers.argmax(axis=1)]), 0)
    see = three | (caller_points + 1 >= target) | (strength >= agent.see_at)
    # calling: tip 1, strong (tip 3 stops the rest at trick 1), tips 2 and 4, then tip 5
    strong = three | (strength >= agent.strong_at)
    middling = strength >= agent.mid_at
    decides = mine + agent.seen_points >= target
    won_first = obs[:, _OFF["trick_winner"]] == 1  # trick 1 taken by seat 0 (me)
    first_card = obs[:, _OFF["played"] : _OFF["played"] + NUM_RANKS].argmax(axis=1)
    mid_card = won_first & (first_card >= 3) & (first_card <= 8)  # K down to 8
    bluff = (trick == 1) & leading & mid_card
    calls = strong | (middling & ((mine > theirs) | decides))
    later = np.where(calls, 1.0, np.where(bluff, agent.after_win, 0.0))
    put = np.where(three & two, 1.0, np.where(trick == 0, strong.astype(np.float64), later))
    return see, put


def _model(agent) -> BatchPolicy:
    from agents.model import _forward

    def probs(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        legal = mask.astype(bool)
        if agent._layers is not None:
            logits = _forward(agent._layers, obs.astype(np.float64))
        else:
            import torch

            with torch.inference_mode():
                t = torch.as_tensor(obs, dtype=torch.float32)
                dist = agent.policy.get_distribution(t, action_masks=legal)
                logits = torch.log(dist.distribution.probs).numpy().astype(np.float64)
        logits = np.where(legal, logits, -np.inf)
        if agent.deterministic:
            out = np.zeros(logits.shape)
            out[np.arange(len(out)), logits.argmax(axis=1)] = 1.0
            return out
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True)

    return probs


def batch_probabilities(agent: Agent) -> BatchPolicy:
    """The exact action probabilities of an agent, for batches of observations."""
    from agents.model import ModelAgent

    if hasattr(agent, "batch_probabilities"):
        return agent.batch_probabilities
    if isinstance(agent, RandomAgent):
        return _uniform
    if isinstance(agent, ModelAgent):
        return _model(agent)
    if type(agent) in (Greedy, PutCaller, PutBluffer, PutTips):
        return _baseline(agent)
    raise ValueError(
        f"agent {agent.name!r}: its exact action probabilities are unknown to the solver "
        "(supported: random, put:greedy/caller/bluffer/tips, put:equilibrium, model .zip files)"
    )


def agent_strategy(
    probs: BatchPolicy,
    tree: PutTree,
    config: PutConfig,
    score: tuple[int, int],
    put_timing: bool = False,
) -> Strategy:
    """Query ``probs`` at every possible information set of the tree (both seats), with the
    observations of put_v2 (``put_timing``) or put_v1, and the event block with
    ``config.perfect_recall``."""
    h = tree.hands
    put, play, see = [], [], []
    for d in range(DEPTH):
        layer = tree.layers[d]
        ha, ho = actor_size(d), other_size(d)
        na, no = len(h.counts[ha]), len(h.counts[ho])
        slot_rank = h.slot_rank[ha]
        legal = slot_rank >= 0
        # defaults where a hand is impossible: uniform (never used, deal probability 0)
        p_put = np.zeros((layer.size, na))
        p_see = np.full((layer.size, no), 0.5)
        p_play = None if ha == 1 else np.zeros((num_states(d), layer.size, na, ha))
        for batch in batches(tree, d, ANSWER_NODE, 0):
            obs, mask = observations(tree, config, score, batch, put_timing)
            p = probs(obs, mask)
            total = p[:, SEE] + p[:, FOLD]
            p_see[batch.nodes, batch.hands] = p[:, SEE] / np.where(total > 0, total, 1.0)
        for s in range(num_states(d)):
            if s > 0 and ha == 1:
                continue  # one card, no Put left: no choice
            for batch in batches(tree, d, PLAY_NODE, s):
                obs, mask = observations(tree, config, score, batch, put_timing)
                p = probs(obs, mask)
                if s == 0:
                    p_put[batch.nodes, batch.hands] = p[:, PUT]
                if p_play is not None:
                    ranks = slot_rank[batch.hands]  # (B, ha)
                    val = p[np.arange(len(p))[:, None], PLAY + np.maximum(ranks, 0)]
                    p_play[s, batch.nodes, batch.hands] = np.where(ranks >= 0, val, 0.0)
        if p_play is not None:  # impossible hands: spread evenly so every row sums to 1
            empty = (
                p_play.sum(axis=3) + (p_put[None] * (np.arange(num_states(d)) == 0)[:, None, None])
                == 0
            )
            fill = legal / legal.sum(axis=1, keepdims=True)
            p_play = np.where(empty[..., None], fill[None, None], p_play)
        put.append(p_put)
        play.append(p_play)
        see.append(p_see)
    return Strategy(put, play, see)
