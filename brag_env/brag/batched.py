"""N Three-Card Brag sessions held as numpy arrays and stepped together (B1-B21).

``BatchedBrag`` is the game ``brag_v1`` plays, one table per row: deal, legal masks, ``step``,
observations bit-equal to ``brag_v1``'s ``observe()``, the per-seat chip changes as rewards,
and ``reset`` of finished sessions. ``BragGame`` stays the reference:
``tests/test_brag_batched.py`` plays both move for move on the same deals (the batched deck
stacked on the scalar one, its shuffles mirrored) and the same actions. Python loops run over
the few fixed positions (seats, deal positions, covers), never over tables.

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

Not covered, a one-line ``ValueError`` naming the option: Four-/Five-card Brag
(``cards_dealt`` 4 or 5, B22).

Observations: each table keeps ONE float32 ``state`` row laid out as the observation of
seat 0 (seat rows in absolute order, the history most recent first), updated by the few values
each move changes, and one private block per seat (own cards, category, strength), written
when that seat looks (B10). A player's vector is its table's state row with the seat rows
rotated to it (precomputed column sources per observer, gathered only for the column ranges
that move) and its own private block. The history moves one slot per event.

Differences from ``BragGame`` that do not change the game: the first dealer is drawn
uniformly (the B7 cut makes every seat the dealer with probability 1/n) and the cards come from
a fresh uniform shuffle (B18: the deck is shuffled before a session's first hand); the random
streams are not ``brag_v1``'s. No hand histories are kept. One-hand sessions deal only the 3n
cards they use; longer ones keep each table's whole deck as a ring (52 slots, or the size of a
short deck, ``deck_ranks``).
"""

from __future__ import annotations

import numpy as np

from brag_env.batched_input import checked_actions, checked_rows, checked_seats
from brag_env.brag.hands import (
    CATEGORY_NAMES,
    CATEGORY_OF_STRENGTH,
    LOWBALL_STRENGTH_TABLE,
    PRIAL,
    RUNNING_FLUSH,
    STRENGTH_TABLE,
    strength_percentile,
)
from brag_env.brag.observation import HISTORY_LEN, SEAT_FIELDS, observation_layout
from brag_env.brag.rules import FIRST_RAISE, FOLD, LOOK, SEE, STAY, BragConfig
from brag_env.cards import NUM_CARDS

SITTING_OUT, FOLDED, BLIND, OPEN = 0, 1, 2, 3  # status ids as brag_env.brag.game
_HAND = 3
_STRIDE_A, _STRIDE_B = NUM_CARDS * NUM_CARDS, NUM_CARDS  # hands.py's flat hand index
_PRIVATE = NUM_CARDS + len(CATEGORY_NAMES) + 1  # own cards, category, strength
_SHIFT_ROWS = 1024  # rows per block when the history of every table moves
_OBSERVE_ROWS = 256  # rows per block of observe's output (measured: 256 beat 512-4096)


