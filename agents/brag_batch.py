"""The Brag baselines' ``act`` for many tables at once: observation fields as arrays.

The shipped styles decide batches in ``agents.brag_kernel`` (compiled; their codes are here,
so that ``agents.brag`` names them without importing Numba); these arrays serve the styles
with numpy rules (``planted_never_fold``, the rule exploiter, the adaptive exploiter's view)
and the kernel's equity table. ``BragBatchView`` decodes what ``agents.brag.BragView``
decodes, for a (k, size) batch of observations; ``BragRows`` keeps the per-hand state ``act``
keeps (bets made, the hand seen last, a bluff), one slot per table id. The arithmetic is
``BragView``'s, value for value: the equity ``p ** k`` comes from a table computed with
Python's ``**`` on every percentile a hand can have, so no vector power function can round it
differently.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from agents.base import TableInfo
from brag_env.brag.observation import HISTORY_LEN, observation_layout
from brag_env.brag.rules import FIRST_RAISE, LOOK, SeatStatus
from brag_env.brag.wild import ranking

# The seat_status column of a blind seat in the observation, as a plain int for indexing.
_BLIND = int(SeatStatus.BLIND)  # blind and open (the next column): still in the hand
NO_ACTION = -1  # padding of a preference list
# The styles compiled in agents.brag_kernel (``CompiledStyle.compiled_style``).
CALLER, TIGHT, BLUFFER, BLIND, TIPS, NEVER_LOOK = range(6)

_MAX_OPPONENTS = 16  # opponents + coverers never exceed 2 * 7


@lru_cache(maxsize=16)
def _equity_table(deck_ranks: int, wild_cards: str = "none") -> tuple[np.ndarray, np.ndarray]:
    """Every value own_strength can take in a deck of ``deck_ranks`` with these wild cards
    (B25) (float32, as in the vector), ascending, 0.0 included: the fraction of the deck's
    hands strictly weaker, in the standard and the lowball (B21) order; and ``p ** max(k, 1)``
    for each."""
    fractions = np.concatenate(
        [ranking(wild_cards, lowball, deck_ranks).percentile_of for lowball in (False, True)]
    )
    percentiles = np.unique(fractions.astype(np.float32))
    equity = np.array(
        [[float(p) ** max(k, 1) for k in range(_MAX_OPPONENTS + 1)] for p in percentiles.tolist()]
    )
    return percentiles, equity


class BragBatchView:
    """The fields a baseline reads, as arrays over the rows of a batch (``BragView.load``)."""

    def __init__(self, table: TableInfo) -> None:
        config = table.config
        layout = observation_layout(config)
        off = layout.offset
        n = self.n = config.num_players
        self.min_stake = config.min_stake
        self._max_stake = float(config.max_stake)
        self._chips_scale = float(config.starting_chips)
        self._hands = float(config.hands_per_session)
        self._cat = slice(off("own_category"), off("own_category") + 6)
        self._strength = off("own_strength")
        self._status = slice(off("seat_status"), off("seat_status") + 4 * n)
        self._chips, self._chips_in = off("seat_chips"), off("seat_chips_in")
        self._covered = (
            slice(off("seat_covered"), off("seat_covered") + n) if config.cover_pot else None
        )
        self._stake, self._pot, self._hand = off("stake"), off("pot"), off("hand_number")
        a = self._num_actions = config.num_actions
        self._hseat = slice(off("history_seat"), off("history_seat") + HISTORY_LEN * n)
        self._haction = slice(off("history_action"), off("history_action") + HISTORY_LEN * a)
        self._is_raise = np.zeros(a, bool)
        self._is_raise[FIRST_RAISE : FIRST_RAISE + len(config.raise_sizes)] = True
        self._percentiles, self._equity = _equity_table(config.deck_ranks, config.wild_cards)

    def load(self, obs: np.ndarray) -> None:
        self._obs = obs
        self.looked = obs[:, self._cat].any(axis=1)
        self.strength = obs[:, self._strength].astype(np.float64)
        status = obs[:, self._status].reshape(len(obs), self.n, 4)
        self.blind = status[:, 0, _BLIND] > 0.5
        live = status[:, 1:, _BLIND:].sum(axis=1)  # opponents still in: blind, open
        self.opponents = live.sum(axis=1).astype(np.int64)
        self.opponents_blind = live[:, 0].astype(np.int64)
        coverers = obs[:, self._covered].sum(axis=1) if self._covered is not None else 0
        self.coverers = np.asarray(coverers).astype(np.int64)
        self.stake = self._whole(obs[:, self._stake], self._max_stake)
        self.pot = self._whole(obs[:, self._pot], self._chips_scale)
        self.chips = self._whole(obs[:, self._chips], self._chips_scale)
        self.chips_in = self._whole(obs[:, self._chips_in], self._chips_scale)
        self.hand_number = self._whole(obs[:, self._hand], self._hands)

    @staticmethod
    def _whole(values: np.ndarray, scale: float) -> np.ndarray:
        return np.round(values.astype(np.float64) * scale).astype(np.int64)  # round(): half-even

    def raises_since_mine(self) -> np.ndarray:
        """``BragView.raises_since_mine`` per row: the others' raises since my last move."""
        obs, k = self._obs, len(self._obs)
        actions = obs[:, self._haction].reshape(k, HISTORY_LEN, self._num_actions)
        present = actions.max(axis=2) > 0.5
        acted = actions.argmax(axis=2)
        seat0 = obs[:, self._hseat].reshape(k, HISTORY_LEN, self.n)[:, :, 0] > 0.5
        mine = seat0 & (acted != LOOK)
        last_mine = np.where(mine.any(axis=1), mine.argmax(axis=1), HISTORY_LEN)
        before = np.arange(HISTORY_LEN) < last_mine[:, None]
        return (present & before & self._is_raise[acted]).sum(axis=1)

    def equity(self) -> np.ndarray:
        """``BragView.equity`` per row: strength ** max(opponents + coverers, 1)."""
        where = np.searchsorted(self._percentiles, self.strength.astype(np.float32))
        k = np.minimum(self.opponents + self.coverers, _MAX_OPPONENTS)
        return self._equity[where, k]


