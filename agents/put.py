"""Rule-based Put baselines (``put:<style>[:k=v,...]``) and the Put hand-strength measure.

Hand strength. A card's *value* is its place in the Put order counted from the bottom
(4 = 0 ... A = 10, 2 = 11, 3 = 12, P1); a set of cards is rated by the sum of its values, a
simple proxy that rises with the tricks the cards can hope to take (not a count of them: one 3
takes a trick for certain, two middling cards may take none). Its
*percentile* is the fraction of all sets of the same size (52 choose k) with a strictly smaller
sum: ``card_percentile``. During a hand the agents and the evaluator use the *live strength*
``percentile(cards in play) + 0.25 * (tricks won - most tricks won by an opposing side)``,
clipped to [0, 1], where the cards in play are those still held plus the player's card on the
table in the unfinished trick; before the first card it is the dealt hand's percentile.

Card play (greedy, shared by every style but random): leading, play the highest card; following,
play the cheapest card that beats the best card on the table, and if none does (or the partner
already holds the trick, P8), dump the lowest card. Ties are never sought. Passing (P8), hand the
partner the highest card.

Styles (parameters and defaults in ``DEFAULTS``):

- ``random``: random legal play.
- ``greedy``: the card play above; never calls Put and always sees one.
- ``caller``: greedy play; calls Put when its live strength >= ``put_at``, sees a Put when its
  live strength >= ``see_at`` and folds otherwise.
- ``bluffer``: like the caller, and also calls Put with a weaker hand with probability ``bluff``
  (decided once per hand, at its first turn with Put available); sees Puts from the lower
  ``see_at`` (mid hands).
- ``tips``: the Put seed document's strategy tips, with greedy card play. Modelled:

  1. A 3 makes a hand strong, a 3 with a 2 all but unbeatable: holding both (in play) it always
     calls Put at its first chance and always sees; holding a 3 counts as strong.
  2. Put middling hands (live strength >= ``mid_at``) when every opposing side is behind on
     points: the doubled stake should scare them off.
  3. No Put at the first trick without a strong hand (a 3, or strength >= ``strong_at``).
  4. Late in the match a seen Put decides it: it calls with middling hands when winning a seen
     Put would reach ``target_points``, and it never folds a Put whose single point would give
     the caller's side the match (folding loses at once; seeing may not).
  5. Having won trick 1 with a mid-range card (K down to 8, not one of the top three ranks),
     it calls Put before trick 2 with probability ``after_win``, a bluff the others cannot read.

  Otherwise it calls with strong hands (from trick 2 on), and sees a Put when holding a 3 or
  with strength >= ``see_at``. Partners pass their best card (the seed's advice for P8).
  Not modelled: reading the opponents' rhythm (hesitation before a card, a confident lead), as
  the environment has no timing.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, ClassVar

import numpy as np

from agents.base import RandomAgent, StyleAgent, TableInfo, legal_actions
from agents.registry import register
from brag_env.put.observation import observation_layout
from brag_env.put.rules import FOLD, NUM_RANKS, PASS, PLAY, PUT, PUT_RANK, SEE, TRICKS_PER_HAND

TRICK_WEIGHT = 0.25  # live strength credit per trick of lead


def card_value(put_rank: int) -> int:
    """0 for a 4 ... 12 for a 3 (put rank 0 is the 3, the best card, P1)."""
    return NUM_RANKS - 1 - put_rank


def _percentile_tables() -> list[np.ndarray]:
    """``tables[k][s]`` = fraction of k-card sets with a value sum strictly below ``s``."""
    values = np.array([card_value(PUT_RANK[c]) for c in range(52)], dtype=np.int64)
    tables = [np.zeros(1)]
    for k in (1, 2, 3):
        sums = values[np.array(list(combinations(range(52), k)))].sum(axis=1)
        counts = np.bincount(sums, minlength=12 * k + 1)
        below = np.concatenate(([0], np.cumsum(counts)[:-1])) / sums.size
        below.flags.writeable = False
        tables.append(below)
    return tables


_PERCENTILE = _percentile_tables()
_PERCENTILE_LISTS = [t.tolist() for t in _PERCENTILE]
# _PERCENTILE_GRID[k, s]: the same tables padded into one array, for lookups over many tables
_PERCENTILE_GRID = np.zeros((4, 12 * 3 + 1))
for _k in (1, 2, 3):
    _PERCENTILE_GRID[_k, : _PERCENTILE[_k].size] = _PERCENTILE[_k]
_CARD_VALUES = np.array([card_value(r) for r in range(NUM_RANKS)], dtype=np.float64)


def card_percentile(put_ranks: list[int] | tuple[int, ...]) -> float:
    """Percentile (fraction strictly weaker) of a set of 1-3 cards given by put rank."""
    k = len(put_ranks)
    if not 1 <= k <= 3:
        raise ValueError(f"a Put hand holds 1 to 3 cards, got {k}")
    return _PERCENTILE_LISTS[k][sum(NUM_RANKS - 1 - r for r in put_ranks)]


def live_strength(put_ranks: list[int], tricks_ahead: int) -> float:
    """The live strength of the module docstring (0.0 with no cards left)."""
    if not put_ranks:
        return 0.0
    return min(1.0, max(0.0, card_percentile(put_ranks) + TRICK_WEIGHT * tricks_ahead))


class PutView:
    """Reads the fields a Put baseline needs from one observation vector.

    ``load`` converts the vector to a Python list once and reads it by precomputed offsets:
    a handful of numpy calls per field cost more than the whole decision.
    """

    def __init__(self, table: TableInfo) -> None:
        n = self.n = table.num_players
        self.partnerships = n == 4
        offsets: dict[str, tuple[int, tuple[int, ...]]] = {}
        pos = 0
        for name, shape in observation_layout(
            n, table.config is not None and table.config.optional_pass
        ):
            offsets[name] = (pos, shape)
            pos += int(np.prod(shape))
        self._offsets = offsets
        self._won = offsets["tricks_won"][0]
        self._cur = offsets["current_trick"][0]
        self._played = offsets["played"][0]
        self._end = self._cur + TRICKS_PER_HAND  # load reads nothing beyond current_trick
        self._opponents = [s for s in range(1, n) if not (self.partnerships and s == 2)]
        self.opponent_seats = np.array(self._opponents, np.int64)  # the kernels' copy

    def load(self, obs: np.ndarray) -> None:
        vals = obs[: self._end].tolist()
        n = self.n
        self.ranks = ranks = [r for r in range(NUM_RANKS) for _ in range(round(vals[r]))]
        o = self._won
        won = vals[o : o + n]
        if self.partnerships:
            ahead = won[0] + won[2] - (won[1] + won[3])
        else:
            ahead = won[0] - max(won[s] for s in self._opponents)
        self.tricks_ahead = round(ahead)
        current = vals[self._cur : self._end]
        top = max(current)
        # one-hot: the first maximum is the argmax; all zero (match over) reads as the last trick
        self.trick = current.index(top) if top != 0.0 else TRICKS_PER_HAND - 1
        base = self._played + self.trick * n * NUM_RANKS
        self.best_rank = NUM_RANKS  # nothing on the table
        self.best_seat = -1
        self.in_play = list(ranks)
        for s in range(n):
            row = vals[base + s * NUM_RANKS : base + (s + 1) * NUM_RANKS]
            high = max(row)
            if high != 0.0:
                r = row.index(high)
                if s == 0:  # my card of the unfinished trick still counts
                    self.in_play.append(r)
                if r < self.best_rank:
                    self.best_rank, self.best_seat = r, s
        self.leading = self.best_seat < 0
        self._obs = obs  # the match-state properties below read it only when asked (put:tips)

    def _view(self, obs: np.ndarray, name: str) -> np.ndarray:
        start, shape = self._offsets[name]
        return obs[start : start + int(np.prod(shape))].reshape(shape)

    @property
    def scores(self) -> list[float]:
        """Relative seats' scores / target_points."""
        return [float(x) for x in self._view(self._obs, "scores")]

    @property
    def my_score(self) -> float:
        return self.scores[0]

    @property
    def their_score(self) -> float:
        scores = self.scores
        return max(scores[s] for s in self._opponents)

    @property
    def caller(self) -> int:
        """The relative seat that called Put this hand, or -1."""
        return self._seat_of(self._obs, "put_caller")

    @property
    def won_first_with(self) -> int:
        """The Put rank of my card if I took trick 1, else -1."""
        if self._seat_of(self._obs, "trick_winner", 0) != 0:
            return -1
        return int(np.argmax(self._view(self._obs, "played")[0][0]))

    def _seat_of(self, obs: np.ndarray, name: str, trick: int | None = None) -> int:
        """The relative seat marked in a one-hot seat view (a trick's row of it), or -1."""
        row = self._view(obs, name) if trick is None else self._view(obs, name)[trick]
        hits = np.flatnonzero(row)
        return int(hits[0]) if hits.size else -1

    def strength(self) -> float:
        return live_strength(self.in_play, self.tricks_ahead)


