"""N heads-up Put matches held as numpy arrays and stepped together (rules P1-P6).

``BatchedPut`` is the same game as ``PutGame`` with two players, one match per table (row):
deal, legal masks, ``step``, observations bit-equal to ``PutObserver``'s, rewards as put_v0's
and ``reset`` of finished tables. ``PutGame`` stays the reference; ``tests/test_put_batched.py``
plays both move for move. Python loops run over the few fixed positions (3 tricks, 2 seats,
13 ranks), never over tables.

Differences from ``PutGame`` that do not change the game:

- The first dealer is drawn uniformly instead of by a cut: with two players the P2 cut gives
  each seat the deal with probability 1/2, so the distribution is the same; the random
  streams are not (the same seed deals other cards than put_v0).
- No hand histories, no card identities: play is by rank (P1), which is all an observation
  shows.

Supported options: ``num_players=2`` and every other ``PutConfig`` field (``target_points``,
``seen_put_points`` including ``"game"``, ``put_draw_to_opponent``, ``reward``). Anything
else is a one-line ``ValueError`` naming the option.
"""

from __future__ import annotations

import numpy as np

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
)

_PUT_RANK = np.array(PUT_RANK, dtype=np.int64)
_TIED = 2  # trick_win value of a tied trick (P3); -1 = not finished
_SEATS = 2
# ids compared against to build one-hot fields
_SEAT_IDS = np.arange(_SEATS)
_RANK_IDS = np.arange(NUM_RANKS)
_TRICK_IDS = np.arange(TRICKS_PER_HAND)
_PHASE_IDS = np.arange(3)


def _offsets(num_players: int) -> dict[str, int]:
    off, pos = {}, 0
    for name, shape in observation_layout(num_players):
        off[name] = pos
        pos += int(np.prod(shape))
    off["size"] = pos
    return off