class BragRows:
    """Per-table state of a baseline in ``act_batch`` (``BragBaseline.reset`` per table)."""

    def __init__(self) -> None:
        self.bets = np.zeros(0, np.int64)
        self.hand = np.full(0, -1, np.int64)  # hand number last seen, -1: none
        self.chips_in = np.zeros(0, np.int64)
        self.bluff = np.full(0, -1, np.int8)  # the bluffer's decision: -1 undecided

    def grow(self, size: int) -> None:
        extra = size - self.bets.size
        if extra > 0:
            self.bets = np.concatenate([self.bets, np.zeros(extra, np.int64)])
            self.hand = np.concatenate([self.hand, np.full(extra, -1, np.int64)])
            self.chips_in = np.concatenate([self.chips_in, np.zeros(extra, np.int64)])
            self.bluff = np.concatenate([self.bluff, np.full(extra, -1, np.int8)])

    def reset(self, rows: np.ndarray) -> None:
        if rows.size:
            self.grow(int(rows.max()) + 1)
            self.bets[rows] = 0
            self.hand[rows] = -1
            self.chips_in[rows] = 0
            self.bluff[rows] = -1


def first_legal(masks: np.ndarray, preferences: np.ndarray) -> np.ndarray:
    """The first legal action of each row's preference list (``NO_ACTION`` if none)."""
    rows = np.arange(len(masks))
    choice = np.full(len(masks), NO_ACTION, np.int64)
    for column in preferences.T:
        free = (choice == NO_ACTION) & (column >= 0)
        ok = free.copy()
        ok[free] = masks[rows[free], column[free]]
        choice[ok] = column[ok]
    return choice


def biggest_raise(masks: np.ndarray, raise_ids: list[int]) -> np.ndarray:
    """The highest legal raise per row, ``NO_ACTION`` without one."""
    out = np.full(len(masks), NO_ACTION, np.int64)
    for r in raise_ids:  # ascending: the last legal one wins
        out[masks[:, r]] = r
    return out


def smallest_raise(masks: np.ndarray, raise_ids: list[int]) -> np.ndarray:
    out = np.full(len(masks), NO_ACTION, np.int64)
    for r in reversed(raise_ids):
        out[masks[:, r]] = r
    return out


def prefer(*columns) -> np.ndarray:
    """A (k, len(columns)) preference array from columns (arrays or scalars; all scalars:
    one row, which broadcasts)."""
    out = np.empty((max(np.size(c) for c in columns), len(columns)), np.int64)
    for j, column in enumerate(columns):
        out[:, j] = column
    return out