def check_batched_brag(config: BragConfig) -> None:
    """Raise the one-line ``ValueError`` for an option ``BatchedBrag`` does not cover."""
    if config.cards_dealt != _HAND:
        raise ValueError(
            f"BatchedBrag does not support cards_dealt={config.cards_dealt} "
            "(Three-card Brag only); use vec_env: dummy"
        )
    if config.perfect_recall:
        raise ValueError(
            "BatchedBrag does not support perfect_recall (the default observation only); "
            "use vec_env: dummy"
        )
    if config.wild_cards != "none":  # B25: strength, category and percentile are 3 tables here
        raise ValueError(
            f"BatchedBrag does not support wild_cards={config.wild_cards!r}; use vec_env: dummy"
        )


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
        self._mults = np.array(config.raise_sizes, np.int64)
        self._cover = config.cover_action  # -1 without cover_pot
        self._ante = config.ante if config.ante_mode != "none" else 0
        self._strengths = LOWBALL_STRENGTH_TABLE if config.lowball else STRENGTH_TABLE
        # B1: the pack in order (the k highest ranks under deck_ranks); each deck is a ring of
        # its size
        self._pack = np.array(config.deck_cards(), np.int8)
        self._deck_size = config.deck_size
        self._inv_chips = 1.0 / config.starting_chips
        self._inv_stake = 1.0 / config.max_stake
        self._seat_ids = np.arange(n)
        self._table_ids = np.arange(t)
        self._build_state_layout(config)
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
        self.current = np.full(t, -1, np.int64)  # -1: the session is over
        self.stake = np.zeros(t, np.int64)
        self.pot = np.zeros(t, np.int64)
        self.active = np.zeros(t, np.int64)  # seats still in the betting (blind or open)
        self.events = np.zeros(t, np.int64)  # public events this hand (the history ring head)
        # B16: who covered, in order, and the pot each cover closed.
        self.covered_pot = np.zeros((t, n), np.int64)
        self.has_covered = np.zeros((t, n), bool)
        self.cover_order = np.zeros((t, n), np.int64)
        self.num_covers = np.zeros(t, np.int64)
        self.last_closed = np.zeros(t, np.int64)
        self.hands_played = np.zeros(t, np.int64)
        self._init_sessions(config)
        self.state = np.zeros((t, self._state_size), np.float32)
        self._flat = self.state.reshape(-1)
        self._row_base = self._table_ids * self._state_size
        self.private = np.zeros((t, n, _PRIVATE), np.float32)  # B10: zero until looked
        self._masks_of: tuple[np.ndarray, np.ndarray] | None = None  # the last masks() call
        self._private_flat = self.private.reshape(-1)

    # ------------------------------------------------------------ state layout
    def _build_state_layout(self, config: BragConfig) -> None:
        """The state row's offsets, the seat rotations and the state of a fresh deal."""
        layout = observation_layout(config)
        n, a = config.num_players, config.num_actions
        self.obs_size = size = layout.size
        off = self._off = {name: f.offset for name, f in layout.fields.items()}
        self._state_size = size
        # _perm[me]: the state column of each element of seat me's view (seat rows rotated)
        perm = np.tile(np.arange(size), (n, 1))
        for me in range(1, n):
            for name in SEAT_FIELDS:
                f = layout.fields.get(name)
                if f is None:
                    continue
                w = f.size // n
                for r in range(n):
                    s = (me + r) % n
                    perm[me, f.offset + r * w : f.offset + (r + 1) * w] = (
                        f.offset + s * w + np.arange(w)
                    )
            start = off["history_seat"]
            for j in range(HISTORY_LEN):
                slot = start + j * n
                perm[me, slot : slot + n] = slot + (me + np.arange(n)) % n
        # Only the seat rows move: the column ranges where some rotation differs (short gaps
        # merged: slices are cheaper to write than scattered columns), and their sources.
        moved = np.flatnonzero((perm != perm[0]).any(axis=0))
        cuts = np.flatnonzero(np.diff(moved) > 8) + 1
        # (start, end) of each range and its source columns per observer, perm[me, start:end]
        self._moved = [
            ((int(m[0]), int(m[-1]) + 1), perm[:, m[0] : m[-1] + 1].copy())
            for m in np.split(moved, cuts)
        ]
        # the history fields (contiguous), most recent event first: (start within the span,
        # width of one event)
        start = off["history_seat"]
        self._history_span = (start, off["history_paid"] + HISTORY_LEN)
        self._history = [
            (0, n),
            (off["history_action"] - start, a),
            (off["history_paid"] - start, 1),
        ]
        # the state of a fresh deal (before the dealer and the first player are marked)
        cfg, inv = config, 1.0 / config.starting_chips
        start = np.zeros(size, np.float32)
        status = BLIND if cfg.allow_blind else OPEN
        start[off["seat_status"] + 4 * np.arange(n) + status] = 1.0
        ante = cfg.ante if cfg.ante_mode != "none" else 0
        start[off["seat_chips"] : off["seat_chips"] + n] = (cfg.starting_chips - ante) * inv
        start[off["seat_chips_in"] : off["seat_chips_in"] + n] = ante * inv
        start[off["stake"]] = cfg.min_stake * (1.0 / cfg.max_stake)
        start[off["pot"]] = ante * n * inv
        self._start_state = start

    def _put(self, rows: np.ndarray, positions, values) -> None:
        self._flat[self._row_base[rows] + positions] = values

    def _put_private(self, rows: np.ndarray, seats: np.ndarray) -> None:
        """B10: the seat's own cards, category and strength, once it has looked."""
        block = (rows * self.num_players + seats) * _PRIVATE
        flat = self._private_flat
        flat[block[:, None] + self.hands[rows, seats]] = 1.0
        flat[block + NUM_CARDS + self.category[rows, seats]] = 1.0
        flat[block + _PRIVATE - 1] = self.percentile[rows, seats]

    # ------------------------------------------------------------------ deals
    def _draw_dealers(self, rows: np.ndarray) -> np.ndarray:
        """The dealer of each new session (uniform: the B7 cut's distribution)."""
        return self.rng.integers(self.num_players, size=rows.size)

    def _draw_deals(self, rows: np.ndarray) -> np.ndarray:
        """The 3n dealt cards of each table, the top of a uniformly shuffled deck first (B18):
        the first 3n steps of a Fisher-Yates shuffle, one vector step per card."""
        dealt, k = _HAND * self.num_players, rows.size
        deck = np.broadcast_to(self._pack, (k, self._deck_size)).copy()
        flat = deck.reshape(-1)
        base = np.arange(0, k * self._deck_size, self._deck_size)
        uniforms = self.rng.random((dealt, k))
        for i in range(dealt):
            here = base + i
            there = here + (uniforms[i] * (self._deck_size - i)).astype(np.int64)
            card = flat[there]
            flat[there] = flat[here]
            flat[here] = card
        return deck[:, :dealt].astype(np.int64)

    def deck_top(self, row: int) -> list[int]:
        """The dealt cards of table ``row`` in deal order (to stack a scalar game's deck;
        in a session, before a B19 choice changes a hand)."""
        n, d = self.num_players, int(self.dealer[row])
        seats = [(d + 1 + j) % n for j in range(n)]
        if self._sessions:
            seats = self.order[row, : self.in_hand[row]].tolist()
        return [int(self.hands[row, s, i]) for i in range(_HAND) for s in seats]

    def reset(self, rows: np.ndarray | None = None, decks=None, dealers=None) -> None:
        """Start new sessions on ``rows`` (default: every table). In multi-hand sessions
        ``decks`` (one permutation of the 52 cards per row, top first) and ``dealers`` (the
        first hand's) may stack the deal, as ``brag_v1``'s ``deck`` and ``dealer`` options."""
        rows = self._table_ids if rows is None else checked_rows(rows, self.n)
        if rows.size == 0:
            return
        self._masks_of = None
        if self._sessions:
            self._new_sessions(rows, decks, dealers)
            return
        if decks is not None or dealers is not None:
            raise ValueError("decks and dealers: only for hands_per_session > 1")
        cfg, n = self.config, self.num_players
        dealer = self._draw_dealers(rows)
        cards = self._draw_deals(rows)  # (k, 3n): B9, one at a time from the dealer's left
        seat_of = (dealer[:, None] + 1 + self._seat_ids) % n  # deal position j -> seat
        hands = np.empty((rows.size, n, _HAND), np.int64)
        k = np.arange(rows.size)[:, None]
        for i in range(_HAND):
            hands[k, seat_of, i] = cards[:, i * n : (i + 1) * n]
        self.hands[rows] = hands
        self._rank(rows[:, None], self._seat_ids)
        first = (dealer + 1) % n  # B12: the first bet is left of the dealer
        self.dealer[rows] = dealer
        self.status[rows] = BLIND if cfg.allow_blind else OPEN  # B10
        self.chips_before[rows] = cfg.starting_chips
        self.chips[rows] = cfg.starting_chips - self._ante  # B8
        self.contributed[rows] = self._ante
        self.pot[rows] = self._ante * n
        self.active[rows] = n
        self.current[rows] = first
        self._clear_hand(rows)
        self.state[rows] = self._start_state
        self.private[rows] = 0.0
        o = self._off
        self._put(rows, o["seat_dealer"] + dealer, 1.0)
        self._put(rows, o["seat_to_act"] + first, 1.0)
        if not cfg.allow_blind:  # everyone has seen its cards from the start
            for s in range(n):
                self._put_private(rows, np.full(rows.size, s))

    def _clear_hand(self, rows: np.ndarray) -> None:
        """What every new hand starts from: the opening stake (B11), no actions, no covers."""
        self.stake[rows] = self.config.min_stake
        self.last_action[rows] = -1
        self.events[rows] = 0
        self.covered_pot[rows] = 0
        self.has_covered[rows] = False
        self.num_covers[rows] = 0
        self.last_closed[rows] = 0

    def settled(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Whether each seat's chip change for the rest of the session is final before the
        session ends: on its last hand it folded (a coverer's hand is still compared, B16)
        and no B20 bonus can be asked of it, or it sits out (B16). ``chips - chips_before``
        is then its reward for the hand on the table, and no later hand changes its chips."""
        live = self.current[rows] >= 0
        folded = (self.status[rows, seats] == FOLDED) & ~self.has_covered[rows, seats]
        final = folded & live & (not self.config.prial_bonus)
        if self._sessions:  # a later hand of the session may still change its chips
            final &= self.hand_number[rows] + 1 >= self.config.hands_per_session
            final |= live & (self.status[rows, seats] == SITTING_OUT)
        return final

    # --------------------------------------------------------------- sessions
    def _init_sessions(self, config: BragConfig) -> None:
        """The per-table arrays of multi-hand sessions (B8, B15-B19)."""
        t, n = self.n, self.num_players
        self._sessions = config.hands_per_session > 1
        self._keep_id = config.keep_old_hand_action
        self._take_id = config.take_new_hand_action
        self._carry_blind = config.blind_alone == "carries"
        self._carry_unopened = config.unopened_pot == "carries"
        self._inv_hands = 1.0 / config.hands_per_session
        self.out = np.zeros((t, n), bool)  # B16: sits out for the rest of the session
        self.hand_number = np.zeros(t, np.int64)
        self.order = np.zeros((t, n), np.int64)  # the seats dealt in, from the dealer's left
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

    def deck_cards(self, row: int) -> list[int]:
        """Table ``row``'s undealt cards, top first (sessions only; for tests)."""
        head, size = int(self.deck_head[row]), int(self.deck_len[row])
        return [int(self.deck[row, (head + j) % self._deck_size]) for j in range(size)]

    def _rank(self, r: np.ndarray, s: np.ndarray) -> None:
        """Strength, category and percentile of the hands at (``r``, ``s``) (broadcast)."""
        h = self.hands[r, s]
        flat = h[..., 0] * _STRIDE_A + h[..., 1] * _STRIDE_B + h[..., 2]
        strength = self._strengths.take(flat).astype(np.int64)
        self.strength[r, s] = strength
        self.category[r, s] = CATEGORY_OF_STRENGTH.take(STRENGTH_TABLE.take(flat))
        cfg = self.config
        self.percentile[r, s] = strength_percentile(strength, cfg.lowball, cfg.deck_ranks)

    def _new_sessions(self, rows: np.ndarray, decks=None, dealers=None) -> None:
        """B7/B17/B18: starting stacks, a drawn dealer, a shuffled deck, the first hand."""
        decks, dealers = self._stacked(rows, decks, dealers)  # checked before any draw
        keys = self.rng.random((rows.size, self._deck_size))
        dealer = self._draw_dealers(rows) if dealers is None else dealers
        order = self._pack.astype(np.int64)[keys.argsort(axis=1)]  # a uniform order
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
        """``reset``'s ``decks`` and ``dealers`` as int64 arrays (or None), or the one-line
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

    def _to_bottom(self, rows: np.ndarray, cards: np.ndarray, valid: np.ndarray) -> None:
        """B18: the ``valid`` ones of each row's ``cards`` under its deck, first one first."""
        at = (self.deck_head[rows] + self.deck_len[rows])[:, None] + valid.cumsum(axis=1) - 1
        i, j = np.nonzero(valid)
        self.deck[rows[i], at[i, j] % self._deck_size] = cards[i, j]
        self.deck_len[rows] += valid.sum(axis=1)

    def _threshold(self, prial: np.ndarray) -> np.ndarray:
        """B8/B16: the chips a seat needs to play the next hand: the ante when one is due
        (under ``after_prial`` only after a shown prial), else 1."""
        cfg = self.config
        ante = max(cfg.ante, 1)
        if cfg.ante_mode == "every_hand":
            return np.full(prial.size, ante)
        if cfg.ante_mode == "after_prial":
            return np.where(prial, ante, 1)
        return np.ones(prial.size, np.int64)

    def _carries(self, r: np.ndarray, lone: np.ndarray, ncov: np.ndarray) -> np.ndarray:
        """B15: the pot stays for the next deal: a blind player left alone under
        ``blind_alone="carries"`` or a pot nobody paid a stake into under
        ``unopened_pot="carries"``, never with a cover (B16), never out of the session and
        never to a deal the lone player will not play in (short of the next ante)."""
        k = r.size
        may = ncov == 0
        blind = self.status[r, lone] == BLIND if self._carry_blind else np.zeros(k, bool)
        unopened = ~self.opened[r] if self._carry_unopened else np.zeros(k, bool)
        may &= blind | unopened
        need = self._threshold(np.zeros(k, bool))  # no see, no cover: no prial shown
        chips = self.chips[r]
        left = (~self.out[r] & (chips >= need[:, None])).sum(axis=1)
        goes_on = (self.hand_number[r] + 1 < self.config.hands_per_session) & (left >= 2)
        return may & goes_on & (chips[np.arange(k), lone] >= need)

    def _end_hands(self, i, r, lone, see, rewards, over) -> None:
        """B16-B19 after a hand of a session: who sits out, the cards under the deck, the
        kept hand, and the next hand dealt at once, or the session's end."""
        cfg, n = self.config, self.num_players
        k = r.size
        kk = np.arange(k)
        shown = self.has_covered[r]  # B16: every hand compared for a covered pot is shown
        c = np.flatnonzero(self.num_covers[r] > 0)
        shown[c, lone[c]] = True
        if see is not None:
            shown[kk, see[0]] = True
            shown[kk, see[1]] = True
        prial = (shown & (self.category[r] == PRIAL)).any(axis=1)
        self.prev_prial[r] = prial
        self.out[r] |= self.chips[r] < self._threshold(prial)[:, None]
        follows = self.hand_number[r] + 1 < cfg.hands_per_session
        follows &= (~self.out[r]).sum(axis=1) >= 2
        keep = np.zeros(k, bool)
        if see is None and cfg.blind_keep_hand:  # B19: a blind player left alone
            keep = follows & (self.num_covers[r] == 0) & (self.status[r, lone] == BLIND)
            keep &= ~self.out[r, lone]
        keeper = np.where(keep, lone, -1)
        # B18: the hand's cards under the deck, each round seat by seat from the dealer's
        # left, as dealt (a B19 choice: the chosen hand); a kept hand stays out
        order, m = self.order[r], self.in_hand[r]
        cards = self.hands[r[:, None], order].transpose(0, 2, 1).reshape(k, _HAND * n)
        valid = (self._seat_ids < m[:, None]) & (order != keeper[:, None])
        self._to_bottom(r, cards, np.tile(valid, _HAND))
        self.kept[r[keep]] = self.hands[r[keep], lone[keep]]
        self.keeper[r] = keeper
        self.prev_delta[r] = rewards[i]
        if see is None:
            self.prev_see[r] = -1
        else:
            self.prev_see[r, 0], self.prev_see[r, 1] = see
            self.prev_cards[r, 0] = self.hands[r, see[0]]
            self.prev_cards[r, 1] = self.hands[r, see[1]]
        end = ~follows
        over[i[end]] = True
        self.current[r[end]] = -1
        f = np.flatnonzero(follows)
        if f.size:  # B7/B16: the button moves to the next seat still playing
            rf = r[f]
            seats = (self.dealer[rf][:, None] + 1 + self._seat_ids) % n
            playing = ~self.out[rf[:, None], seats]
            self._start_hands(rf, seats[np.arange(f.size), playing.argmax(axis=1)])

    def _start_hands(self, rows: np.ndarray, dealer: np.ndarray) -> None:
        """The next hand of each session on ``rows``, ``dealer`` dealing: B18's shuffle, the
        antes (B8), the deal (B9) to the seats still playing (B16), and its state row."""
        cfg, n, o = self.config, self.num_players, self._off
        k = rows.size
        hand = self.hand_number[rows] = self.hand_number[rows] + 1
        first = hand == 0
        after_prial = self.prev_prial[rows] & ~first
        if cfg.ante_mode == "every_hand":
            ante = np.full(k, cfg.ante)
        elif cfg.ante_mode == "after_prial":
            ante = np.where(first | after_prial, cfg.ante, 0)
        else:
            ante = np.zeros(k, np.int64)
        if cfg.shuffle == "every_hand":
            shuffle = ~first
        else:
            shuffle = after_prial
            if cfg.shuffle == "after_prial_or_cycle":
                shuffle = shuffle | (~first & (self.dealt_since[rows] >= self._deck_size))
        j = np.flatnonzero(shuffle)
        if j.size:
            self._shuffle(rows[j])
        self.shuffled[rows] = shuffle
        fresh = first | shuffle
        self.dealt_since[rows[fresh]] = 0
        sc = o["shown_cards"]
        shown = self.state[rows, sc : sc + NUM_CARDS]  # a copy: shown since the shuffle
        shown[fresh] = 0.0
        # B9/B16: the seats still playing, from the dealer's left (the dealer last)
        seats = (dealer[:, None] + 1 + self._seat_ids) % n
        sitting = self.out[rows[:, None], seats]
        order = np.take_along_axis(seats, sitting.argsort(axis=1, kind="stable"), axis=1)
        m = n - sitting.sum(axis=1)
        self.order[rows] = order
        self.in_hand[rows] = m
        playing = ~self.out[rows]
        chips = self.chips[rows]
        self.chips_before[rows] = chips
        paid = np.where(playing, ante[:, None], 0)
        chips = self.chips[rows] = chips - paid
        self.contributed[rows] = paid
        head = self.deck_head[rows]
        # one card at a time, three rounds: card c of deal position j is the (c * m + j)-th
        spot = head[:, None, None] + np.arange(_HAND)[:, None] * m[:, None, None] + self._seat_ids
        cards = np.take_along_axis(self.deck[rows], spot.reshape(k, -1) % self._deck_size, axis=1)
        i, j = np.nonzero(self._seat_ids < m[:, None])
        self.hands[rows[i], order[i, j]] = cards.reshape(k, _HAND, n)[i, :, j]
        dealt = _HAND * m
        self.deck_head[rows] = (head + dealt) % self._deck_size
        self.deck_len[rows] -= dealt
        self.dealt_since[rows] += dealt
        self._rank(rows[:, None], self._seat_ids)
        status = BLIND if cfg.allow_blind else OPEN  # B10
        self.status[rows] = np.where(playing, status, SITTING_OUT)
        pot = self.pot[rows] = ante * m + self.carry_in[rows]  # B15: a carried pot stays
        self.dealer[rows] = dealer
        self.active[rows] = m
        self._clear_hand(rows)
        self.opened[rows] = False
        choosing = self.choosing[rows] = self.keeper[rows] >= 0  # B19: the choice first
        current = self.current[rows] = np.where(choosing, self.keeper[rows], order[:, 0])
        # the state row: a fresh deal's, then what differs in this session
        inv = self._inv_chips
        self.state[rows] = self._start_state
        self.private[rows] = 0.0
        for s in range(n):
            j = rows[~playing[:, s]]
            if j.size:
                self._put(j, o["seat_status"] + 4 * s + status, 0.0)
                self._put(j, o["seat_status"] + 4 * s + SITTING_OUT, 1.0)
        at = o["seat_chips"]
        self.state[rows, at : at + n] = chips * inv
        at = o["seat_chips_in"]
        self.state[rows, at : at + n] = paid * inv
        self.state[rows, o["pot"]] = pot * inv
        self.state[rows, o["hand_number"]] = hand * self._inv_hands
        self.state[rows, o["choice_pending"]] = choosing
        self.state[rows, sc : sc + NUM_CARDS] = shown
        self._put(rows, o["seat_dealer"] + dealer, 1.0)
        self._put(rows, o["seat_to_act"] + current, 1.0)
        later = rows[~first]
        if later.size:
            self._put_previous(later)
        if not cfg.allow_blind:  # everyone has seen its cards from the start
            for s in range(n):
                j = rows[playing[:, s]]
                self._put_private(j, np.full(j.size, s))

    def _put_previous(self, rows: np.ndarray) -> None:
        """The prev_* block: the last hand's chip changes (won, lost) and its see."""
        o, n, inv = self._off, self.num_players, self._inv_chips
        delta = self.prev_delta[rows]
        at = o["prev_seat_change"]
        self.state[rows, at : at + 2 * n : 2] = np.maximum(delta, 0) * inv
        self.state[rows, at + 1 : at + 2 * n : 2] = np.maximum(-delta, 0) * inv
        saw = rows[self.prev_see[rows, 0] >= 0]
        if saw.size:  # B14: both hands were shown
            self.state[saw, o["prev_by_see"]] = 1.0
            at = o["prev_seat_see"]
            self._put(saw, at + 2 * self.prev_see[saw, 0], 1.0)
            self._put(saw, at + 2 * self.prev_see[saw, 1] + 1, 1.0)
            at = o["prev_shown_cards"]
            self._put(saw[:, None], at + self.prev_cards[saw, 0], 1.0)
            self._put(saw[:, None], at + NUM_CARDS + self.prev_cards[saw, 1], 1.0)

    def _choose(self, r, q, keep, row_base) -> None:
        """B19: the keeper takes the kept hand or the new one, unseen; the other goes under
        the deck, and the betting starts left of the dealer."""
        new, old = self.hands[r, q], self.kept[r]
        under = np.where(keep[:, None], new, old)
        self._to_bottom(r, under, np.ones(under.shape, bool))
        j = np.flatnonzero(keep)
        if j.size:
            self.hands[r[j], q[j]] = old[j]
            self._rank(r[j], q[j])
        self.keeper[r] = -1
        self.choosing[r] = False
        first = self.current[r] = self.order[r, 0]
        o, flat = self._off, self._flat
        flat[row_base + o["choice_pending"]] = 0.0
        flat[row_base + o["seat_to_act"] + q] = 0.0
        flat[row_base + o["seat_to_act"] + first] = 1.0

    # ------------------------------------------------------------------ masks
    def _opponent(self, rows: np.ndarray, p: np.ndarray) -> np.ndarray:
        """The other seat still in (meaningful where two are in)."""
        inn = self.status[rows] >= BLIND
        inn[np.arange(rows.size), p] = False
        return inn.argmax(axis=1)

    def masks(self, rows: np.ndarray | None = None) -> np.ndarray:
        """int8 legal-action masks of the seat to act (all zero on finished tables)."""
        rows = self._table_ids if rows is None else checked_rows(rows, self.n)
        cfg = self.config
        out = np.zeros((rows.size, self.num_actions), np.int8)
        live = self.current[rows] >= 0
        if not live.all():
            idx = np.flatnonzero(live)
            out[idx] = self.masks(rows[idx])
            return out
        p = self.current[rows]
        s = self.stake[rows]
        c = self.chips[rows, p]
        blind = self.status[rows, p] == BLIND
        price = np.where(blind, s >> 1, s)  # B11: a stay costs S open, S/2 blind
        short = c < price  # B16: only fold (and cover; a blind seat may look first)
        ok = ~short
        out[:, FOLD] = 1
        out[:, STAY] = ok
        out[:, LOOK] = blind if self._cover >= 0 else blind & ok  # B16: short: fold only
        if self._cover >= 0:
            out[:, self._cover] = short
        two = self.active[rows] == 2
        if two.any():
            opp_status = self.status[rows, self._opponent(rows, p)]
            sees_blind = (c >= s) & (cfg.blind_may_see_open | (opp_status == BLIND))
            sees_open = (c >= 2 * s) & (opp_status == OPEN)  # nobody sees a blind from open
            out[:, SEE] = ok & two & np.where(blind, sees_blind, sees_open)  # B14
        for i, m in enumerate(self._mults.tolist()):  # B13: the raise ladder
            new = m * s
            legal = ok & (new <= cfg.max_stake) & (np.where(blind, new >> 1, new) <= c)
            if cfg.pot_limit:
                legal &= new <= self.pot[rows]
            out[:, FIRST_RAISE + i] = legal
        if self._sessions:  # B19: the keeper's choice comes before the betting
            c = self.choosing[rows]
            if c.any():
                out[c] = 0
                out[c, self._keep_id] = 1
                out[c, self._take_id] = 1
        self._masks_of = (rows.copy(), out.copy())  # step() checks the actions against these
        return out

    # ------------------------------------------------------------------- step
    def step(self, rows: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Apply each row's action for its seat to act. Returns ``(rewards, over)``: the
        rewards (k, n) per seat of this step (every seat's chip change when its hand ends, as
        brag_v1 pays them) and whether the session ended. An illegal action raises
        ``ValueError`` before anything changes."""
        rows = checked_rows(rows, self.n)
        actions = checked_actions(actions, rows)
        known, self._masks_of = self._masks_of, None  # the state changes: masks() again
        if known is not None and known[0].shape == rows.shape and np.array_equal(known[0], rows):
            legal = known[1]  # the masks the caller just asked for (the usual loop)
        else:
            legal = self.masks(rows)
            self._masks_of = None
        ok = (actions >= 0) & (actions < self.num_actions)
        ok[ok] = legal[np.flatnonzero(ok), actions[ok]] == 1
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            raise ValueError(
                f"illegal action {int(actions[bad])} on table {int(rows[bad])}; legal: "
                f"{np.flatnonzero(legal[bad]).tolist()}"
            )
        n, o, inv = self.num_players, self._off, self._inv_chips
        rewards = np.zeros((rows.size, n))
        over = np.zeros(rows.size, bool)
        p = self.current[rows]
        row_base = self._row_base[rows]
        flat = self._flat
        # the seat's last action (one-hot: the old one cleared)
        last_at = row_base + o["seat_last_action"] + p * self.num_actions
        old = self.last_action[rows, p]
        had = old >= 0
        flat[(last_at + old)[had]] = 0.0
        flat[last_at + actions] = 1.0
        self.last_action[rows, p] = actions
        paid = np.zeros(rows.size, np.int64)
        raised = (actions >= FIRST_RAISE) & (actions < FIRST_RAISE + self._mults.size)
        bet = (actions == STAY) | raised
        see = actions == SEE
        cover = actions == self._cover if self._cover >= 0 else np.zeros(rows.size, bool)
        i = np.flatnonzero(bet | see | cover)
        if i.size:  # B11/B13/B14/B16: chips into the pot
            r, q, a, b = rows[i], p[i], actions[i], row_base[i]
            up = raised[i]
            m = self._mults[np.where(up, a - FIRST_RAISE, 0)]
            s = self.stake[r] = np.where(up, m * self.stake[r], self.stake[r])
            blind = self.status[r, q] == BLIND
            cost = np.where(blind, s >> 1, s)
            cost = np.where(a == SEE, np.where(blind, s, 2 * s), cost)  # B14: a see pays double
            cost = np.where(cover[i], self.chips[r, q], cost)  # B16: every chip left
            chips = self.chips[r, q] = self.chips[r, q] - cost
            put_in = self.contributed[r, q] = self.contributed[r, q] + cost
            pot = self.pot[r] = self.pot[r] + cost
            paid[i] = cost
            if self._sessions:  # B15: the pot is opened once someone pays a stake
                self.opened[r] |= cost > 0
            flat[b + o["seat_chips"] + q] = chips * inv
            flat[b + o["seat_chips_in"] + q] = put_in * inv
            flat[b + o["stake"]] = s * self._inv_stake
            flat[b + o["pot"]] = pot * inv
        i = np.flatnonzero(actions == LOOK)
        if i.size:  # B10: the turn stays with the player, now open
            r, q = rows[i], p[i]
            self.status[r, q] = OPEN
            status_at = row_base[i] + o["seat_status"] + 4 * q
            flat[status_at + BLIND] = 0.0
            flat[status_at + OPEN] = 1.0
            self._put_private(r, q)
        self._push(rows, row_base, p, actions, paid)
        if self._sessions:
            i = np.flatnonzero((actions == self._keep_id) | (actions == self._take_id))
            if i.size:
                self._choose(rows[i], p[i], actions[i] == self._keep_id, row_base[i])
        out = (actions == FOLD) | cover
        i = np.flatnonzero(out)
        if i.size:  # B12/B16: out of the betting (a coverer's hand stays on the pot)
            r, q = rows[i], p[i]
            status_at = row_base[i] + o["seat_status"] + 4 * q
            flat[status_at + self.status[r, q]] = 0.0
            flat[status_at + FOLDED] = 1.0
            self.status[r, q] = FOLDED
            self.active[r] -= 1
            c = np.flatnonzero(cover[i])
            if c.size:
                rc, qc, bc = r[c], q[c], row_base[i][c]
                closed = self.pot[rc]
                self.covered_pot[rc, qc] = closed
                self.has_covered[rc, qc] = True
                self.last_closed[rc] = closed
                self.cover_order[rc, self.num_covers[rc]] = qc
                self.num_covers[rc] += 1
                flat[bc + o["seat_covered"] + qc] = 1.0
                flat[bc + o["seat_covered_pot"] + qc] = closed * inv
        if self._cover >= 0:  # B16: the side pot: chips beyond the last covered pot
            c = np.flatnonzero(self.num_covers[rows] > 0)
            if c.size:
                rc = rows[c]
                flat[row_base[c] + o["side_pot"]] = (self.pot[rc] - self.last_closed[rc]) * inv
        ends = out & (self.active[rows] == 1)
        passes = (bet | out) & ~ends
        i = np.flatnonzero(passes)
        if i.size:  # B12: the turn passes to the next seat still in
            r = rows[i]
            seats = (p[i, None] + 1 + self._seat_ids) % n
            inn = self.status[r[:, None], seats] >= BLIND
            nxt = self.current[r] = seats[np.arange(r.size), inn.argmax(axis=1)]
            flat[row_base[i] + o["seat_to_act"] + p[i]] = 0.0
            flat[row_base[i] + o["seat_to_act"] + nxt] = 1.0
        i = np.flatnonzero(ends)
        if i.size:  # B15/B16: the last player in wins (and meets every coverer)
            r = rows[i]
            lone = (self.status[r] >= BLIND).argmax(axis=1)
            self._finish(i, r, lone, None, rewards, over)
        i = np.flatnonzero(see)
        if i.size:  # B14: the seen player wins ties
            r, q = rows[i], p[i]
            opp = self._opponent(r, q)
            beats = self.strength[r, q] > self.strength[r, opp]
            self._finish(i, r, np.where(beats, q, opp), (q, opp), rewards, over)
        return rewards, over

    def _push(self, rows, row_base, p, actions, paid) -> None:
        """A public event at the head of the history; the oldest of HISTORY_LEN drops off."""
        a, b = self._history_span
        if rows.size == self.n:  # every table: in blocks of rows, so that the copy numpy
            # makes of an overlapping source stays in cache
            for first in range(0, self.n, _SHIFT_ROWS):
                self._shift(self.state[first : first + _SHIFT_ROWS, a:b])
        else:
            block = self.state[rows, a:b]
            self._shift(block)
            self.state[rows, a:b] = block
        o, flat = self._off, self._flat
        flat[row_base + o["history_seat"] + p] = 1.0
        flat[row_base + o["history_action"] + actions] = 1.0
        flat[row_base + o["history_paid"]] = paid * self._inv_chips
        self.events[rows] += 1

    def _shift(self, block: np.ndarray) -> None:
        """Every history field of these state rows one event older (slot 0 cleared)."""
        for start, w in self._history:
            end = start + HISTORY_LEN * w
            block[:, start + w : end] = block[:, start : end - w]
            block[:, start : start + w] = 0.0

    def _finish(self, i, r, lone, see, rewards, over) -> None:
        """The hand (and the one-hand session) ends: pay the pots, show, reward every seat."""
        pot = self.pot[r]
        self.pot[r] = 0
        ncov = self.num_covers[r]
        won = pot - self.last_closed[r]
        if self._sessions:  # B15: a pot left alone may stay on the table for the next deal
            carry = self._carries(r, lone, ncov) if see is None else np.zeros(r.size, bool)
            won = np.where(carry, 0, won)
            self.carry_in[r] = np.where(carry, pot, 0)
        # B16: the side pot to the betting's winner, then each covered pot from the last
        # closed outwards to the better of its coverer and the winner so far (ties: not the
        # coverer). Without covers the whole pot is the "side pot".
        self.chips[r, lone] += won
        champion = lone.copy()
        for j in range(int(ncov.max()) - 1, -1, -1):
            has = ncov > j
            coverer = self.cover_order[r, j]
            closed = self.covered_pot[r, coverer]
            before = self.covered_pot[r, self.cover_order[r, max(j - 1, 0)]] if j else 0
            better = self.strength[r, coverer] > self.strength[r, champion]
            champion = np.where(has & better, coverer, champion)
            self.chips[r, champion] += np.where(has, closed - before, 0)
        o, flat = self._off, self._flat
        shown_at = self._row_base[r][:, None] + o["shown_cards"]
        if see is not None:
            seer, seen = see
            flat[shown_at + self.hands[r, seer]] = 1.0
            flat[shown_at + self.hands[r, seen]] = 1.0
            self._bonus(r, lone)
        c = np.flatnonzero(ncov > 0)
        if c.size:  # B16: every hand compared for a covered pot is shown
            rc = r[c]
            flat[shown_at[c] + self.hands[rc, lone[c]]] = 1.0
            for j in range(self.num_players):
                has = c[self.num_covers[rc] > j]
                if has.size:
                    seats = self.cover_order[r[has], j]
                    flat[shown_at[has] + self.hands[r[has], seats]] = 1.0
        b = self._row_base[r]
        chips_at = o["seat_chips"]
        self.state[r, chips_at : chips_at + self.num_players] = self.chips[r] * self._inv_chips
        flat[b + o["pot"]] = 0.0
        if self._cover >= 0:
            flat[b + o["side_pot"]] = 0.0
        flat[b + o["seat_to_act"] + self.current[r]] = 0.0
        rewards[i] = self.chips[r] - self.chips_before[r]
        self.hands_played[r] += 1
        if self._sessions:
            self._end_hands(i, r, lone, see, rewards, over)
            return
        over[i] = True
        self.current[r] = -1

    def _bonus(self, r: np.ndarray, winner: np.ndarray) -> None:
        """B20: a see won with a prial or running flush collects the bonus from every other
        seat, never more than it holds."""
        due = self.config.prial_bonus
        if not due:
            return
        cat = self.category[r, winner]
        due_here = (cat == PRIAL) | (cat == RUNNING_FLUSH)
        pays, w = r[due_here], winner[due_here]
        for s in range(self.num_players):
            payer = (w != s) & (self.status[pays, s] != SITTING_OUT)  # dealt into the hand
            rs, ws = pays[payer], w[payer]
            pay = np.minimum(due, self.chips[rs, s])
            self.chips[rs, s] -= pay
            self.chips[rs, ws] += pay

    # ------------------------------------------------------------ observation
    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray | None = None):
        """Each row's observation for ``seats`` (absolute), bit-equal to brag_v1's: the
        state rows, their seat rows rotated to the observer and the observer's private block
        (see the module docstring)."""
        rows = checked_rows(rows, self.n)
        seats = checked_seats(seats, rows, self.num_players)
        k = rows.size
        out = np.empty((k, self.obs_size), np.float32) if out is None else out[:k]
        in_order = k == self.n and (rows == self._table_ids).all()
        for first in range(0, k, _OBSERVE_ROWS):  # a block of the output stays in cache
            last = min(first + _OBSERVE_ROWS, k)
            block = slice(first, last) if in_order else None
            self._observe_block(block, rows[first:last], seats[first:last], out[first:last])
        return out

    def _observe_block(self, block, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        """``observe`` of a block of rows (``block``: their slice of the tables when they are
        consecutive tables in order, else None)."""
        if block is not None:
            np.copyto(out, self.state[block])
        else:
            np.take(self.state, rows, axis=0, out=out, mode="clip")  # checked: unbuffered
        moved = self._moved
        if self.num_players <= 4:  # by observer (seat 0's view is the state row itself):
            for me in range(1, self.num_players):  # faster for few seats, slower for many
                idx = np.flatnonzero(seats == me)
                if idx.size:
                    at = rows[idx, None]
                    for (start, end), sources in moved:
                        out[idx, start:end] = self.state[at, sources[me]]
        else:  # every row at once, each column through its observer's source
            base = self._row_base[rows][:, None]
            for (start, end), sources in moved:
                index = sources[seats]
                index += base
                out[:, start:end] = self._flat.take(index)
        out[:, :_PRIVATE] = self.private[rows, seats]
