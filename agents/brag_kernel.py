"""The Brag baselines' ``act_batch`` compiled (Numba): one call decides every row of a batch.

``decide`` is ``BragBaseline.act`` row after row for the styles ``caller``, ``tight`` (and
``planted_fold_to_raise``, tight with one more rule), ``bluffer``, ``blind``, ``tips`` and
``never_look``: it decodes the fields ``BragView.load`` decodes, keeps the per-hand state
``agents.brag_batch.BragRows`` holds (bets, hand seen last, the bluff), applies the style's
preference list, the B16 cover rule and the legal fallbacks. The random draws come from the
agent's own ``np.random.Generator``, one ``random()`` per row that needs one, in row order: the
draws the scalar ``act`` makes table after table.

The equity ``p ** k`` is read from ``agents.brag_batch``'s table (Python's ``**`` on every
percentile), so it is ``BragView.equity`` to the bit. Imported on first use (``agents.brag``
loads it lazily): the batched tools that call ``act_batch`` already need Numba for their
engines, the scalar agents do not. Compiled code is cached on disk (``cache=True``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents import brag_batch
from agents.brag_batch import BLIND, BLUFFER, CALLER, NEVER_LOOK, TIGHT, TIPS
from brag_env.batched_input import stamp_source_into_caches
from brag_env.brag import rules
from brag_env.brag.observation import HISTORY_LEN
from brag_env.brag.rules import FOLD, LOOK, SEE, STAY, SeatStatus

# The layout of the styles' ``params`` (``CompiledStyle.kernel_params``):
# open play (tight, bluffer, blind): play, raise_at, see_at, patience at 0..3; then
# tight: fold_to_raise (0/1) at 4; bluffer: bluff, bluff_bets at 4, 5; blind: look_stake,
# blind_raise at 4, 5. tips: blind_hands, look_stake, look_pot, blind_raise, fear_raises,
# max_share, see_at, slowplay_pot, pair_at, flush_at, prial_at at 0..10. never_look: raise.
NUM_PARAMS = 11

_STATUS_BLIND = int(SeatStatus.BLIND)  # the seat_status columns: blind, then open (still in)
# layout (``CompiledStyle._layout``): offsets in the observation vector
L_CAT, L_STRENGTH, L_STATUS, L_CHIPS, L_CHIPS_IN, L_COVERED, L_STAKE, L_POT, L_HAND = range(9)
L_HSEAT, L_HACTION = 9, 10
# scales: max_stake, starting_chips, hands_per_session, min_stake
S_STAKE, S_CHIPS, S_HANDS, S_MIN = range(4)


@njit(cache=True)
def _raises_since_mine(obs, i, hseat, haction, n, a, is_raise) -> int:
    """``BragView.raises_since_mine``: the others' raises since my last move (not a look);
    the history is most recent first."""
    count = 0
    for h in range(HISTORY_LEN):
        acted, top = 0, obs[i, haction + h * a]
        for q in range(1, a):  # argmax: the first maximum
            if obs[i, haction + h * a + q] > top:
                acted, top = q, obs[i, haction + h * a + q]
        if obs[i, hseat + h * n] > 0.5 and acted != LOOK:
            return count
        if top > 0.5 and is_raise[acted]:
            count += 1
    return count


@njit(cache=True)
def _open_play(prefs, equity, strength, heads_up, can_see, bets, play, raise_at, see_at,
               patience, big) -> int:  # fmt: skip
    """``BragBaseline.open_play`` into ``prefs``; returns how many."""
    if heads_up and can_see and (strength >= see_at or (bets >= patience and equity >= play)):
        prefs[0] = SEE
        return 1
    if equity >= raise_at:
        if big >= 0:
            prefs[0], prefs[1] = big, STAY
            return 2
        prefs[0] = STAY
        return 1
    prefs[0] = STAY if equity >= play else FOLD
    return 1


@njit(cache=True)
def _blind_play(prefs, looks, blind_raise, small, rng) -> int:
    """Blind play of ``blind`` and ``tips``: look when told to; else stay, raising the
    smallest legal raise with chance ``blind_raise`` (a draw only then). Returns how many."""
    if looks:
        prefs[0], prefs[1] = LOOK, STAY
        return 2
    if rng.random() < blind_raise:
        if small < 0:
            prefs[0] = STAY
            return 1
        prefs[0], prefs[1] = small, STAY
        return 2
    prefs[0], prefs[1] = STAY, LOOK
    return 2


@njit(cache=True)
def decide(
    obs, masks, rows, bets, hands, chips_ins, bluffs, style, params, layout, scales, n,
    raise_ids, is_bet, is_raise, percentiles, equities, take_id, keep_id, cover_id, rng,
):  # fmt: skip
    """One action per row (``rows``: the per-table state slots, grown by the caller)."""
    k, a = masks.shape
    out = np.empty(k, np.int64)
    prefs = np.empty(3, np.int64)
    most = equities.shape[1] - 1
    for i in range(k):
        m = masks[i]
        if m[take_id] or m[keep_id]:  # B19: both hands unseen, nothing to go on
            out[i] = take_id if m[take_id] else keep_id
            continue
        row = rows[i]
        # BragView.load: the fields, whole numbers rounded half-even as round()
        strength32 = obs[i, layout[L_STRENGTH]]
        strength = np.float64(strength32)
        status = layout[L_STATUS]
        blind = obs[i, status + _STATUS_BLIND] > 0.5
        opponents = 0
        for s in range(1, n):
            seat = status + 4 * s + _STATUS_BLIND  # blind, then open
            opponents += int(obs[i, seat] + obs[i, seat + 1])
        coverers = 0
        if layout[L_COVERED] >= 0:
            for s in range(n):
                coverers += int(obs[i, layout[L_COVERED] + s])
        stake = int(np.rint(np.float64(obs[i, layout[L_STAKE]]) * scales[S_STAKE]))
        pot = int(np.rint(np.float64(obs[i, layout[L_POT]]) * scales[S_CHIPS]))
        chips = int(np.rint(np.float64(obs[i, layout[L_CHIPS]]) * scales[S_CHIPS]))
        chips_in = int(np.rint(np.float64(obs[i, layout[L_CHIPS_IN]]) * scales[S_CHIPS]))
        hand = int(np.rint(np.float64(obs[i, layout[L_HAND]]) * scales[S_HANDS]))
        if hands[row] < 0 or hand != hands[row] or chips_in < chips_ins[row]:
            bets[row] = 0  # new_hand()
            bluffs[row] = -1
        hands[row], chips_ins[row] = hand, chips_in
        heads_up = opponents == 1
        where = np.searchsorted(percentiles, strength32)
        equity = equities[where, min(max(opponents + coverers, 1), most)]
        big, small = -1, -1
        for r in raise_ids:
            if m[r]:
                big = r
                if small < 0:
                    small = r
        min_stake = scales[S_MIN]
        # the style's preferences
        count = 1
        if style == CALLER:
            prefs[0], prefs[1], count = (LOOK, STAY, 2) if blind else (SEE, STAY, 2)
        elif style == NEVER_LOOK:
            chance = params[0]
            if chance > 0 and rng.random() < chance and small >= 0:
                prefs[0], prefs[1], count = small, STAY, 2
            else:
                prefs[0] = STAY
        elif style == TIPS:
            if blind:
                looks = (
                    hand >= params[0]
                    or stake >= params[1] * min_stake
                    or pot >= params[2] * min_stake
                )
                count = _blind_play(prefs, looks, params[3], small, rng)
            elif strength >= params[10]:  # a prial: slow-play it
                if pot >= params[7] * min_stake:
                    if big >= 0:
                        prefs[0], prefs[1], prefs[2], count = big, SEE, STAY, 3
                    else:
                        prefs[0], prefs[1], count = SEE, STAY, 2
                else:
                    prefs[0] = STAY
            elif heads_up and m[SEE] and strength >= params[6]:
                prefs[0], prefs[1], count = SEE, STAY, 2
            elif strength >= params[9]:
                if small >= 0:
                    prefs[0], prefs[1], count = small, STAY, 2
                else:
                    prefs[0] = STAY
            elif strength >= params[8]:
                scared = (
                    _raises_since_mine(obs, i, layout[L_HSEAT], layout[L_HACTION], n, a, is_raise)
                    >= params[4]
                )
                committed = chips_in >= chips
                too_dear = stake > params[5] * max(chips, 1) and not committed
                prefs[0] = FOLD if scared or too_dear else STAY
            else:
                prefs[0] = STAY if heads_up and strength >= 0.5 else FOLD
        elif blind and style == BLIND:
            count = _blind_play(prefs, stake >= params[4] * min_stake, params[5], small, rng)
        elif blind:  # tight, bluffer: look at once
            prefs[0] = LOOK
        else:
            bluffing = False
            if style == BLUFFER:
                if bluffs[row] < 0:  # decided once per hand, a draw only for a weak hand
                    weak = equity < params[0]
                    bluffs[row] = 1 if weak and rng.random() < params[4] else 0
                bluffing = bluffs[row] == 1
            if bluffing:
                if bets[row] >= params[5]:
                    prefs[0] = FOLD
                elif big >= 0:
                    prefs[0], prefs[1], count = big, STAY, 2
                else:
                    prefs[0] = STAY
            elif (
                style == TIGHT
                and params[4] > 0
                and _raises_since_mine(obs, i, layout[L_HSEAT], layout[L_HACTION], n, a, is_raise)
                > 0
            ):
                prefs[0] = FOLD  # planted_fold_to_raise
            else:
                count = _open_play(
                    prefs, equity, strength, heads_up, m[SEE], bets[row], params[0], params[1],
                    params[2], params[3], big,
                )  # fmt: skip
        # B16: short of the stay: cover with what it would bet or see
        if cover_id >= 0 and m[cover_id]:
            for j in range(count):
                p = prefs[j]
                if is_bet[p] or p == SEE or p == cover_id:  # noqa: SIM109 (a plain test for Numba)
                    prefs[j] = cover_id
        choice = -1
        for j in range(count):
            if 0 <= prefs[j] < a and m[prefs[j]]:
                choice = prefs[j]
                break
        if choice < 0:  # e.g. B16 leaves only fold
            if m[FOLD]:
                choice = FOLD
            else:
                choice = 0
                for q in range(a):
                    if m[q]:
                        choice = q
                        break
        if is_bet[choice]:
            bets[row] += 1
        out[i] = choice
    return out


stamp_source_into_caches(globals(), rules)  # a change to rules.py recompiles the kernels
stamp_source_into_caches(globals(), brag_batch)  # and so does one to the style codes