class PutBatchView:
    """``PutView``'s fields for many observations at once (rows of one array), decoded by
    ``agents.put_kernel.view_rows`` (compiled; imported on first use)."""

    def __init__(self, view: PutView) -> None:
        self.view = view

    def load(self, obs: np.ndarray) -> None:
        from agents.put_kernel import view_rows

        v = self.view
        fields = view_rows(
            np.asarray(obs), v._won, v._cur, v._played, v.n, v.partnerships,
            v.opponent_seats, _PERCENTILE_GRID, _CARD_VALUES,
        )  # fmt: skip
        self.tricks_ahead, self.trick, self.best_rank, self.best_seat, self.held = fields[:5]
        self.strength = fields[5]
        self.leading = self.best_seat < 0


class PutBaseline(StyleAgent):
    """Shared plumbing: greedy card play, the pass, parameter storage.

    ``act_batch`` decides for many tables at once exactly as ``act`` does for one (the
    bluffer's random draws aside: one generator for the batch, its own per-table state).
    """

    game: ClassVar[str | None] = "put"

    def bind(self, table: TableInfo) -> None:
        super().bind(table)
        self.view = PutView(table)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask).tolist()
        v = self.view
        v.load(observation)
        if mask[SEE] or mask[FOLD]:
            return SEE if self.answer_put(v) else FOLD
        if any(mask[PASS : PASS + NUM_RANKS]):
            return PASS + next(r for r in range(NUM_RANKS) if mask[PASS + r])  # the best card
        if mask[PUT] and self.call_put(v):
            return PUT
        choice = self.greedy_card(v, mask)
        if choice is None:
            return int(legal_actions(np.asarray(action_mask))[0])
        return choice

    def greedy_card(self, v: PutView, mask: list) -> int | None:
        held = [r for r in range(NUM_RANKS) if mask[PLAY + r]]  # best (lowest put rank) first
        if not held:
            return None
        if v.leading:
            return PLAY + held[0]
        partner_holds = v.partnerships and v.best_seat == 2
        beaters = [r for r in held if r < v.best_rank]
        if beaters and not partner_holds:
            return PLAY + beaters[-1]  # the cheapest winner
        return PLAY + held[-1]  # dump the lowest

    def call_put(self, v: PutView) -> bool:
        return False

    def answer_put(self, v: PutView) -> bool:
        return True

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rows: np.ndarray
    ) -> np.ndarray:
        """One action per row, each as ``act`` would choose it; ``rows`` are the table ids.
        One compiled call (``agents.put_kernel.act_rows``: decode and decide) for the batch."""
        from agents.put_kernel import act_rows

        masks = np.asarray(masks).astype(bool, copy=False)
        tables = np.asarray(rows, np.int64)
        v = self.view
        put_at, see_at, bluff = self.batch_thresholds()
        bluffing = self._bluff_flags(int(tables.max()) + 1 if tables.size else 0)
        return act_rows(
            np.asarray(observations), v._won, v._cur, v._played, v.n, v.partnerships,
            v.opponent_seats, _PERCENTILE_GRID, _CARD_VALUES, masks, tables, bluffing,
            put_at, see_at, bluff, self.rng,
        )  # fmt: skip

    def batch_thresholds(self) -> tuple[float, float, float]:
        """``call_put``/``answer_put`` as numbers for ``act_batch``: the live strength from
        which it calls Put and sees one, and the bluff chance (< 0: no bluff draw). Greedy:
        never calls, always sees."""
        return np.inf, -np.inf, -1.0

    def _bluff_flags(self, size: int) -> np.ndarray:
        """The per-table bluff decisions (``act_batch``), at least ``size`` of them."""
        flags = getattr(self, "_bluff_rows", np.zeros(0, bool))
        if flags.size < size:
            flags = self._bluff_rows = np.concatenate([flags, np.zeros(size - flags.size, bool)])
        return flags

    def reset_rows(self, rows: np.ndarray) -> None:
        """Forget the per-hand state of these tables (``reset`` of one table)."""