class BatchedPut:
    """``num_tables`` heads-up Put matches; every array's first axis is the table."""

    def __init__(self, num_tables: int, config: PutConfig | None = None, seed=None) -> None:
        config = config if config is not None else PutConfig()
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
        self.lead = np.full((n, TRICKS_PER_HAND), -1, np.int64)
        self.played = np.full((n, TRICKS_PER_HAND, _SEATS), -1, np.int64)  # put rank or -1
        self.trick_win = np.full((n, TRICKS_PER_HAND), -1, np.int64)  # seat, _TIED or -1
        self.tricks_won = np.zeros((n, _SEATS), np.int64)
        self.put_caller = np.full(n, -1, np.int64)
        self.put_seen = np.zeros(n, bool)
        self.put_folded = np.zeros((n, _SEATS), bool)
        self.scores = np.zeros((n, _SEATS), np.int64)
        self.winner = np.full(n, -1, np.int64)
        # The last finished hand (the observation's last_* block).
        self.has_last = np.zeros(n, bool)
        self.last_played = np.full((n, TRICKS_PER_HAND, _SEATS), -1, np.int64)
        self.last_win = np.full((n, TRICKS_PER_HAND), -1, np.int64)
        self.last_caller = np.full(n, -1, np.int64)
        self.last_seen = np.zeros(n, bool)
        self.last_folded = np.zeros((n, _SEATS), bool)
        self.last_unit = np.full(n, -1, np.int64)
        self.last_points = np.zeros(n, np.int64)
        self.hands_played = np.zeros(n, np.int64)  # hands finished, per table, since reset

    # ------------------------------------------------------------------ deals
    def _draw_dealers(self, rows: np.ndarray) -> np.ndarray:
        """The first dealer of new matches (uniform: the P2 cut's distribution heads-up)."""
        return self.rng.integers(_SEATS, size=rows.size)

    def _draw_deals(self, rows: np.ndarray) -> np.ndarray:
        """The 6 dealt cards of each new hand, in deal order (P2: a fresh shuffle per hand)."""
        dealt = CARDS_PER_HAND * _SEATS
        keys = self.rng.random((rows.size, NUM_CARDS))
        cards = np.argpartition(keys, dealt, axis=1)[:, :dealt]
        # the smallest keys in key order: the top of a uniformly shuffled deck
        order = np.argsort(np.take_along_axis(keys, cards, axis=1), axis=1)
        return np.take_along_axis(cards, order, axis=1)

    def reset(self, rows: np.ndarray | None = None) -> None:
        """Start new matches on ``rows`` (default: every table)."""
        rows = np.arange(self.n) if rows is None else np.asarray(rows, np.int64)
        if rows.size == 0:
            return
        self.scores[rows] = 0
        self.winner[rows] = -1
        self.has_last[rows] = False
        self.hands_played[rows] = 0
        self.dealer[rows] = self._draw_dealers(rows)
        self._start_hands(rows)

    def _start_hands(self, rows: np.ndarray) -> None:
        """P2: three cards each, one at a time from the dealer's left, who opens (P3)."""
        cards = self._draw_deals(rows)
        first = 1 - self.dealer[rows]
        ranks = _PUT_RANK[cards]  # (k, 6) in deal order
        counts = np.zeros((rows.size, _SEATS, NUM_RANKS), np.int8)
        k = np.arange(rows.size)
        for i in range(CARDS_PER_HAND * _SEATS):
            seat = (first + i) % _SEATS
            counts[k, seat, ranks[:, i]] += 1  # one card per table: no repeated index
        self.counts[rows] = counts
        self.phase[rows] = PHASE_PLAY
        self.current[rows] = first
        self.leader[rows] = first
        self.trick_no[rows] = 0
        self.on_table[rows] = 0
        self.lead[rows] = -1
        self.lead[rows, 0] = first
        self.played[rows] = -1
        self.trick_win[rows] = -1
        self.tricks_won[rows] = 0
        self.put_caller[rows] = -1
        self.put_seen[rows] = False
        self.put_folded[rows] = False

    # ------------------------------------------------------------------ masks
    def masks(self, rows: np.ndarray | None = None) -> np.ndarray:
        """int8 legal-action masks of the seat to act (all zero on finished tables)."""
        rows = np.arange(self.n) if rows is None else np.asarray(rows, np.int64)
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

    # ------------------------------------------------------------------- step
    def step(self, rows: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Apply each row's action for its seat to act. Returns ``(rewards, over)``: the
        rewards (k, 2) per seat of this step, as put_v0 pays them, and whether the match
        ended. An illegal action raises ``ValueError`` before anything changes."""
        rows = np.asarray(rows, np.int64)
        actions = np.asarray(actions, np.int64)
        legal = self.masks(rows)
        ok = (actions >= 0) & (actions < self.num_actions)
        ok[ok] = legal[np.flatnonzero(ok), actions[ok]] == 1
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            raise ValueError(
                f"illegal action {int(actions[bad])} on table {int(rows[bad])}; legal: "
                f"{np.flatnonzero(legal[bad]).tolist()}"
            )
        rewards = np.zeros((rows.size, _SEATS))
        over = np.zeros(rows.size, bool)
        p = self.current[rows]
        is_play = actions < NUM_RANKS
        i = np.flatnonzero(actions == PUT)
        if i.size:  # P4: the opponent answers at once
            r = rows[i]
            self.put_caller[r] = p[i]
            self.phase[r] = PHASE_ANSWER
            self.current[r] = 1 - p[i]
        i = np.flatnonzero(actions == SEE)
        if i.size:  # the caller now plays the card the Put came before
            r = rows[i]
            self.put_seen[r] = True
            self.phase[r] = PHASE_PLAY
            self.current[r] = self.put_caller[r]
        ended = []  # (indices into rows, unit, points)
        i = np.flatnonzero(actions == FOLD)
        if i.size:  # P4: a folded Put scores 1 for the caller and ends the hand
            r = rows[i]
            self.put_folded[r, p[i]] = True
            ended.append((i, self.put_caller[r], np.ones(i.size, np.int64)))
        i = np.flatnonzero(is_play)
        if i.size:
            ended.extend(self._play(rows, i, p[i], actions[i]))
        for i, unit, points in ended:
            self._end_hands(rows, i, unit, points, rewards, over)
        return rewards, over

    def _play(self, rows, i, p, rank):
        r = rows[i]
        self.counts[r, p, rank] -= 1
        t = self.trick_no[r]
        self.played[r, t, p] = rank
        self.on_table[r] += 1
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
        self.tricks_won[r[won], win[won]] += 1
        self.leader[r[won]] = win[won]
        self.on_table[r] = 0
        self.trick_no[r] = t + 1
        going = t + 1 < TRICKS_PER_HAND
        g = r[going]
        self.current[g] = self.leader[g]
        self.lead[g, t[going] + 1] = self.leader[g]
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
        self.has_last[r] = True
        self.last_played[r] = self.played[r]
        self.last_win[r] = self.trick_win[r]
        self.last_caller[r] = self.put_caller[r]
        self.last_seen[r] = self.put_seen[r]
        self.last_folded[r] = self.put_folded[r]
        self.last_unit[r] = unit
        self.last_points[r] = np.where(scored, points, 0)
        self.hands_played[r] += 1
        top = np.where(scored, self.scores[r, np.maximum(unit, 0)], 0)
        finished = scored & (top >= self.target)  # P6: the first to the target wins
        if self._points_reward:
            sign = np.where(np.arange(_SEATS)[None, :] == unit[:, None], 1.0, -1.0)
            rewards[i] = np.where(scored[:, None], sign * points[:, None], 0.0)
        else:
            f = i[finished]
            rewards[f] = np.where(np.arange(_SEATS)[None, :] == unit[finished][:, None], 1.0, -1.0)
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
        """Each row's observation for ``seats`` (absolute), as ``PutObserver.set_from``.

        Every field is written whole, as dense one-hot comparisons over the rows (no zero fill,
        no scattered writes). Heads-up, a seat id seen from seat p is ``id ^ p`` and a pair of
        per-seat values is swapped for p = 1.
        """
        rows = np.asarray(rows, np.int64)
        seats = np.asarray(seats, np.int64)
        k = rows.size
        if out is None:
            out = np.empty((k, self.obs_size), np.float32)
        o = self.off
        p = seats[:, None]
        flip = (seats == 1)[:, None]

        def put(name: str, values: np.ndarray) -> None:
            start = o[name]
            out[:, start : start + values.shape[1]] = values

        def rel(pairs: np.ndarray) -> np.ndarray:  # (k, ..., 2) absolute -> relative seats
            f = flip.reshape((k,) + (1,) * (pairs.ndim - 1))
            return np.where(f, pairs[..., ::-1], pairs)

        def seat_hot(ids: np.ndarray) -> np.ndarray:  # seat ids (k, m) -> (k, m * 2) one-hot
            return ((ids ^ p)[..., None] == _SEAT_IDS).reshape(k, -1)

        put("hand", self.counts[rows, seats])
        phase = self.phase[rows]
        live = (phase != PHASE_OVER)[:, None]
        trick_no = self.trick_no[rows][:, None]
        played = rel(self.played[rows]).reshape(k, -1)
        put("played", (played[..., None] == _RANK_IDS).reshape(k, -1))
        win = self.trick_win[rows]
        finished = win >= 0
        shown = finished | (live & (trick_no == _TRICK_IDS))
        lead = np.where(shown, self.lead[rows], -1)
        put("trick_leader", seat_hot(lead))
        put("trick_winner", seat_hot(np.where(win == _TIED, -1, win)))
        put("trick_tied", win == _TIED)
        put("tricks_won", rel(self.tricks_won[rows]))
        put("current_trick", live & (trick_no == _TRICK_IDS))
        put("acting", seat_hot(np.where(live, self.current[rows][:, None], -1)))
        put("phase", live & (phase[:, None] == _PHASE_IDS))
        caller = self.put_caller[rows][:, None]
        put("put_caller", seat_hot(caller))
        put("put_seen", (caller >= 0) & self.put_seen[rows][:, None])
        put("put_folded", rel(self.put_folded[rows]))
        put("dealer", seat_hot(self.dealer[rows][:, None]))
        # the last finished hand; all zero before the first one ends
        has = self.has_last[rows][:, None]
        put("last_hand", has)
        last = np.where(has, rel(self.last_played[rows]).reshape(k, -1), -1)
        put("last_played", (last[..., None] == _RANK_IDS).reshape(k, -1))
        win = np.where(has, self.last_win[rows], -1)
        put("last_trick_winner", seat_hot(np.where(win == _TIED, -1, win)))
        put("last_trick_tied", win == _TIED)
        caller = np.where(has, self.last_caller[rows][:, None], -1)
        put("last_put_caller", seat_hot(caller))
        put("last_put_seen", (caller >= 0) & self.last_seen[rows][:, None])
        put("last_put_folded", has & rel(self.last_folded[rows]))
        unit = np.where(has, self.last_unit[rows][:, None], -1)
        put("scores", (rel(self.scores[rows]) * self._inv_target).astype(np.float32))
        points = (self.last_points[rows] * self._inv_target).astype(np.float32)[:, None]
        put("last_points", np.where(seat_hot(unit), points, np.float32(0.0)))
        return out
