"""N heads-up Put matches held as numpy arrays and stepped together (rules P1-P6).

``BatchedPut`` is the same game as ``PutGame`` with two players, one match per table (row):
deal, legal masks, ``step``, observations bit-equal to ``PutObserver``'s, rewards as put_v0's
and ``new_session`` of finished tables. ``PutGame`` stays the reference;
``tests/test_put_batched.py`` plays both move for move. The rules of a move run table by table
in compiled loops (``brag_env/put/batched_kernel.py``, Numba) over the arrays this class holds;
the class checks its callers' input, draws the random numbers and keeps the Python hooks
(``_draw_dealers``, ``_draw_deals``) that tests override to mirror a scalar game's deals.

Observations are kept, not rebuilt: ``_obs`` holds both seats' vectors of every table, as
uint8 (counts and flags; ``observe`` adds the float fields, scores and last points, from
the state), and each move writes only the entries it changes (a card played, a trick won, a
Put called or seen). When a hand ends, its entries are already what the next observation's
last-hand block must show, so they are copied there before the new deal is written.
``acting``, which changes at every move, is written by ``observe`` into its copy.

Differences from ``PutGame`` that do not change the game:

- The first dealer is drawn uniformly instead of by a cut: with two players the P2 cut gives
  each seat the deal with probability 1/2, so the distribution is the same; the random
  streams are not (the same seed deals other cards than put_v0).
- No hand histories, no card identities: play is by rank (P1), which is all an observation
  shows. The deal is the first six steps of a Fisher-Yates shuffle (uniform, as P2 asks).

Supported options: ``num_players=2`` and every other ``PutConfig`` field (``target_points``,
``seen_put_points`` including ``"game"``, ``put_draw_to_opponent``, ``reward``,
``perfect_recall``: the event block of both hands, kept like the rest; ``deck_ranks``: a
short deck, play unchanged since it is by rank). Anything else is a one-line ``ValueError``
naming the option.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from brag_env.batched_input import (
    announce_first_compile,
    checked_actions,
    checked_rows,
    checked_seats,
    illegal_action,
    observation_buffers,
)
from brag_env.put import batched_kernel as kernel
from brag_env.put.batched_options import check_batched_put
from brag_env.put.game import PHASE_OVER
from brag_env.put.observation import observation_layout
from brag_env.put.rules import NUM_RANKS, PUT_RANK, TRICKS_PER_HAND, PutConfig

__all__ = ["BatchedPut", "check_batched_put"]

_PUT_RANK = np.array(PUT_RANK, dtype=np.int64)
_SEATS = kernel.SEATS
_DEAL_ORDER = np.arange(kernel.HAND_CARDS)
# The kernels' table fields whose BatchedPut attribute has the engines' shared name
# (docs/development.md "Vocabulary"); every other field is the attribute of its own name.
_ATTRIBUTE_OF = {"current": "current_player"}
# one C-level call reads them all: _tables runs at every kernel call, a dozen times a step
_TABLE_ATTRIBUTES = operator.attrgetter(
    *(_ATTRIBUTE_OF.get(name, name) for name in kernel.TABLE_ARRAYS)
)
COMPILING = "compiling the batched Put engine (first use; cached afterwards) ..."


@functools.cache
def _announce_compile() -> None:
    """One line before the kernels' first compile, on a terminal only (see
    ``announce_first_compile``)."""
    announce_first_compile(COMPILING, kernel.cached)


def _layout(config: PutConfig) -> list[tuple[str, tuple[int, ...]]]:
    return observation_layout(_SEATS, perfect_recall=config.perfect_recall)


def _offsets(config: PutConfig) -> dict[str, int]:
    off, pos = {}, 0
    for name, shape in _layout(config):
        off[name] = pos
        pos += int(np.prod(shape))
    off["size"] = pos
    return off


def _check_layout(off: dict[str, int]) -> None:
    """The kernels' assumptions: each block of the finished hand (the played cards, the trick
    winners and ties, the Put's caller, seen and folds) runs as one piece, as does its copy
    in the last-hand block; so do the two event blocks, after the rest."""
    runs = (
        ("played", "trick_leader"),
        ("trick_winner", "tricks_won"),
        ("put_caller", "scores"),
        ("last_played", "last_trick_winner"),
        ("last_trick_winner", "last_put_caller"),
        ("last_put_caller", "last_points"),
    )
    sizes = [off[end] - off[start] for start, end in runs]
    assert sizes[:3] == sizes[3:], sizes
    # perfect_recall: this hand's event rows, then the last hand's of the same size, at the end
    if "recall_seat" in off:
        last = off["last_recall_seat"]
        assert last - off["recall_seat"] == off["size"] - last > 0, off
        assert off["recall_seat"] > off["last_points"], off


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
        self.rng = np.random.default_rng(seed)
        self._deck = np.array(config.deck_cards(), np.int64)  # the cards dealt from (P1)
        self.off = _offsets(config)
        _check_layout(self.off)
        self.obs_size = self.off["size"]
        n = num_tables
        self.counts = np.zeros((n, _SEATS, NUM_RANKS), np.int8)
        self.phase = np.full(n, PHASE_OVER, np.int8)
        self.current_player = np.full(n, -1, np.int64)
        self.leader = np.zeros(n, np.int64)
        self.dealer = np.zeros(n, np.int64)
        self.trick_no = np.zeros(n, np.int64)
        self.on_table = np.zeros(n, np.int64)  # cards in the unfinished trick
        self.played = np.full((n, TRICKS_PER_HAND, _SEATS), -1, np.int64)  # put rank or -1
        self.trick_win = np.full((n, TRICKS_PER_HAND), -1, np.int64)  # seat, TIED or -1
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
        self.hands_played = np.zeros(n, np.int64)  # hands finished, per table, since new_session
        self.events = np.zeros(n, np.int64)  # perfect_recall: event rows of the hand in play
        # Both seats' observations of every table, kept up to date by every move (uint8:
        # every kept entry is a count or a flag; a 4x smaller buffer stays in cache)
        self._obs = np.zeros((n, _SEATS, self.obs_size), np.uint8)
        dealer = self.off["dealer"]
        self._obs[:, 0, dealer] = self._obs[:, 1, dealer + 1] = 1  # dealer 0, no match yet
        # -1: a field this layout lacks (the event block without perfect_recall; never written)
        self._off = np.array([self.off.get(name, -1) for name in kernel.FIELDS], np.int64)
        _announce_compile()
        spp = config.seen_put_points
        self._rules = kernel.Rules(
            target=int(config.target_points),
            seen_points=-1 if spp == "game" else int(spp),
            draw_to_opponent=bool(config.put_draw_to_opponent),
            points_reward=config.reward == "points",
            inv=1.0 / config.target_points,
            recall_width=dict(_layout(config)).get("recall_action", (0, 0))[1],
        )

    def _tables(self) -> kernel.Tables:
        """The arrays the kernels change in place (read each call: a test may swap one)."""
        return kernel.Tables._make(_TABLE_ATTRIBUTES(self))

    # ------------------------------------------------------------------ deals
    def _draw_dealers(self, rows: np.ndarray) -> np.ndarray:
        """The first dealer of new matches (uniform: the P2 cut's distribution heads-up)."""
        return self.rng.integers(_SEATS, size=rows.size)

    def _draw_deals(self, rows: np.ndarray) -> np.ndarray:
        """The 6 dealt cards of each new hand, in deal order (P2: a fresh shuffle per hand):
        the first 6 steps of a Fisher-Yates shuffle of the deck per table (``deck_ranks``:
        the short deck's cards; the full pack's are 0..51, so the draws are as before)."""
        size = self._deck.size
        picks = self.rng.integers(_DEAL_ORDER, size, size=(rows.size, _DEAL_ORDER.size))
        return self._deck[kernel.fisher_yates_top(picks, size)]

    def _deal(self, rows: np.ndarray, fresh: bool) -> None:
        """A new hand on ``rows`` (their dealers set), from ``_draw_deals``."""
        cards = np.ascontiguousarray(self._draw_deals(rows), np.int64)
        kernel.deal(self._tables(), self._off, _PUT_RANK, rows, cards, fresh)

    def new_session(self, rows: np.ndarray | None = None) -> None:
        """Start new matches on ``rows`` (default: every table)."""
        rows = np.arange(self.n) if rows is None else checked_rows(rows, self.n)
        if rows.size == 0:
            return
        self.scores[rows] = 0
        self.last_unit[rows] = -1  # no hand finished yet
        self.winner[rows] = -1
        self.hands_played[rows] = 0
        self.dealer[rows] = self._draw_dealers(rows)
        self._deal(rows, fresh=True)

    # ------------------------------------------------------------------ masks
    def legal_mask(self, rows: np.ndarray | None = None) -> np.ndarray:
        """int8 legal-action masks of the seat to act (all zero on finished tables)."""
        rows = np.arange(self.n) if rows is None else checked_rows(rows, self.n)
        out = np.empty((rows.size, self.num_actions), np.int8)
        kernel.masks(self._tables(), rows, out)
        return out

    # ------------------------------------------------------------------- step
    def step(self, rows: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Apply each row's action for its seat to act. Returns ``(rewards, over)``: the
        rewards (k, 2) per seat of this step, as put_v0 pays them, and whether the match
        ended. An illegal action raises ``ValueError`` before anything changes."""
        rows = checked_rows(rows, self.n)
        actions = checked_actions(actions, rows)
        tables = self._tables()
        bad = kernel.first_illegal(tables, rows, actions)
        if bad >= 0:
            raise illegal_action(rows, actions, bad, self.legal_mask(rows[bad : bad + 1])[0])
        k = rows.size
        rewards = np.zeros((k, _SEATS))
        over = np.zeros(k, bool)
        ended = np.zeros(k, np.int8)
        kernel.step(tables, self._rules, self._off, rows, actions, rewards, over, ended)
        # the next hands, in the order the deals are drawn: those ended by a fold first
        going = ~over
        deals = np.concatenate(
            [
                np.flatnonzero((ended == kernel.ENDED_BY_FOLD) & going),
                np.flatnonzero((ended == kernel.ENDED_BY_PLAY) & going),
            ]
        )
        if deals.size:
            self._deal(rows[deals], fresh=False)
        return rewards, over

    # ------------------------------------------------------------ observation
    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray | None = None):
        """Each row's observation for ``seats`` (absolute), as ``PutObserver.set_from``: the
        kept vector, which every move updates, with the fields held as state (the seat to
        act, the scores, the last hand's points) written into the copy."""
        rows = checked_rows(rows, self.n)
        seats = checked_seats(seats, rows, _SEATS)  # e.g. -1: a finished match's seat to act
        out, work = observation_buffers(out, rows.size, self.obs_size)
        kernel.observe(self._tables(), self._rules, self._off, rows, seats, work)
        if work is not out:
            out[...] = work
        return out
