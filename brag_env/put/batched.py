"""N heads-up Put matches held as numpy arrays and stepped together (rules P1-P6).

``BatchedPut`` is the same game as ``PutGame`` with two players, one match per table (row):
deal, legal masks, ``step``, observations bit-equal to ``PutObserver``'s, rewards as put_v0's
and ``reset`` of finished tables. ``PutGame`` stays the reference; ``tests/test_put_batched.py``
plays both move for move. Python loops run over the few fixed positions (3 tricks, 2 seats,
6 dealt cards), never over tables.

Observations are kept, not rebuilt: ``_obs`` holds both seats' vectors of every table, as
uint8 (counts and flags; ``observe`` adds the two float fields, scores and last points, from
the state), and each change of state writes only the entries it changes, as flat indices
gathered in one ``_Writes`` and stored at once (a card played, a trick won, a Put called or
seen). When a hand ends, its entries are already what the next observation's last-hand block
must show, so three block copies move them there before the new deal is written. ``acting``,
which changes at every move, is written by ``observe`` into its copy. ``observe`` is
otherwise a gather.

Differences from ``PutGame`` that do not change the game:

- The first dealer is drawn uniformly instead of by a cut: with two players the P2 cut gives
  each seat the deal with probability 1/2, so the distribution is the same; the random
  streams are not (the same seed deals other cards than put_v0).
- No hand histories, no card identities: play is by rank (P1), which is all an observation
  shows. The deal is the first six steps of a Fisher-Yates shuffle (uniform, as P2 asks).

Supported options: ``num_players=2`` and every other ``PutConfig`` field (``target_points``,
``seen_put_points`` including ``"game"``, ``put_draw_to_opponent``, ``reward``), without
``perfect_recall``. Anything
else is a one-line ``ValueError`` naming the option.
"""

from __future__ import annotations

import numpy as np

from brag_env.batched_input import checked_actions, checked_rows, checked_seats
from brag_env.cards import NUM_CARDS
from brag_env.put.game import PHASE_ANSWER, PHASE_OVER, PHASE_PLAY
from brag_env.put.observation import observation_layout
from brag_env.put.rules import (
    CARDS_PER_HAND,
    FOLD,
    NUM_RANKS,
    PUT,
    PUT_RANK,
    SEE,
    TRICKS_PER_HAND,
    PutConfig,
    loss_per_seat,
)

_PUT_RANK = np.array(PUT_RANK, dtype=np.int64)
_TIED = 2  # trick_win value of a tied trick (P3); -1 = not finished
_SEATS = 2
# ids compared against to build one-hot fields
_SEAT_IDS = np.arange(_SEATS)
_TRICK_IDS = np.arange(TRICKS_PER_HAND)
_DEAL_ORDER = np.arange(CARDS_PER_HAND * _SEATS)
_DECK = np.arange(NUM_CARDS)


def _offsets(num_players: int) -> dict[str, int]:
    off, pos = {}, 0
    for name, shape in observation_layout(num_players):
        off[name] = pos
        pos += int(np.prod(shape))
    off["size"] = pos
    return off


def check_batched_put(config: PutConfig) -> None:
    """Raise the one-line ``ValueError`` for an option ``BatchedPut`` does not cover."""
    if config.num_players != _SEATS:
        raise ValueError(
            f"num_players={config.num_players} is not supported by the batched Put engine "
            "(heads-up only); use put_v1"
        )
    if config.deck_ranks != NUM_RANKS:
        raise ValueError(
            f"deck_ranks={config.deck_ranks} is not supported by the batched Put engine "
            "(full pack only); use put_v1"
        )
    if config.perfect_recall:
        raise ValueError(
            "perfect_recall is not supported by the batched Put engine (the default "
            "observation only); use put_v1"
        )


