"""N Three-Card Brag sessions held as numpy arrays and stepped together (B1-B21).

``BatchedBrag`` is the game ``brag_v1`` plays, one table per row: deal, legal masks, ``step``,
observations bit-equal to ``brag_v1``'s ``observe()``, the per-seat chip changes as rewards,
and ``new_session`` of finished sessions. ``BragGame`` stays the reference:
``tests/test_brag_batched.py`` plays both move for move on the same deals (the batched deck
stacked on the scalar one, its shuffles mirrored) and the same actions. The rules of a move
run table by table in compiled loops (``brag_env/brag/batched_kernel.py``, Numba) over the
arrays this class holds; the class checks its callers' input, draws the random numbers and
keeps the Python hooks (``_draw_dealers``, ``_draw_deals``, ``_shuffle``, ``_start_hands``)
that tests override to mirror a scalar game's deals.

Covered: 2-8 players, blind and open betting (B10-B13, ``pot_limit``), looks, folds, sees and
ties (B14), covering the pot with its side pots at any table size (B16), lowball (B21), the
prial bonus (B20), every ante mode (B8), and sessions of any ``hands_per_session`` (B17):
stacks carried from hand to hand, the button moving on past players who sit out (B7, B16:
status 0, short of the ante due or broke), carried pots under both carry options and never
out of a session (B15), each table's deck kept between hands with the no-shuffle rule and
every shuffle mode, the cycle included (B18), the B19 keep/take choice, the early end when
fewer than two can play, and the session-only observation fields (``hand_number``,
``choice_pending``, the ``prev_*`` block, ``shown_cards`` since the last shuffle). Rewards
are paid per hand, as ``brag_v1`` pays them: every seat's chip change when a hand ends.
``step``'s ``over`` says the session ended; a hand that ends inside a session deals the next
one at once (the ``hand_number`` attribute counts them).

Not covered, a one-line ``ValueError`` naming the option (``check_batched_brag``, in
``batched_options.py`` so that checking options does not import Numba):
Four-/Five-card Brag (``cards_dealt`` 4 or 5, B22), ``perfect_recall`` and wild cards
(``wild_cards``, B25).

Observations: each table keeps ONE float32 ``state`` row laid out as the observation of
seat 0 (seat rows in absolute order, the history most recent first), updated by the few values
each move changes, and per seat whether it has looked (B10). A player's vector is its table's
state row with the seat rows rotated to it (each seat field copied in two runs, or element by
element where a seat's row is one value) and its own private block (own cards, category,
strength), written from its hand once it has looked. The history moves one slot per event.

Differences from ``BragGame`` that do not change the game: the first dealer is drawn
uniformly (the B7 cut makes every seat the dealer with probability 1/n) and the cards come from
a fresh uniform shuffle (B18: the deck is shuffled before a session's first hand); the random
streams are not ``brag_v1``'s. No hand histories are kept. One-hand sessions deal only the 3n
cards they use; longer ones keep each table's whole deck as a ring (52 slots, or the size of a
short deck, ``deck_ranks``).
"""

from __future__ import annotations

import functools
import itertools
from types import SimpleNamespace

import numpy as np

from brag_env.batched_input import (
    announce_first_compile,
    checked_actions,
    checked_rows,
    checked_seats,
    illegal_action,
    observation_buffers,
)
from brag_env.brag import batched_kernel as kernel
from brag_env.brag.batched_options import check_batched_brag
from brag_env.brag.hands import (
    CATEGORY_OF_STRENGTH,
    LOWBALL_STRENGTH_TABLE,
    MAX_STRENGTH,
    STRENGTH_TABLE,
    strength_percentile,
)
from brag_env.brag.observation import SEAT_FIELDS, observation_layout
from brag_env.brag.rules import (
    BLIND,
    FOLDED,
    OPEN,
    SITTING_OUT,
    BragConfig,
    ante_due,
    shuffle_due,
)
from brag_env.cards import NUM_CARDS

_HAND = kernel.HAND