@register("put", "random")
class PutRandom(RandomAgent):
    """Random legal play (the same as the spec ``random``)."""

    game: ClassVar[str | None] = "put"
    DEFAULTS: ClassVar[dict[str, Any]] = {}


@register("put", "greedy")
class Greedy(PutBaseline):
    """Greedy card play; never calls Put, always sees one (module docstring)."""


@register("put", "caller")
class PutCaller(PutBaseline):
    """Calls Put with strong hands, folds to a Put with weak ones (module docstring)."""

    DEFAULTS: ClassVar[dict[str, Any]] = {"put_at": 0.75, "see_at": 0.5}

    def call_put(self, v: PutView) -> bool:
        return v.strength() >= self.put_at

    def answer_put(self, v: PutView) -> bool:
        return v.strength() >= self.see_at

    def batch_thresholds(self) -> tuple[float, float, float]:
        return float(self.put_at), float(self.see_at), -1.0


@register("put", "bluffer")
class PutBluffer(PutCaller):
    """Also Puts weak hands with probability ``bluff``; sees with mid hands (module docstring)."""

    DEFAULTS: ClassVar[dict[str, Any]] = {"put_at": 0.75, "see_at": 0.35, "bluff": 0.3}

    def reset(self) -> None:
        self._bluff_hand = False

    def bind(self, table: TableInfo) -> None:
        super().bind(table)
        self.reset()

    def call_put(self, v: PutView) -> bool:
        # Every hand's first chance to call comes at the first trick with three cards held
        # (later chances only follow it, P4), so the bluff is drawn there, once per hand.
        if v.trick == 0 and len(v.ranks) == 3:
            self._bluff_hand = bool(self.rng.random() < self.bluff)
        return v.strength() >= self.put_at or self._bluff_hand

    def reset_rows(self, rows: np.ndarray) -> None:
        rows = np.asarray(rows, np.int64)
        if rows.size:
            self._bluff_flags(int(rows.max()) + 1)[rows] = False

    def batch_thresholds(self) -> tuple[float, float, float]:
        return float(self.put_at), float(self.see_at), float(self.bluff)


