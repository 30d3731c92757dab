"""The Put baselines' ``act_batch`` compiled (Numba): one call decides every row of a batch.

``view_rows`` decodes, per observation row, what ``agents.put.PutView.load`` decodes for one
(the trick in play, the best card on the table and its seat, the cards held, the live strength);
``decide`` then applies ``PutBaseline.act``'s order (answer a Put, pass, call Put, greedy card)
row after row; ``act_rows`` runs both in one call. Greedy, caller and bluffer differ only in
their thresholds and the bluff draw, which ``decide`` takes from the agent's own
``np.random.Generator``: the same draws in the same order as the scalar ``act`` makes them
table after table, so both paths decide alike.

Imported on first use (``agents.put`` loads it lazily): the batched tools that call
``act_batch`` already need Numba for their engines, the scalar agents do not. Compiled code is
cached on disk (``cache=True``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from brag_env.batched_input import stamp_source_into_caches
from brag_env.put import rules
from brag_env.put.rules import FOLD, NUM_RANKS, PASS, PLAY, PUT, SEE, TRICKS_PER_HAND

TRICK_WEIGHT = 0.25  # agents.put.TRICK_WEIGHT (a test checks they agree)


@njit(cache=True)
def view_rows(obs, won_at, cur_at, played_at, n, partnerships, opponents, grid, values):
    """Per row: tricks ahead, trick in play, best rank and seat on the table (``NUM_RANKS``,
    -1: nothing), cards held, live strength (``PutView``'s fields)."""
    k = obs.shape[0]
    ahead = np.empty(k)
    trick = np.empty(k, np.int64)
    best_rank = np.empty(k, np.int64)
    best_seat = np.empty(k, np.int64)
    held = np.empty(k, np.int64)
    strength = np.empty(k)
    for i in range(k):
        count = 0.0
        total = 0.0
        for r in range(NUM_RANKS):
            c = obs[i, r]
            count += c
            total += c * values[r]
        if partnerships:
            lead = obs[i, won_at] + obs[i, won_at + 2] - (obs[i, won_at + 1] + obs[i, won_at + 3])
        else:
            most = obs[i, won_at + opponents[0]]
            for s in opponents[1:]:
                most = max(most, obs[i, won_at + s])
            lead = obs[i, won_at] - most
        ahead[i] = np.rint(lead)
        t, top = TRICKS_PER_HAND - 1, 0.0  # all zero (match over) reads as the last trick
        for j in range(TRICKS_PER_HAND):
            if obs[i, cur_at + j] > top:
                t, top = j, obs[i, cur_at + j]
        trick[i] = t
        best_r, best_s, mine, my_rank = NUM_RANKS, -1, False, 0
        base = played_at + t * n * NUM_RANKS
        for s in range(n):
            r, high = -1, 0.0
            for q in range(NUM_RANKS):  # the first maximum, as argmax
                if obs[i, base + s * NUM_RANKS + q] > high:
                    r, high = q, obs[i, base + s * NUM_RANKS + q]
            if r >= 0:
                if s == 0:  # my card of the unfinished trick still counts
                    mine, my_rank = True, r
                if r < best_r:
                    best_r, best_s = r, s
        best_rank[i], best_seat[i] = best_r, best_s
        held[i] = int(count)
        cards = int(count) + (1 if mine else 0)
        if mine:
            total += NUM_RANKS - 1 - my_rank
        if cards == 0:
            strength[i] = 0.0
        else:
            live = grid[cards, int(total)] + TRICK_WEIGHT * ahead[i]
            strength[i] = min(1.0, max(0.0, live))
    return ahead, trick, best_rank, best_seat, held, strength


@njit(cache=True)
def decide(
    masks, trick, best_rank, best_seat, held, strength, tables, bluffing, put_at, see_at,
    bluff, partnerships, rng,
):  # fmt: skip
    """``PutBaseline.act`` per row. ``put_at``/``see_at``: the call and see thresholds (inf /
    -inf: never calls, always sees); ``bluff`` >= 0: the bluffer's chance, drawn at a hand's
    first chance to call (three cards at trick 1) into ``bluffing[table]``; < 0: no bluff."""
    k, a = masks.shape
    out = np.empty(k, np.int64)
    for i in range(k):
        m = masks[i]
        if m[SEE] or m[FOLD]:
            out[i] = SEE if strength[i] >= see_at else FOLD
            continue
        passed = -1
        for j in range(PASS, a):
            if m[j]:
                passed = j
                break
        if passed >= 0:
            out[i] = passed  # the best card
            continue
        if m[PUT]:
            call = strength[i] >= put_at
            if bluff >= 0.0:
                if trick[i] == 0 and held[i] == 3:  # the hand's first chance (P4)
                    bluffing[tables[i]] = rng.random() < bluff
                call = call or bluffing[tables[i]]
            if call:
                out[i] = PUT
                continue
        first, last, cheapest = -1, -1, -1
        for r in range(NUM_RANKS):
            if m[PLAY + r]:
                if first < 0:
                    first = r
                last = r
                if r < best_rank[i]:
                    cheapest = r
        if first < 0:  # no card to play: the first legal action
            pick = 0
            for j in range(a):
                if m[j]:
                    pick = j
                    break
            out[i] = pick
        elif best_seat[i] < 0:  # leading: the highest card
            out[i] = PLAY + first
        elif cheapest >= 0 and not (partnerships and best_seat[i] == 2):
            out[i] = PLAY + cheapest  # the cheapest winner
        else:
            out[i] = PLAY + last  # dump the lowest
    return out


@njit(cache=True)
def act_rows(
    obs, won_at, cur_at, played_at, n, partnerships, opponents, grid, values, masks, tables,
    bluffing, put_at, see_at, bluff, rng,
):  # fmt: skip
    """``view_rows`` then ``decide`` in one compiled call (``PutBaseline.act_batch``: one
    dispatch a batch instead of two, the decoded fields never leave compiled code)."""
    _, trick, best_rank, best_seat, held, strength = view_rows(
        obs, won_at, cur_at, played_at, n, partnerships, opponents, grid, values
    )
    return decide(
        masks, trick, best_rank, best_seat, held, strength, tables, bluffing, put_at, see_at,
        bluff, partnerships, rng,
    )  # fmt: skip


stamp_source_into_caches(globals(), rules)  # a change to rules.py recompiles the kernels