class BatchedPut:
    """``num_tables`` heads-up Put matches; every array's first axis is the table."""

    def __init__(self, num_tables: int, config: PutConfig | None = None, seed=None) -> None:
        config = config if config is not None else PutConfig()
        check_batched_put(config)
        if not isinstance(num_tables, int) or num_tables < 1:
            raise ValueError(f"num_tables must be an integer >= 1, got {num_tables!r}")
        self.config = config
        self.num_actions = config.num_actions  # 29 heads-up (no pass_none)
        self.n = num_tables
        self.target = config.target_points
        self._inv_target = 1.0 / config.target_points
        self._points_reward = config.reward == "points"
        self.rng = np.random.default_rng(seed)
        self.off = _offsets(_SEATS)
        self.obs_size = self.off["size"]
        n = num_tables
        self.counts = np.zeros((n, _SEATS, NUM_RANKS), np.int8)
        self.phase = np.full(n, PHASE_OVER, np.int8)
        self.current = np.full(n, -1, np.int64)
        self.leader = np.zeros(n, np.int64)
        self.dealer = np.zeros(n, np.int64)
        self.trick_no = np.zeros(n, np.int64)
        self.on_table = np.zeros(n, np.int64)  # cards in the unfinished trick
        self.played = np.full((n, TRICKS_PER_HAND, _SEATS), -1, np.int64)  # put rank or -1
        self.trick_win = np.full((n, TRICKS_PER_HAND), -1, np.int64)  # seat, _TIED or -1
        self.tricks_won = np.zeros((n, _SEATS), np.int64)
        self.put_caller = np.full(n, -1, np.int64)
        self.put_seen = np.zeros(n, bool)
        self.put_folded = np.zeros((n, _SEATS), bool)
        self.scores = np.zeros((n, _SEATS), np.int64)
        self.winner = np.full(n, -1, np.int64)
        # The last finished hand's result (read by the batched evaluator's statistics).
        self.last_caller = np.full(n, -1, np.int64)
        self.last_folded = np.zeros((n, _SEATS), bool)
        self.last_unit = np.full(n, -1, np.int64)
        self.last_points = np.zeros(n, np.int64)
        self.hands_played = np.zeros(n, np.int64)  # hands finished, per table, since reset
        # Both seats' observations of every table, kept up to date by every change of state
        # (uint8: every kept entry is a count or a flag; the two float fields, scores and
        # last_points, are written by observe from the state; a 4x smaller buffer stays in cache)
        self._obs = np.zeros((n, _SEATS, self.obs_size), np.uint8)
        dealer = self.off["dealer"]
        self._obs[:, 0, dealer] = self._obs[:, 1, dealer + 1] = 1  # dealer 0, no match yet
        # (from, to, size): blocks of the finished hand copied into the last-hand block
        off, layout = self.off, dict(observation_layout(_SEATS))
        self._last_copies = [
            (off[a], off["last_" + a], sum(int(np.prod(layout[f])) for f in fields))
            for a, fields in (
                ("played", ["played"]),
                ("trick_winner", ["trick_winner", "trick_tied"]),
                ("put_caller", ["put_caller", "put_seen", "put_folded"]),
            )
        ]

    # ------------------------------------------------------------------ deals
    def _draw_dealers(self, rows: np.ndarray) -> np.ndarray:
        """The first dealer of new matches (uniform: the P2 cut's distribution heads-up)."""
        return self.rng.integers(_SEATS, size=rows.size)

    def _draw_deals(self, rows: np.ndarray) -> np.ndarray:
        """The 6 dealt cards of each new hand, in deal order (P2: a fresh shuffle per hand):
        the first 6 steps of a Fisher-Yates shuffle, all tables at once."""
        k = rows.size
        deck = np.tile(_DECK, (k, 1))
        flat = deck.reshape(-1)
        start = np.arange(k) * NUM_CARDS
        picks = self.rng.integers(_DEAL_ORDER, NUM_CARDS, size=(k, _DEAL_ORDER.size))
        for i in _DEAL_ORDER.tolist():  # swap a uniform card of positions i.. into position i
            here, there = start + i, start + picks[:, i]
            card = flat[there]
            flat[there] = flat[here]
            flat[here] = card
        return deck[:, : _DEAL_ORDER.size]

    def reset(self, rows: np.ndarray | None = None) -> None:
        """Start new matches on ``rows`` (default: every table)."""
        rows = np.arange(self.n) if rows is None else checked_rows(rows, self.n)
        if rows.size == 0:
            return
        self.scores[rows] = 0
        self.last_unit[rows] = -1  # no hand finished yet
        self.winner[rows] = -1
        self.hands_played[rows] = 0
        self.dealer[rows] = self._draw_dealers(rows)
        self._start_hands(rows)
        self._new_matches(rows)

    def _start_hands(self, rows: np.ndarray) -> None:
        """P2: three cards each, one at a time from the dealer's left, who opens (P3)."""
        cards = self._draw_deals(rows)
        first = 1 - self.dealer[rows]
        k = rows.size
        seat = (first[:, None] + _DEAL_ORDER) % _SEATS  # who gets the i-th card dealt
        at = (np.arange(k)[:, None] * _SEATS + seat) * NUM_RANKS + _PUT_RANK[cards]
        counts = np.bincount(at.ravel(), minlength=k * _SEATS * NUM_RANKS)
        self.counts[rows] = counts.reshape(k, _SEATS, NUM_RANKS)
        self.phase[rows] = PHASE_PLAY
        self.current[rows] = first
        self.leader[rows] = first
        self.trick_no[rows] = 0
        self.on_table[rows] = 0
        self.played[rows] = -1
        self.trick_win[rows] = -1
        self.tricks_won[rows] = 0
        self.put_caller[rows] = -1
        self.put_seen[rows] = False
        self.put_folded[rows] = False

    # ------------------------------------------------------------------ masks
    def masks(self, rows: np.ndarray | None = None) -> np.ndarray:
        """int8 legal-action masks of the seat to act (all zero on finished tables)."""
        rows = np.arange(self.n) if rows is None else checked_rows(rows, self.n)
        out = np.zeros((rows.size, self.num_actions), np.int8)
        phase = self.phase[rows]
        play = phase == PHASE_PLAY
        k = np.flatnonzero(play)
        out[k, :NUM_RANKS] = self.counts[rows[k], self.current[rows[k]]] > 0
        out[k, PUT] = self.put_caller[rows[k]] < 0
        answer = phase == PHASE_ANSWER
        out[answer, SEE] = 1
        out[answer, FOLD] = 1
        return out

    def _check_legal(self, rows: np.ndarray, actions: np.ndarray, phase, p) -> None:
        """``ValueError`` naming the first illegal action (the mask is built only then)."""
        play = (actions >= 0) & (actions < NUM_RANKS)
        held = self.counts[rows, p, np.where(play, actions, 0)] > 0
        ok = np.where(
            phase == PHASE_PLAY,
            (play & held) | ((actions == PUT) & (self.put_caller[rows] < 0)),
            (phase == PHASE_ANSWER) & ((actions == SEE) | (actions == FOLD)),
        )
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            legal = self.masks(rows[bad : bad + 1])[0]
            raise ValueError(
                f"illegal action {int(actions[bad])} on table {int(rows[bad])}; legal: "
                f"{np.flatnonzero(legal).tolist()}"
            )

    # ------------------------------------------------------------------- step
    def step(self, rows: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Apply each row's action for its seat to act. Returns ``(rewards, over)``: the
        rewards (k, 2) per seat of this step, as put_v0 pays them, and whether the match
        ended. An illegal action raises ``ValueError`` before anything changes.

        The kept observations follow move by move (``_Writes``); the tables whose hand ended
        are rewritten whole once the next hand is dealt."""
        rows = checked_rows(rows, self.n)
        actions = checked_actions(actions, rows)
        p = self.current[rows]
        self._check_legal(rows, actions, self.phase[rows], p)
        rewards = np.zeros((rows.size, _SEATS))
        over = np.zeros(rows.size, bool)
        w = _Writes(rows, self.obs_size, self.off)
        i = np.flatnonzero(actions == PUT)
        if i.size:  # P4: the opponent answers at once
            r = rows[i]
            self.put_caller[r] = p[i]
            self.phase[r] = PHASE_ANSWER
            self.current[r] = 1 - p[i]
            w.seat("put_caller", i, p[i])
            w.both("phase", i, PHASE_PLAY, clear=True)
            w.both("phase", i, PHASE_ANSWER)
        i = np.flatnonzero(actions == SEE)
        if i.size:  # the caller now plays the card the Put came before
            r = rows[i]
            self.put_seen[r] = True
            self.phase[r] = PHASE_PLAY
            self.current[r] = self.put_caller[r]
            w.both("put_seen", i)
            w.both("phase", i, PHASE_ANSWER, clear=True)
            w.both("phase", i, PHASE_PLAY)
        ended = []  # (indices into rows, unit, points)
        i = np.flatnonzero(actions == FOLD)
        if i.size:  # P4: a folded Put scores 1 for the caller and ends the hand
            r = rows[i]
            self.put_folded[r, p[i]] = True
            w.seat("put_folded", i, p[i])
            ended.append((i, self.put_caller[r], np.ones(i.size, np.int64)))
        i = np.flatnonzero(actions < NUM_RANKS)
        if i.size:
            ended.extend(self._play(rows, i, p[i], actions[i], w))
        w.flush(self._obs)
        if ended:
            i = np.concatenate([e[0] for e in ended])
            unit = np.concatenate([e[1] for e in ended])
            points = np.concatenate([e[2] for e in ended])
            self._end_hands(rows, i, unit, points, rewards, over)
            self._hands_ended(rows[i])
        return rewards, over

    def _play(self, rows, i, p, rank, w):
        r = rows[i]
        self.counts[r, p, rank] -= 1
        t = self.trick_no[r]
        self.played[r, t, p] = rank
        self.on_table[r] += 1
        w.own_card(i, p, rank, self.counts[r, p, rank])
        w.card("played", i, t, p, rank)
        first = self.on_table[r] < _SEATS
        self.current[r[first]] = 1 - p[first]
        done = ~first
        if not done.any():
            return []
        i, r, t = i[done], r[done], t[done]
        # P3: the lower put rank wins; equal ranks tie and the same player leads again
        a, b = self.played[r, t, 0], self.played[r, t, 1]
        win = np.where(a < b, 0, np.where(b < a, 1, _TIED))
        self.trick_win[r, t] = win
        won = win != _TIED
        rw, ww = r[won], win[won]
        self.tricks_won[rw, ww] += 1
        self.leader[rw] = ww
        w.seat("trick_winner", i[won], ww, t[won] * _SEATS)
        w.value("tricks_won", i[won], ww, self.tricks_won[rw, ww])
        w.both("trick_tied", i[~won], t[~won])
        self.on_table[r] = 0
        self.trick_no[r] = t + 1
        going = t + 1 < TRICKS_PER_HAND
        g = r[going]
        self.current[g] = self.leader[g]
        w.seat("trick_leader", i[going], self.leader[g], (t[going] + 1) * _SEATS)
        w.both("current_trick", i[going], t[going], clear=True)
        w.both("current_trick", i[going], t[going] + 1)
        out = ~going
        if not out.any():
            return []
        return [self._score_played_out(i[out], r[out])]

    def _score_played_out(self, i, r):
        """P5: more tricks scores 1, or ``seen_put_points`` after a seen Put (P4/P6)."""
        won = self.tricks_won[r]
        best = won.max(axis=1)
        unique = (best > 0) & (won[:, 0] != won[:, 1])
        unit = np.where(unique, won.argmax(axis=1), -1)
        seen = self.put_seen[r]
        spp = self.config.seen_put_points
        if spp == "game":
            seen_points = self.target - self.scores[r, np.maximum(unit, 0)]
        else:
            seen_points = np.full(r.size, spp, np.int64)
        points = np.where(unique, np.where(seen, seen_points, 1), 0)
        if self.config.put_draw_to_opponent:  # P5 option: a drawn seen Put pays the opponent 1
            draw = ~unique & seen
            unit = np.where(draw, 1 - self.put_caller[r], unit)
            points = np.where(draw, 1, points)
        return i, unit, points

    def _end_hands(self, rows, i, unit, points, rewards, over) -> None:
        r = rows[i]
        scored = unit >= 0
        self.scores[r[scored], unit[scored]] += points[scored]
        self.last_caller[r] = self.put_caller[r]
        self.last_folded[r] = self.put_folded[r]
        self.last_unit[r] = unit
        self.last_points[r] = np.where(scored, points, 0)
        self.hands_played[r] += 1
        top = np.where(scored, self.scores[r, np.maximum(unit, 0)], 0)
        finished = scored & (top >= self.target)  # P6: the first to the target wins
        loss = loss_per_seat(_SEATS, 1.0)  # P5: heads-up, the loser loses what the scorer wins
        if self._points_reward:
            sign = np.where(np.arange(_SEATS)[None, :] == unit[:, None], 1.0, -loss)
            rewards[i] = np.where(scored[:, None], sign * points[:, None], 0.0)
        else:
            f = i[finished]
            rewards[f] = np.where(np.arange(_SEATS)[None, :] == unit[finished][:, None], 1.0, -loss)
        over[i[finished]] = True
        done = r[finished]
        self.winner[done] = unit[finished]
        self.phase[done] = PHASE_OVER
        self.current[done] = -1
        more = r[~finished]
        if more.size:
            self.dealer[more] = 1 - self.dealer[more]  # P2: the deal passes to the left
            self._start_hands(more)

    # ------------------------------------------------------------ observation
    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray | None = None):
        """Each row's observation for ``seats`` (absolute), as ``PutObserver.set_from``: a
        copy of the kept vectors (``_obs``), which every change of state updates, with the
        ``acting`` field, which changes at every move, written into the copy."""
        rows = checked_rows(rows, self.n)
        seats = checked_seats(seats, rows, _SEATS)  # e.g. -1: a finished match's seat to act
        index = rows * _SEATS + seats
        flat = self._obs.reshape(-1, self.obs_size)
        if out is None:
            out = np.empty((index.size, self.obs_size), np.float32)
        out[...] = np.take(flat, index, axis=0, mode="clip")  # in range: checked above
        o, size = self.off, self.obs_size
        current = self.current[rows]
        live = np.flatnonzero(current >= 0)
        flat_out = out.reshape(-1)
        flat_out[live * size + (o["acting"] + (current[live] ^ seats[live]))] = 1.0
        scores = self.scores[rows]
        out[:, o["scores"]] = self._points_of(scores[np.arange(rows.size), seats])
        out[:, o["scores"] + 1] = self._points_of(scores[np.arange(rows.size), 1 - seats])
        unit = self.last_unit[rows]
        j = np.flatnonzero(unit >= 0)
        points = self._points_of(self.last_points[rows[j]])
        flat_out[j * size + (o["last_points"] + (unit[j] ^ seats[j]))] = points
        return out

    def _new_matches(self, rows: np.ndarray) -> None:
        """The kept observations of matches just dealt: hand, first leader, dealer."""
        o = self.off
        block = np.zeros((rows.size, _SEATS, self.obs_size), np.uint8)
        every = np.arange(rows.size)
        w = _Writes(every, self.obs_size, o)
        self._deal_into(block, w, every, rows)
        w.flush(block)
        self._obs[rows] = block

    def _deal_into(self, block, w, j, rows) -> None:
        """A new hand's current-hand entries of ``block[j]`` (tables ``rows``), whose current-hand
        part is all zero: the cards held, the first trick's leader, the trick and phase."""
        o = self.off
        block[j, :, o["hand"] : o["hand"] + NUM_RANKS] = self.counts[rows]
        w.seat("trick_leader", j, self.current[rows])
        w.both("current_trick", j)
        w.both("phase", j, PHASE_PLAY)
        w.seat("dealer", j, self.dealer[rows])

    def _hands_ended(self, rows: np.ndarray) -> None:
        """Kept observations of ``rows`` whose hand just ended, after the next deal (or the match
        end). The finished hand's entries (its last move included) are already written, and
        the last-hand block has the same layout: ``played`` -> ``last_played``, the trick
        results, the Put. Worked on a copy of the rows, then written back whole."""
        o = self.off
        block = self._obs[rows]
        for src, dst, size in self._last_copies:
            block[:, :, dst : dst + size] = block[:, :, src : src + size]
        block[:, :, o["last_hand"]] = 1
        block[:, :, o["dealer"] : o["dealer"] + _SEATS] = 0
        w = _Writes(np.arange(rows.size), self.obs_size, o)
        over = self.phase[rows] == PHASE_OVER
        j = np.flatnonzero(over)  # the match is over: no trick in play, no phase
        block[j, :, o["current_trick"] : o["current_trick"] + TRICKS_PER_HAND] = 0
        block[j, :, o["phase"] : o["phase"] + 3] = 0
        w.seat("dealer", j, self.dealer[rows[j]])
        t = self.trick_no[rows[j]]
        cut = t < TRICKS_PER_HAND  # a trick cut short by a folded Put: its leader is hidden
        for seat in range(_SEATS):
            w.both("trick_leader", j[cut], t[cut] * _SEATS + seat, clear=True)
        j = np.flatnonzero(~over)  # a new hand
        block[j, :, : o["scores"]] = 0  # the current-hand part: hand .. put_folded
        self._deal_into(block, w, j, rows[j])
        w.flush(block)
        self._obs[rows] = block

    def _points_of(self, points: np.ndarray) -> np.ndarray:
        """Scores and points as the observation holds them: / target_points, in float32."""
        return (points * self._inv_target).astype(np.float32)


class _Writes:
    """The kept observation entries a change of state sets, as flat indices, written at once.

    Positions ``i`` index ``rows``; seat ids are absolute and written into both seats' views:
    heads-up, seat ``s`` seen from seat ``q`` is ``s ^ q``. ``step`` offsets into a block
    (the trick's slot). Every index is a 1-d array (numpy broadcasting over a trailing axis
    of 2 costs over ten times as much)."""

    def __init__(self, rows: np.ndarray, size: int, off: dict[str, int]) -> None:
        self.base = rows * (_SEATS * size)  # flat start of each row's seat-0 view
        self.size = size  # seat 1's view follows seat 0's
        self.off = off
        self.zeros: list[np.ndarray] = []  # cleared first, so a flag cleared and set stays set
        self.ones: list[np.ndarray] = []
        self.at: list[np.ndarray] = []
        self.values: list[np.ndarray] = []

    def _start(self, block: str, i: np.ndarray, step) -> np.ndarray:
        return self.base[i] + (self.off[block] + step)

    def both(self, block: str, i: np.ndarray, step=0, clear: bool = False) -> None:
        """A flag set (``clear``: cleared) in both views."""
        start = self._start(block, i, step)
        (self.zeros if clear else self.ones).extend((start, start + self.size))

    def seat(self, block: str, i: np.ndarray, ids: np.ndarray, step=0, clear: bool = False) -> None:
        """A seat id, one-hot relative to each view (``clear``: the entry cleared)."""
        start = self._start(block, i, step)
        mine = start + ids  # seat 1's view: start + size + (1 - ids)
        (self.zeros if clear else self.ones).extend((mine, start + (self.size + 1) - ids))

    def card(self, block: str, i: np.ndarray, t: np.ndarray, s: np.ndarray, rank) -> None:
        """Seat ``s``'s card of rank ``rank`` in trick ``t`` (one-hot, relative seat)."""
        start = self._start(block, i, t * (_SEATS * NUM_RANKS) + rank)
        s13 = s * NUM_RANKS
        self.ones.extend((start + s13, start + (self.size + NUM_RANKS) - s13))

    def value(self, block: str, i: np.ndarray, ids, values: np.ndarray) -> None:
        """Seat ``ids``'s value in both views."""
        start = self._start(block, i, 0)
        self.at.extend((start + ids, start + (self.size + 1) - ids))
        self.values.extend((values, values))

    def own_card(self, i: np.ndarray, seat: np.ndarray, rank, count: np.ndarray) -> None:
        """A hand count, in its holder's view only."""
        self.at.append(self.base[i] + seat * self.size + self.off["hand"] + rank)
        self.values.append(count)

    def flush(self, obs: np.ndarray) -> None:
        flat = obs.reshape(-1)
        if self.zeros:
            flat[np.concatenate(self.zeros)] = 0
        if self.ones:
            flat[np.concatenate(self.ones)] = 1
        if self.at:
            flat[np.concatenate(self.at)] = np.concatenate(self.values)