@register("put", "tips")
class PutTips(PutBaseline):
    """The Put seed's strategy tips (module docstring: which are modelled, which not)."""

    # The tips have no vector version: many tables get one agent each (agents.batch).
    batched: ClassVar[bool] = False

    DEFAULTS: ClassVar[dict[str, Any]] = {
        "mid_at": 0.4,
        "strong_at": 0.75,
        "see_at": 0.5,
        "after_win": 0.5,
    }

    def bind(self, table: TableInfo) -> None:
        super().bind(table)
        config = table.config
        self.target = config.target_points
        spp = config.seen_put_points
        self.seen_points = self.target if spp == "game" else spp

    def call_put(self, v: PutView) -> bool:
        ranks = v.in_play
        if 0 in ranks and 1 in ranks:  # tip 1: a 3 and a 2
            return True
        p = v.strength()
        strong = 0 in ranks or p >= self.strong_at
        if v.trick == 0:  # tip 3
            return strong
        if strong:
            return True
        middling = p >= self.mid_at
        ahead = v.my_score > v.their_score  # tip 2
        # tip 4; the score is read back as a whole number: float32(p / target) * target can
        # fall just short of p (9 of 11 reads as 8.99999994), missing a deciding Put
        decides = round(v.my_score * self.target) + self.seen_points >= self.target
        if middling and (ahead or decides):
            return True
        # tip 5: took trick 1 with a mid-range card, trick 2 not yet started
        if v.trick == 1 and v.leading and 3 <= v.won_first_with <= 8:
            return bool(self.rng.random() < self.after_win)
        return False

    def answer_put(self, v: PutView) -> bool:
        if 0 in v.in_play:  # tip 1: a 3 is strong
            return True
        caller_points = round(v.scores[v.caller] * self.target) if v.caller >= 0 else 0
        if caller_points + 1 >= self.target:
            return True  # tip 4: folding would hand the caller's side the match
        return v.strength() >= self.see_at
