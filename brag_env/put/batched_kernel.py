"""The compiled per-table loops of ``BatchedPut`` (Numba, P1-P6).

Every function takes the engine's arrays as one ``Tables`` named tuple (the arrays themselves,
shared with the ``BatchedPut`` object and changed in place) and loops over the given table
rows one at a time: a move is a few scalar updates and the kept observation entries it
changes, never a pass over every table. The helpers are inlined into the entry points
(``masks``, ``first_illegal``, ``step``, ``fisher_yates_top``, ``deal`` and ``observe``), which
unpack the named tuple once per call, not once per table (only a hand's end reads it again).

The random draws stay in ``BatchedPut`` (numpy's generator, the same streams as the numpy
engine had): ``fisher_yates_top`` takes the drawn picks, ``deal`` the cards. Compiled code is
cached on disk (``cache=True``), so only a process that finds no cache pays the compile.

Kept observations (``obs``, uint8, both seats' views of every table): heads-up, seat ``s``
seen from seat ``q`` is the relative seat ``s ^ q``; the float fields (``acting``, ``scores``,
``last_points``) are written by ``observe`` from the state.

With ``perfect_recall`` the kept views also hold the event block (``recall_*``, after every
other field): ``events`` counts the rows of the hand in play, each move writes its row (who
acted, the action) as ``HandRecord.actions`` records it, and a hand's end copies the block
into ``last_recall_*``. Heads-up every answer takes effect at once and nothing is passed
(P7/P8 are for more seats), so no row is ever hidden.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit
from numba.extending import register_jitable

from brag_env import batched_native
from brag_env.batched_input import kernels_cached, stamp_source_into_caches
from brag_env.batched_native import borrowed
from brag_env.put import rules
from brag_env.put.game import PHASE_ANSWER, PHASE_OVER, PHASE_PLAY
from brag_env.put.rules import FOLD, NUM_RANKS, PUT, SEE, TRICKS_PER_HAND

SEATS = 2
TIED = 2  # trick_win value of a tied trick (P3); -1 = not finished
HAND_CARDS = 6  # P2: three each
ENDED_BY_FOLD, ENDED_BY_PLAY = 1, 2  # step's ``ended`` codes (0: the hand goes on)

# BatchedPut's attributes of these names, in this order
TABLE_ARRAYS = (
    "counts",
    "phase",
    "current",
    "leader",
    "dealer",
    "trick_no",
    "on_table",
    "played",
    "trick_win",
    "tricks_won",
    "put_caller",
    "put_seen",
    "put_folded",
    "scores",
    "winner",
    "last_caller",
    "last_folded",
    "last_unit",
    "last_points",
    "hands_played",
    "events",
    "_obs",
)
Tables = namedtuple("Tables", [name.lstrip("_") for name in TABLE_ARRAYS])

# The observation offsets the kernels write, as indices into ``Rules.off``.
FIELDS = (
    "hand",
    "played",
    "trick_leader",
    "trick_winner",
    "trick_tied",
    "tricks_won",
    "current_trick",
    "acting",
    "phase",
    "put_caller",
    "put_seen",
    "put_folded",
    "scores",
    "dealer",
    "last_hand",
    "last_played",
    "last_trick_winner",
    "last_put_caller",
    "last_points",
    "recall_seat",
    "recall_action",
    "last_recall_seat",
)
(
    F_HAND,
    F_PLAYED,
    F_TRICK_LEADER,
    F_TRICK_WINNER,
    F_TRICK_TIED,
    F_TRICKS_WON,
    F_CURRENT_TRICK,
    F_ACTING,
    F_PHASE,
    F_PUT_CALLER,
    F_PUT_SEEN,
    F_PUT_FOLDED,
    F_SCORES,
    F_DEALER,
    F_LAST_HAND,
    F_LAST_PLAYED,
    F_LAST_TRICK_WINNER,
    F_LAST_PUT_CALLER,
    F_LAST_POINTS,
    F_RECALL_SEAT,
    F_RECALL_ACTION,
    F_LAST_RECALL_SEAT,
) = range(len(FIELDS))

# A PutConfig as the kernels read it: (target_points, seen_put_points or -1 for "game",
# put_draw_to_opponent, reward == "points", 1 / target_points, and the width of a
# ``recall_action`` row: 0 without ``perfect_recall``, whose offsets are then -1).
Rules = namedtuple(
    "Rules", ["target", "seen_points", "draw_to_opponent", "points_reward", "inv", "recall_width"]
)


# ---------------------------------------------------------------- kept observations
# Put's point split from its one source, ``brag_env.put.rules`` (the scalar env calls it as
# Python): registered here, the kernels compile the same function, called as ``rules.<name>``.
register_jitable(rules.loss_per_seat)


@njit(cache=True, inline="always")
def set_both(obs, r, at, value):
    """An entry of both views (a flag or a count that is the same for both seats)."""
    obs[r, 0, at] = value
    obs[r, 1, at] = value


@njit(cache=True, inline="always")
def set_seat(obs, r, at, seat, value):
    """A seat id one-hot from ``at``, relative to each view (``seat ^ view``)."""
    obs[r, 0, at + seat] = value
    obs[r, 1, at + (seat ^ 1)] = value


@njit(cache=True, inline="always")
def record_event(obs, off, R, events, r, seat, action):
    """perfect_recall: the hand's next event row in both views, seat ``seat`` did ``action``
    (the order of ``HandRecord.actions``)."""
    e = events[r]
    set_seat(obs, r, off[F_RECALL_SEAT] + e * SEATS, seat, 1)
    set_both(obs, r, off[F_RECALL_ACTION] + e * R.recall_width + action, 1)
    events[r] = e + 1


# --------------------------------------------------------------------------- masks
@njit(cache=True, inline="always")
def legal(phase, counts, current, put_caller, a):
    """Whether action ``a`` is legal for the seat to act of a table in ``phase`` (P3/P4)."""
    if phase == PHASE_PLAY:
        if 0 <= a < NUM_RANKS:
            return counts[current, a] > 0
        return a == PUT and put_caller < 0
    if phase == PHASE_ANSWER:
        return a in (SEE, FOLD)
    return False


@njit(cache=True)
def masks(T, rows, out):
    """int8 masks of the seat to act into ``out`` (zero on finished tables)."""
    T = borrowed(T)  # no reference counts in the loop (batched_native)
    phases, counts, current, put_caller = T.phase, T.counts, T.current, T.put_caller
    for k in range(rows.size):
        r = rows[k]
        out[k, :] = 0
        phase = phases[r]
        if phase == PHASE_PLAY:
            p = current[r]
            for i in range(NUM_RANKS):
                out[k, i] = counts[r, p, i] > 0
            out[k, PUT] = put_caller[r] < 0
        elif phase == PHASE_ANSWER:
            out[k, SEE] = 1
            out[k, FOLD] = 1


@njit(cache=True)
def first_illegal(T, rows, actions):
    """The index of the first row whose action is not legal, or -1."""
    T = borrowed(T)  # no reference counts in the loop (batched_native)
    phase, counts, current, put_caller = T.phase, T.counts, T.current, T.put_caller
    for k in range(rows.size):
        r = rows[k]
        if not legal(phase[r], counts[r], current[r], put_caller[r], actions[k]):
            return k
    return -1


# ---------------------------------------------------------------------------- step
# The kernels unpack ``Tables`` once per call into local arrays and pass those to the
# (inlined) helpers: an array read out of a tuple in the loop costs an atomic reference count
# at every read, which made the first version of these loops no faster than numpy (measured).


@njit(cache=True, inline="always")
def score_played_out(R, tricks_won, put_seen, put_caller, scores):
    """P5: more tricks scores 1, or the seen Put's points (P4/P6); the P5 option gives a
    drawn seen Put's point to the caller's opponent. Takes one table's entries; returns
    (scoring seat or -1, points)."""
    won0, won1 = tricks_won[0], tricks_won[1]
    unique = max(won0, won1) > 0 and won0 != won1
    unit = (0 if won0 > won1 else 1) if unique else -1
    game = R.seen_points < 0  # "game": what the scorer lacks of the target
    seen_points = R.target - scores[max(unit, 0)] if game else R.seen_points
    points = (seen_points if put_seen else 1) if unique else 0
    if R.draw_to_opponent and not unique and put_seen:
        unit = 1 - put_caller
        points = 1
    return unit, points


@njit(cache=True, inline="always")
def play(
    counts, current, leader, trick_no, on_table, played, trick_win, tricks_won, obs, off, r, p, rank
):
    """P3: seat ``p`` plays a card of ``rank``; returns True when the hand is played out."""
    counts[r, p, rank] -= 1
    t = trick_no[r]
    played[r, t, p] = rank
    on_table[r] += 1
    obs[r, p, off[F_HAND] + rank] = counts[r, p, rank]  # the holder's view only
    at = off[F_PLAYED] + t * (SEATS * NUM_RANKS) + rank
    obs[r, 0, at + p * NUM_RANKS] = 1
    obs[r, 1, at + (p ^ 1) * NUM_RANKS] = 1
    if on_table[r] < SEATS:
        current[r] = 1 - p
        return False
    a, b = played[r, t, 0], played[r, t, 1]  # P3: the lower put rank wins, equal ties
    win = 0 if a < b else (1 if b < a else TIED)
    trick_win[r, t] = win
    if win != TIED:
        tricks_won[r, win] += 1
        leader[r] = win
        set_seat(obs, r, off[F_TRICK_WINNER] + t * SEATS, win, 1)
        won = tricks_won[r, win]
        obs[r, 0, off[F_TRICKS_WON] + win] = won
        obs[r, 1, off[F_TRICKS_WON] + (win ^ 1)] = won
    else:
        set_both(obs, r, off[F_TRICK_TIED] + t, 1)
    on_table[r] = 0
    trick_no[r] = t + 1
    if t + 1 < TRICKS_PER_HAND:  # the winner (after a tie, the same leader) leads
        current[r] = leader[r]
        set_seat(obs, r, off[F_TRICK_LEADER] + (t + 1) * SEATS, leader[r], 1)
        set_both(obs, r, off[F_CURRENT_TRICK] + t, 0)
        set_both(obs, r, off[F_CURRENT_TRICK] + t + 1, 1)
        return False
    return True


@njit(cache=True, inline="always")
def end_hand(T, R, off, r, unit, points, rewards, k):
    """P5/P6: score the hand, pay the rewards (row ``k``), end the match at the target; the
    kept views' finished hand moves into their last-hand block. Returns whether the match
    is over (once a hand: its arrays are read from ``T`` here)."""
    phase, current, dealer, trick_no = T.phase, T.current, T.dealer, T.trick_no
    put_caller, put_folded, scores, winner = T.put_caller, T.put_folded, T.scores, T.winner
    last_caller, last_folded = T.last_caller, T.last_folded
    last_unit, last_points, hands_played, obs = T.last_unit, T.last_points, T.hands_played, T.obs
    events = T.events
    scored = unit >= 0
    if scored:
        scores[r, unit] += points
    last_caller[r] = put_caller[r]
    last_folded[r, 0] = put_folded[r, 0]
    last_folded[r, 1] = put_folded[r, 1]
    last_unit[r] = unit
    last_points[r] = points if scored else 0
    hands_played[r] += 1
    finished = scored and scores[r, unit] >= R.target
    if R.points_reward:
        if scored:
            loss = -rules.loss_per_seat(SEATS, points)  # P7/P8, as the scalar env
            for s in range(SEATS):
                rewards[k, s] = points if s == unit else loss
    elif finished:
        loss = -rules.loss_per_seat(SEATS, 1.0)
        for s in range(SEATS):
            rewards[k, s] = 1.0 if s == unit else loss
    # the last-hand block has the current hand's layout: played, the trick results, the Put
    for q in range(SEATS):
        for i in range(TRICKS_PER_HAND * SEATS * NUM_RANKS):
            obs[r, q, off[F_LAST_PLAYED] + i] = obs[r, q, off[F_PLAYED] + i]
        for i in range(TRICKS_PER_HAND * SEATS + TRICKS_PER_HAND):  # winners, ties
            obs[r, q, off[F_LAST_TRICK_WINNER] + i] = obs[r, q, off[F_TRICK_WINNER] + i]
        for i in range(SEATS + 1 + SEATS):  # caller, seen, folded
            obs[r, q, off[F_LAST_PUT_CALLER] + i] = obs[r, q, off[F_PUT_CALLER] + i]
        obs[r, q, off[F_LAST_HAND]] = 1
        obs[r, q, off[F_DEALER]] = 0
        obs[r, q, off[F_DEALER] + 1] = 0
    recall = R.recall_width > 0
    if recall:  # the event block follows the same move: this hand's rows become the last's
        start, last = off[F_RECALL_SEAT], off[F_LAST_RECALL_SEAT]
        for q in range(SEATS):
            for i in range(last - start):
                obs[r, q, last + i] = obs[r, q, start + i]
    if finished:  # P6: over; no trick in play, no phase, the last dealer shown
        winner[r] = unit
        phase[r] = PHASE_OVER
        current[r] = -1
        for q in range(SEATS):
            for i in range(TRICKS_PER_HAND):
                obs[r, q, off[F_CURRENT_TRICK] + i] = 0
                obs[r, q, off[F_PHASE] + i] = 0
        set_seat(obs, r, off[F_DEALER], dealer[r], 1)
        t = trick_no[r]
        if t < TRICKS_PER_HAND:  # a trick cut short by a folded Put: its leader is hidden
            for s in range(SEATS):
                set_both(obs, r, off[F_TRICK_LEADER] + t * SEATS + s, 0)
    else:  # P2: the deal passes; the current-hand part waits for ``deal``
        dealer[r] = 1 - dealer[r]
        for q in range(SEATS):
            for i in range(off[F_SCORES]):
                obs[r, q, i] = 0
            if recall:  # no events yet (a finished match keeps its last hand in both blocks)
                for i in range(off[F_LAST_RECALL_SEAT] - off[F_RECALL_SEAT]):
                    obs[r, q, off[F_RECALL_SEAT] + i] = 0
        events[r] = 0
    return finished


@njit(cache=True)
def step(T, R, off, rows, actions, rewards, over, ended):
    """Each row's (legal) action for its seat to act; ``ended`` gets ENDED_BY_FOLD or
    ENDED_BY_PLAY where the hand ended (the match went on: deal it with ``deal``, or not:
    ``over``)."""
    T = borrowed(T)  # no reference counts in the loop (batched_native)
    counts, phase, current, leader, trick_no = T.counts, T.phase, T.current, T.leader, T.trick_no
    on_table, played, trick_win, tricks_won = T.on_table, T.played, T.trick_win, T.tricks_won
    put_caller, put_seen, put_folded = T.put_caller, T.put_seen, T.put_folded
    scores, events, obs = T.scores, T.events, T.obs
    recall = R.recall_width > 0
    for k in range(rows.size):
        r, a = rows[k], actions[k]
        p = current[r]
        if recall:  # every action of a heads-up hand is an event the table sees (P3/P4)
            record_event(obs, off, R, events, r, p, a)
        if a == PUT:  # P4: the opponent answers at once
            put_caller[r] = p
            phase[r] = PHASE_ANSWER
            current[r] = 1 - p
            set_seat(obs, r, off[F_PUT_CALLER], p, 1)
            set_both(obs, r, off[F_PHASE] + PHASE_PLAY, 0)
            set_both(obs, r, off[F_PHASE] + PHASE_ANSWER, 1)
        elif a == SEE:  # the caller now plays the card the Put came before
            put_seen[r] = True
            phase[r] = PHASE_PLAY
            current[r] = put_caller[r]
            set_both(obs, r, off[F_PUT_SEEN], 1)
            set_both(obs, r, off[F_PHASE] + PHASE_ANSWER, 0)
            set_both(obs, r, off[F_PHASE] + PHASE_PLAY, 1)
        elif a == FOLD:  # P4: a folded Put scores 1 for the caller and ends the hand
            put_folded[r, p] = True
            set_seat(obs, r, off[F_PUT_FOLDED], p, 1)
            over[k] = end_hand(T, R, off, r, put_caller[r], 1, rewards, k)
            ended[k] = ENDED_BY_FOLD
        elif play(
            counts,
            current,
            leader,
            trick_no,
            on_table,
            played,
            trick_win,
            tricks_won,
            obs,
            off,
            r,
            p,
            a,
        ):
            unit, points = score_played_out(R, tricks_won[r], put_seen[r], put_caller[r], scores[r])
            over[k] = end_hand(T, R, off, r, unit, points, rewards, k)
            ended[k] = ENDED_BY_PLAY


# --------------------------------------------------------------------------- deals
@njit(cache=True)
def fisher_yates_top(picks, deck_size):
    """Each row's first ``picks.shape[1]`` cards of a Fisher-Yates shuffle of ``deck_size``
    cards in order, where step ``i`` swaps position ``i`` with ``picks[row, i]`` (uniform in
    ``i..deck_size-1``): the top of a uniformly shuffled deck, top first."""
    k, dealt = picks.shape
    cards = np.empty((k, dealt), np.int64)
    deck = np.empty(deck_size, np.int64)
    for t in range(k):
        for c in range(deck_size):
            deck[c] = c
        for i in range(dealt):
            j = picks[t, i]
            deck[i], deck[j] = deck[j], deck[i]
            cards[t, i] = deck[i]
    return cards


@njit(cache=True)
def deal(T, off, put_rank, rows, cards, fresh):
    """P2: a new hand on each row, three cards each one at a time from the dealer's left, who
    leads (P3); its kept entries (the current-hand part is zero: ``fresh`` rows, new matches,
    are cleared whole first)."""
    T = borrowed(T)  # no reference counts in the loop (batched_native)
    counts, phase, current, leader, dealer = T.counts, T.phase, T.current, T.leader, T.dealer
    trick_no, on_table, played, trick_win = T.trick_no, T.on_table, T.played, T.trick_win
    tricks_won, put_caller, put_seen, put_folded = (
        T.tricks_won,
        T.put_caller,
        T.put_seen,
        T.put_folded,
    )
    obs, events = T.obs, T.events
    size = obs.shape[2]
    for k in range(rows.size):
        r = rows[k]
        first = 1 - dealer[r]
        events[r] = 0
        for q in range(SEATS):
            for i in range(NUM_RANKS):
                counts[r, q, i] = 0
        for i in range(HAND_CARDS):
            counts[r, (first + i) % SEATS, put_rank[cards[k, i]]] += 1
        phase[r] = PHASE_PLAY
        current[r] = first
        leader[r] = first
        trick_no[r] = 0
        on_table[r] = 0
        for t in range(TRICKS_PER_HAND):
            trick_win[r, t] = -1
            for q in range(SEATS):
                played[r, t, q] = -1
        put_caller[r] = -1
        put_seen[r] = False
        for q in range(SEATS):
            tricks_won[r, q] = 0
            put_folded[r, q] = False
            if fresh:
                for i in range(size):
                    obs[r, q, i] = 0
            for i in range(NUM_RANKS):
                obs[r, q, off[F_HAND] + i] = counts[r, q, i]
        set_seat(obs, r, off[F_TRICK_LEADER], first, 1)
        set_both(obs, r, off[F_CURRENT_TRICK], 1)
        set_both(obs, r, off[F_PHASE] + PHASE_PLAY, 1)
        set_seat(obs, r, off[F_DEALER], dealer[r], 1)


# --------------------------------------------------------------------- observation
@njit(cache=True)
def observe(T, R, off, rows, seats, out):
    """Each row's kept view for its seat as float32, with the fields kept as state: the seat
    to act, the scores (own first) and the last hand's points."""
    T = borrowed(T)  # no reference counts in the loop (batched_native)
    size = out.shape[1]
    current, scores, last_unit, last_points = T.current, T.scores, T.last_unit, T.last_points
    obs = T.obs
    inv = R.inv
    for k in range(rows.size):
        r, q = rows[k], seats[k]
        for c in range(size):
            out[k, c] = obs[r, q, c]
        acting = current[r]
        if acting >= 0:
            out[k, off[F_ACTING] + (acting ^ q)] = 1.0
        out[k, off[F_SCORES]] = np.float32(scores[r, q] * inv)
        out[k, off[F_SCORES] + 1] = np.float32(scores[r, 1 - q] * inv)
        unit = last_unit[r]
        if unit >= 0:
            out[k, off[F_LAST_POINTS] + (unit ^ q)] = np.float32(last_points[r] * inv)


# The kernels BatchedPut calls from Python (the helpers are inlined into them).
ENTRY_POINTS = (masks, first_illegal, step, fisher_yates_top, deal, observe)


stamp_source_into_caches(globals(), rules)  # a change to rules.py recompiles the kernels
stamp_source_into_caches(globals(), batched_native)  # ... as one to the shared intrinsics


def cached() -> bool:
    """Whether every entry point is in Numba's disk cache (``kernels_cached``): if not, the
    first use compiles."""
    return kernels_cached(ENTRY_POINTS)