# The kernels' struct fields whose BatchedBrag attribute has the engines' shared name
# (docs/development.md "Vocabulary"); every other field is the attribute of its own name.
_ATTRIBUTE_OF = {"current": "current_player"}
_SHARED_ARRAYS = frozenset(_ATTRIBUTE_OF.get(name, name) for name, _, _ in kernel.TABLE_ARRAYS)
COMPILING = "compiling the batched Brag engine (first use; cached afterwards) ..."


@functools.cache
def _announce_compile() -> None:
    """One line before the kernels' first compile (20-100 s, silent otherwise) when they are
    not cached yet, on a terminal's stderr only: logs, pipes and tests stay as they were."""
    announce_first_compile(COMPILING, kernel.cached)


class BatchedBrag:
    """``num_tables`` Brag sessions; every array's first axis is the table."""

    def __init__(self, num_tables: int, config: BragConfig | None = None, seed=None) -> None:
        config = config if config is not None else BragConfig()
        check_batched_brag(config)
        if not isinstance(num_tables, int) or isinstance(num_tables, bool) or num_tables < 1:
            raise ValueError(f"num_tables must be an integer >= 1, got {num_tables!r}")
        self.config = config
        self.n = t = num_tables
        n = self.num_players = config.num_players
        self.num_actions = config.num_actions
        self.rng = np.random.default_rng(seed)
        # B1: the pack in order (the k highest ranks under deck_ranks); each deck is a ring of
        # its size
        self._pack = np.array(config.deck_cards(), np.int64)
        self._deck_size = config.deck_size
        self._table_ids = np.arange(t)
        self._sessions = config.hands_per_session > 1
        self.hands = np.zeros((t, n, _HAND), np.int64)  # cards in deal order (B9)
        self.strength = np.zeros((t, n), np.int64)  # B21 order when lowball
        self.category = np.zeros((t, n), np.int64)  # standard category (B20 uses it too)
        self.percentile = np.zeros((t, n), np.float64)
        self.status = np.zeros((t, n), np.int8)
        self.chips = np.zeros((t, n), np.int64)
        self.chips_before = np.zeros((t, n), np.int64)
        self.contributed = np.zeros((t, n), np.int64)
        self.last_action = np.full((t, n), -1, np.int64)
        self.dealer = np.zeros(t, np.int64)
        self.current_player = np.full(t, -1, np.int64)  # -1: the session is over
        self.stake = np.zeros(t, np.int64)
        self.pot = np.zeros(t, np.int64)
        self.active = np.zeros(t, np.int64)  # seats still in the betting (blind or open)
        self.events = np.zeros(t, np.int64)  # public events this hand
        # B16: who covered, in order, and the pot each cover closed.
        self.covered_pot = np.zeros((t, n), np.int64)
        self.has_covered = np.zeros((t, n), bool)
        self.cover_order = np.zeros((t, n), np.int64)
        self.num_covers = np.zeros(t, np.int64)
        self.last_closed = np.zeros(t, np.int64)
        self.hands_played = np.zeros(t, np.int64)
        # the table's last ended hand (game.py's HandResult): the seat that won its last pot
        # (B14-B16; -1: carried, B15) and the chips carried to the next deal
        self.hand_winner = np.full(t, -1, np.int64)
        self.hand_carried = np.zeros(t, np.int64)
        self._init_sessions()
        self.obs_size = observation_layout(config).size
        self.state = np.zeros((t, self.obs_size), np.float32)
        self.looked = np.zeros((t, n), bool)  # B10: seen its cards this hand (observe shows them)
        # the kernels' structs, and what they borrow (kept alive with them)
        _announce_compile()
        self._rules, self._rule_values = _rules_of(config)
        self._tables, self._table_arrays = kernel.tables_of(self._kernel_view())

    def __setattr__(self, name: str, value) -> None:
        """The kernels hold views of TABLE_ARRAYS' arrays: an attribute rebound after
        ``__init__`` would leave them changing the old array, unseen, so it is refused."""
        if name in _SHARED_ARRAYS and "_tables" in self.__dict__:
            raise AttributeError(
                f"BatchedBrag.{name} is shared with the compiled kernels: change it in place "
                f"({name}[...] = ...), not by assigning a new array"
            )
        object.__setattr__(self, name, value)

    def _kernel_view(self) -> SimpleNamespace:
        """This engine's TABLE_ARRAYS under the kernels' field names (the same arrays)."""
        return SimpleNamespace(
            **{
                name: getattr(self, _ATTRIBUTE_OF.get(name, name))
                for name, _, _ in kernel.TABLE_ARRAYS
            }
        )

    # the kernels' structs hold raw pointers (Numba meminfos): not picklable, rebuilt instead
    _KERNEL_STRUCTS = ("_rules", "_rule_values", "_tables", "_table_arrays")

    def __getstate__(self) -> dict:
        """The arrays and settings, without the kernels' structs (pickle, ``copy.deepcopy``)."""
        return {k: v for k, v in self.__dict__.items() if k not in self._KERNEL_STRUCTS}

    def __setstate__(self, state: dict) -> None:
        """The arrays as pickled, and new structs over them (they borrow, never own, them)."""
        self.__dict__.update(state)
        self._rules, self._rule_values = _rules_of(self.config)
        self._tables, self._table_arrays = kernel.tables_of(self._kernel_view())

    def _init_sessions(self) -> None:
        """The per-table arrays of multi-hand sessions (B8, B15-B19)."""
        t, n = self.n, self.num_players
        self.out = np.zeros((t, n), bool)  # B16: sits out for the rest of the session
        self.hand_number = np.zeros(t, np.int64)
        self.order = np.zeros((t, n), np.int64)  # B9: seats dealt in (rules.deal_order)
        self.in_hand = np.zeros(t, np.int64)  # ... how many (the first ones of ``order``)
        self.carry_in = np.zeros(t, np.int64)  # B15: chips this hand's pot started with
        self.opened = np.zeros(t, bool)  # B15: someone paid a stake this hand
        self.prev_prial = np.zeros(t, bool)  # B8/B18: the last hand showed a prial
        self.shuffled = np.zeros(t, bool)  # B18: the deck was shuffled before this hand
        # B18: each table's deck as a ring of deck_size slots, top card at deck_head; the cards not
        # in it are on the table (and a B19 kept hand)
        self.deck = np.zeros((t, self._deck_size), np.int64)
        self.deck_head = np.zeros(t, np.int64)
        self.deck_len = np.zeros(t, np.int64)
        self.dealt_since = np.zeros(t, np.int64)  # B18 cycle: cards dealt since a shuffle
        self.keeper = np.full(t, -1, np.int64)  # B19: the seat holding a kept hand, or -1
        self.kept = np.zeros((t, _HAND), np.int64)
        self.choosing = np.zeros(t, bool)  # B19: the keeper's choice is due
        # the last hand, for the prev_* block of the next one's observations
        self.prev_delta = np.zeros((t, n), np.int64)
        self.prev_see = np.full((t, 2), -1, np.int64)  # seer, seen (-1: no see)
        self.prev_cards = np.zeros((t, 2, _HAND), np.int64)

    # ------------------------------------------------------------------ deals
    def _draw_dealers(self, rows: np.ndarray) -> np.ndarray:
        """The dealer of each new session (uniform: the B7 cut's distribution)."""
        return self.rng.integers(self.num_players, size=rows.size)

    def _draw_deals(self, rows: np.ndarray) -> np.ndarray:
        """The 3n dealt cards of each table, the top of a uniformly shuffled deck first (B18):
        the first 3n steps of a Fisher-Yates shuffle."""
        uniforms = self.rng.random((_HAND * self.num_players, rows.size))
        return kernel.draw_deals(self._pack, uniforms)

    def deck_top(self, row: int) -> list[int]:
        """The dealt cards of table ``row`` in deal order (to stack a scalar game's deck;
        in a session, before a B19 choice changes a hand)."""
        n, d = self.num_players, int(self.dealer[row])
        seats = [(d + 1 + j) % n for j in range(n)]
        if self._sessions:
            seats = self.order[row, : self.in_hand[row]].tolist()
        return [int(self.hands[row, s, i]) for i in range(_HAND) for s in seats]

    def new_session(self, rows: np.ndarray | None = None, decks=None, dealers=None) -> None:
        """Start new sessions on ``rows`` (default: every table). In multi-hand sessions
        ``decks`` (one permutation of the 52 cards per row, top first) and ``dealers`` (the
        first hand's) may stack the deal, as ``brag_v1``'s ``deck`` and ``dealer`` options."""
        rows = self._table_ids if rows is None else checked_rows(rows, self.n)
        if rows.size == 0:
            return
        if self._sessions:
            self._new_sessions(rows, decks, dealers)
            return
        if decks is not None or dealers is not None:
            raise ValueError("decks and dealers: only for hands_per_session > 1")
        dealer = np.asarray(self._draw_dealers(rows), np.int64)
        cards = np.asarray(self._draw_deals(rows), np.int64)  # (k, 3n): B9, from the dealer's left
        kernel.deal_hands(self._tables, self._rules, rows, dealer, cards)

    def settled(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Whether each seat's chip change for the rest of the session is final before the
        session ends: on its last hand it folded (a coverer's hand is still compared, B16)
        and no B20 bonus can be asked of it, or it sits out (B16). ``chips - chips_before``
        is then its reward for the hand on the table, and no later hand changes its chips."""
        live = self.current_player[rows] >= 0
        folded = (self.status[rows, seats] == FOLDED) & ~self.has_covered[rows, seats]
        final = folded & live & (not self.config.prial_bonus)
        if self._sessions:  # a later hand of the session may still change its chips
            final &= self.hand_number[rows] + 1 >= self.config.hands_per_session
            final |= live & (self.status[rows, seats] == SITTING_OUT)
        return final

    # --------------------------------------------------------------- sessions
    def deck_cards(self, row: int) -> list[int]:
        """Table ``row``'s undealt cards, top first (sessions only; for tests)."""
        head, size = int(self.deck_head[row]), int(self.deck_len[row])
        return [int(self.deck[row, (head + j) % self._deck_size]) for j in range(size)]

    def _new_sessions(self, rows: np.ndarray, decks=None, dealers=None) -> None:
        """B7/B17/B18: starting stacks, a drawn dealer, a shuffled deck, the first hand."""
        decks, dealers = self._stacked(rows, decks, dealers)  # checked before any draw
        keys = self.rng.random((rows.size, self._deck_size))
        dealer = self._draw_dealers(rows) if dealers is None else dealers
        order = self._pack[keys.argsort(axis=1)]  # a uniform order
        self.deck[rows] = order if decks is None else decks
        self.deck_head[rows] = 0
        self.deck_len[rows] = self._deck_size
        self.chips[rows] = self.config.starting_chips
        self.out[rows] = False
        self.hand_number[rows] = -1
        self.carry_in[rows] = 0
        self.prev_prial[rows] = False
        self.keeper[rows] = -1
        self.state[rows] = 0.0  # nothing shown yet
        self._start_hands(rows, dealer)

    def _stacked(self, rows: np.ndarray, decks, dealers) -> tuple:
        """``new_session``'s ``decks`` and ``dealers`` as int64 arrays (or None), or the one-line
        ``ValueError`` saying what is wrong with them."""
        if decks is not None:
            given = np.asarray(decks)
            if not np.issubdtype(given.dtype, np.integer):
                raise ValueError(f"decks must be integers, got {given.dtype}")
            if given.shape != (rows.size, self._deck_size):
                raise ValueError(
                    f"decks must have shape ({rows.size}, {self._deck_size}), got {given.shape}"
                )
            decks = given.astype(np.int64)
            if not (np.sort(decks, axis=1) == self._pack).all():
                raise ValueError(
                    f"decks must be permutations of the deck's {self._deck_size} cards, one per row"
                )
        if dealers is not None:
            given = np.asarray(dealers)
            if not np.issubdtype(given.dtype, np.integer):
                raise ValueError(f"dealers must be integers, got {given.dtype}")
            if given.shape != (rows.size,):
                raise ValueError(f"dealers must have shape ({rows.size},), got {given.shape}")
            dealers = given.astype(np.int64)
            if ((dealers < 0) | (dealers >= self.num_players)).any():
                raise ValueError(f"dealers must be seats 0..{self.num_players - 1}")
        return decks, dealers

    def _shuffle(self, rows: np.ndarray) -> None:
        """B18: the cards in each deck in a new uniform order (cards out of it stay out)."""
        spots = (self.deck_head[rows][:, None] + np.arange(self._deck_size)) % self._deck_size
        cards = np.take_along_axis(self.deck[rows], spots, axis=1)
        keys = self.rng.random((rows.size, self._deck_size))
        keys[np.arange(self._deck_size) >= self.deck_len[rows][:, None]] = 2.0  # stay at the end
        self.deck[rows] = np.take_along_axis(cards, keys.argsort(axis=1), axis=1)
        self.deck_head[rows] = 0

    def _start_hands(self, rows: np.ndarray, dealer: np.ndarray) -> None:
        """The next hand of each session on ``rows``, ``dealer`` dealing: B18's shuffle (the
        ``_shuffle`` hook), then the antes (B8), the deal (B9) and the state row (the
        kernel)."""
        cfg = self.config
        hand = self.hand_number[rows] = self.hand_number[rows] + 1
        first = hand == 0
        due = shuffle_due(
            cfg.shuffle_id, self.prev_prial[rows], self.dealt_since[rows], self._deck_size
        )
        shuffle = ~first & due  # B18: the first hand's deck was drawn shuffled
        j = np.flatnonzero(shuffle)
        if j.size:
            self._shuffle(rows[j])
        self.shuffled[rows] = shuffle
        dealer = np.asarray(dealer, np.int64)
        kernel.start_hands(self._tables, self._rules, rows, dealer, first | shuffle)

    # ------------------------------------------------------------------ masks
    def legal_mask(self, rows: np.ndarray | None = None) -> np.ndarray:
        """int8 legal-action masks of the seat to act (all zero on finished tables)."""
        rows = self._table_ids if rows is None else checked_rows(rows, self.n)
        out = np.empty((rows.size, self.num_actions), np.int8)
        kernel.masks(self._tables, self._rules, rows, out)
        return out

    # ------------------------------------------------------------------- step
    def step(self, rows: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Apply each row's action for its seat to act. Returns ``(rewards, over)``: the
        rewards (k, n) per seat of this step (every seat's chip change when its hand ends, as
        brag_v1 pays them) and whether the session ended. An illegal action raises
        ``ValueError`` before anything changes."""
        rows = checked_rows(rows, self.n)
        actions = checked_actions(actions, rows)
        bad = kernel.first_illegal(self._tables, self._rules, rows, actions)
        if bad >= 0:
            raise illegal_action(rows, actions, bad, self.legal_mask(rows[bad : bad + 1])[0])
        k = rows.size
        rewards = np.zeros((k, self.num_players))
        over = np.zeros(k, bool)
        next_dealer = np.full(k, -1, np.int64)
        by_see = np.zeros(k, bool)
        kernel.step(self._tables, self._rules, rows, actions, rewards, over, next_dealer, by_see)
        if self._sessions:  # the next hands, those ended by folds first (the shuffles' order)
            deals = next_dealer >= 0
            for group in (deals & ~by_see, deals & by_see):
                i = np.flatnonzero(group)
                if i.size:
                    self._start_hands(rows[i], next_dealer[i])
        return rewards, over

    # ------------------------------------------------------------ observation
    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray | None = None):
        """Each row's observation for ``seats`` (absolute), bit-equal to brag_v1's: the
        state rows, their seat rows rotated to the observer and the observer's private block
        (see the module docstring)."""
        rows = checked_rows(rows, self.n)
        seats = checked_seats(seats, rows, self.num_players)
        out, work = observation_buffers(out, rows.size, self.obs_size)
        kernel.observe(self._tables, self._rules, rows, seats, work)
        if work is not out:
            out[...] = work
        return out


@functools.cache
def _ranked(lowball: bool) -> np.ndarray:
    """``Rules.ranked``: by ``kernel.hand_index`` of each set of three cards, the hand's entry
    in hands.py's strength table (by ordered cards, the same for any order; B21's when
    ``lowball``) plus its standard category << ``kernel.RANK_BITS``; shared by every engine
    (the kernels only read it)."""
    assert MAX_STRENGTH < 1 << kernel.RANK_BITS
    strengths = LOWBALL_STRENGTH_TABLE if lowball else STRENGTH_TABLE
    lo, mid, hi = np.array(list(itertools.combinations(range(NUM_CARDS), 3))).T
    flat = (lo * NUM_CARDS + mid) * NUM_CARDS + hi
    index = hi * (hi - 1) * (hi - 2) // 6 + mid * (mid - 1) // 2 + lo
    ranked = np.zeros(index.size, np.int16)
    category = CATEGORY_OF_STRENGTH[STRENGTH_TABLE[flat]].astype(np.int64)
    ranked[index] = strengths[flat] + (category << kernel.RANK_BITS)
    return ranked


def _rules_of(config: BragConfig) -> tuple:
    """The kernels' view of ``config`` (its numbers, the ranking tables and the layout) and the
    values it borrows (``kernel.rules_of``)."""
    layout = observation_layout(config)
    n, size = config.num_players, layout.size
    off = {name: f.offset for name, f in layout.fields.items()}
    # (offset, width per seat) of each seat field: seat me's view shows seat (me + i) % n in
    # row i of each (the history's seats are rotated by the kernel as it reads the ring)
    seat_runs = [
        (layout.fields[name].offset, layout.fields[name].size // n)
        for name in SEAT_FIELDS
        if name in layout.fields
    ]
    # the state of a fresh deal (before the dealer and the first player are marked)
    inv = 1.0 / config.starting_chips
    start = np.zeros(size, np.float32)
    status = BLIND if config.allow_blind else OPEN
    start[off["seat_status"] + 4 * np.arange(n) + status] = 1.0
    ante = ante_due(config.ante_mode_id, config.ante, True, False)  # B8: a fresh deal is a first
    start[off["seat_chips"] : off["seat_chips"] + n] = (config.starting_chips - ante) * inv
    start[off["seat_chips_in"] : off["seat_chips_in"] + n] = ante * inv
    start[off["stake"]] = config.min_stake * (1.0 / config.max_stake)
    start[off["pot"]] = ante * n * inv
    return kernel.rules_of(
        num_players=n,
        num_actions=config.num_actions,
        cover=config.cover_action,
        keep_id=config.keep_old_hand_action,
        take_id=config.take_new_hand_action,
        mults=np.array(config.raise_sizes, np.int64),
        min_stake=config.min_stake,
        max_stake=config.max_stake,
        pot_limit=bool(config.pot_limit),
        blind_may_see_open=bool(config.blind_may_see_open),
        allow_blind=bool(config.allow_blind),
        prial_bonus=int(config.prial_bonus),
        sessions=config.hands_per_session > 1,
        hands_per_session=config.hands_per_session,
        ante=config.ante,
        ante_mode=config.ante_mode_id,
        starting_chips=config.starting_chips,
        carry_blind=config.blind_alone == "carries",
        carry_unopened=config.unopened_pot == "carries",
        blind_keep_hand=bool(config.blind_keep_hand),
        deck_size=config.deck_size,
        inv_chips=inv,
        inv_stake=1.0 / config.max_stake,
        inv_hands=1.0 / config.hands_per_session,
        ranked=_ranked(bool(config.lowball)),
        percentile_of=strength_percentile(
            np.arange(MAX_STRENGTH + 1), config.lowball, config.deck_ranks
        ),
        # -1: a field this layout lacks (the B16 cover fields; written only with cover_pot)
        off=np.array([off.get(name, -1) for name in kernel.FIELDS], np.int64),
        start_state=start,
        seat_runs=np.array(seat_runs, np.int64).reshape(-1, 2),
    )
