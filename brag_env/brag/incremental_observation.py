"""Brag observations kept up to date event by event: the env's fast path.

``BragObserver.set_from`` (``brag_env.brag.observation``) rebuilds a player's whole vector from the
game at every call; it is the reference. ``IncrementalObserver.observation`` returns the same
vectors (``tests/test_fastpaths_brag.py`` compares them on many random states) for less work:

- It keeps ONE table-wide ``state`` buffer in absolute seat order: the public fields at the
  offsets of the observation layout, then one private block per seat (its cards, category and
  strength, and with B25's wild cards which of them are wild, left zero until that seat has
  looked, B10), then the hand's public events in a ring
  of ``HISTORY_LEN`` rows (absolute seat one-hot, action one-hot, chips paid).
- A player's vector is one numpy gather, ``state[index[player][head]]``. The index arrays,
  built once per observer and ring position, hold the rotation to relative seats, the "most
  recent first" order of the history and the choice of private block. The gather returns a new
  array, so no separate copy is needed.
- Between two calls only what new events touched is rewritten. Every decision appends one event
  to ``game.betting`` and, unless it ends the hand, changes only the acting seat's row, its
  private block (a look, a B19 choice), the stake, the pot, the seat to act and the B19 flag.
  A finished hand that ends the session also refreshes every stack and the shown cards.
  Anything else (another game object, a new hand or session) rebuilds the state from the game,
  including the previous-hand block (``BragObserver.write_previous_hand``), which is constant
  during a hand.

The game must change only through ``BragGame.apply`` / ``new_session`` (as inside ``brag_v1``):
state written into the game's attributes by hand is not noticed. Use ``BragObserver.set_from``
for such games.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from brag_env.brag.game import FOLDED, OPEN
from brag_env.brag.hands import CATEGORY_NAMES
from brag_env.brag.observation import (
    HISTORY_LEN,
    SEAT_FIELDS,
    STATUS_NAMES,
    BragObserver,
    _hand_features,
    observation_layout,
    side_pot,
)
from brag_env.brag.rules import LOOK, BragConfig
from brag_env.brag.wild import config_ranking
from brag_env.cards import NUM_CARDS

_PRIVATE = NUM_CARDS + len(CATEGORY_NAMES) + 1  # own cards, own category, own strength
_STATUSES = len(STATUS_NAMES)  # width of a seat's status one-hot


class IncrementalObserver:
    """Fast observations of one game at a time (see the module docstring)."""

    __slots__ = (
        "_betting",
        "_by_head",
        "_consts",
        "_cover_action",
        "_events",
        "_game",
        "_inv_hands",
        "_keep_action",
        "_last_at",
        "_mv",
        "_o_cover",
        "_o_dealer",
        "_o_hand",
        "_o_private",
        "_o_ring",
        "_o_shown",
        "_private_at",
        "_private_width",
        "_ranking",
        "_reference",
        "_results",
        "_ring_at",
        "_seat_at",
        "_status_at",
        "_to_act_at",
        "_wild",
        "config",
        "state",
    )

    def __init__(self, config: BragConfig) -> None:
        self.config = config
        self._reference = BragObserver(config)  # has_looked: one definition of B10 knowledge
        layout = observation_layout(config)
        n, na, k = config.num_players, config.num_actions, HISTORY_LEN
        ring_row = n + na + 1
        # B25: with wild cards a private block also holds the own_wild one-hot.
        self._wild = config_ranking(config).wild
        self._private_width = _PRIVATE + (NUM_CARDS if self._wild else 0)
        self._o_private = layout.size
        self._o_ring = layout.size + n * self._private_width
        self.state = np.zeros(self._o_ring + k * ring_row, dtype=np.float32)
        self._mv = memoryview(self.state)
        self._keep_action = config.keep_old_hand_action
        self._ranking = (config.lowball, config.deck_ranks, config.wild_cards)
        self._inv_hands = 1.0 / config.hands_per_session
        off = layout.offset
        # Per seat: (status row start, stack, chips in, last-action row start), absolute order.
        self._seat_at = tuple(
            (
                off("seat_status") + _STATUSES * s,
                off("seat_chips") + s,
                off("seat_chips_in") + s,
                off("seat_last_action") + na * s,
            )
            for s in range(n)
        )
        self._o_dealer, self._o_hand = off("seat_dealer"), off("hand_number")
        self._o_shown = off("shown_cards")
        # B16 block (absolute seat order in the state), only with cover_pot.
        self._cover_action = config.cover_action
        self._o_cover = (
            (off("seat_covered"), off("seat_covered_pot"), off("side_pot"))
            if config.cover_pot
            else None
        )
        # What the hot loop needs, unpacked in one step.
        self._consts = (
            n,
            na,
            k,
            ring_row,
            self._o_ring,
            1.0 / config.starting_chips,
            1.0 / config.max_stake,
            off("seat_chips"),
            off("stake"),
            off("pot"),
            off("choice_pending"),
            off("seat_to_act"),
        )
        self._by_head = self._build_index(layout, n, na, k, ring_row)
        # What the state holds, for clearing one-hots without zeroing whole rows.
        self._game: Any = None
        self._betting: list | None = None  # held, so its identity cannot be reused
        self._events = 0  # events of ``_betting`` already in the state
        self._results = 0  # len(game.hand_results) at the last sync
        self._status_at = [-1] * n  # state position of each seat's status one-hot
        self._last_at = [-1] * n  # ... of its last-action one-hot (-1: none)
        self._private_at: list[tuple[int, ...]] = [()] * n  # ... of its card/category ones
        self._ring_at: list[tuple[int, int]] = [(-1, -1)] * k  # ... of each ring row's ones
        self._to_act_at = -1

    def _build_index(
        self, layout: Any, n: int, na: int, k: int, ring_row: int
    ) -> list[list[np.ndarray]]:
        """by_head[head][me]: state position of every entry of ``me``'s vector when the next
        event goes to ring row ``head``."""
        fields = layout.fields
        seats = np.arange(n)
        table: list[list[np.ndarray]] = [[] for _ in range(k)]
        for me in range(n):
            base = np.arange(layout.size, dtype=np.intp)
            private = self._o_private + me * self._private_width
            for name, start in (
                ("own_cards", 0),
                ("own_category", NUM_CARDS),
                ("own_strength", NUM_CARDS + len(CATEGORY_NAMES)),
                ("own_wild", _PRIVATE),  # B25, only with wild cards
            ):
                if name not in fields:
                    continue
                f = fields[name]
                base[f.offset : f.offset + f.size] = private + start + np.arange(f.size)
            absolute = (seats + me) % n  # relative row r shows absolute seat (r + me) % n
            for name in SEAT_FIELDS:
                if name not in fields:  # the B16 fields exist only with cover_pot
                    continue
                f = fields[name]
                width = f.size // n
                rows = f.offset + absolute[:, None] * width + np.arange(width)
                base[f.offset : f.offset + f.size] = rows.ravel()
            for head in range(k):
                index = base.copy()
                for slot in range(k):  # slot 0 = most recent event, in ring row head - 1
                    row = self._o_ring + ((head - 1 - slot) % k) * ring_row
                    f = fields["history_seat"]
                    index[f.offset + slot * n : f.offset + (slot + 1) * n] = row + absolute
                    f = fields["history_action"]
                    index[f.offset + slot * na : f.offset + (slot + 1) * na] = (
                        row + n + np.arange(na)
                    )
                    index[fields["history_paid"].offset + slot] = row + n + na
                index.flags.writeable = False
                table[head].append(index)
        return table

    # ------------------------------------------------------------------ public
    def observation(self, game: Any, player: int) -> np.ndarray:
        """A new float32 array equal to ``BragObserver(config).set_from(game, player)``."""
        betting = game.betting
        if game is not self._game or betting is not self._betting:
            self._rebuild(game)
        elif len(betting) != self._events or len(game.hand_results) != self._results:
            self._advance(game)
        return self.state[self._by_head[self._events % HISTORY_LEN][player]]

    # ------------------------------------------------------------------ updates
    def _rebuild(self, game: Any) -> None:
        """Everything from the game: a new game object, hand or session."""
        self.state.fill(0.0)
        n = self.config.num_players
        self._game, self._betting = game, game.betting
        self._ring_at = [(-1, -1)] * HISTORY_LEN
        self._to_act_at = -1
        self._results = -1  # makes _advance refresh every stack and the shown cards
        # The state is all zero: only seats that may have looked need their private block
        # (blind and sitting-out seats never know their cards, B10).
        self._private_at = [()] * n
        for s, status in enumerate(game.status):
            if status in (OPEN, FOLDED):
                self._private(game, s)
        # Every seat's row (on zeros: no old one-hot to clear).
        mv, inv = self._mv, self._consts[5]
        chips, contributed, last_action = game.chips, game.contributed, game.last_action
        status_at, last_at = [-1] * n, [-1] * n
        for s, (o_status, at_chips, at_in, o_last) in enumerate(self._seat_at):
            at = status_at[s] = o_status + game.status[s]
            mv[at] = 1.0
            mv[at_chips] = chips[s] * inv
            mv[at_in] = contributed[s] * inv
            if last_action[s] >= 0:
                at = last_at[s] = o_last + last_action[s]
                mv[at] = 1.0
        self._status_at, self._last_at = status_at, last_at
        if game.dealer >= 0:
            mv[self._o_dealer + game.dealer] = 1.0
        mv[self._o_hand] = game.hand_number * self._inv_hands
        # The previous hand's block changes only with a new hand: written here, seats absolute.
        self._reference.write_previous_hand(mv, game, 0)
        if self._o_cover is not None and game.covers:  # covers older than the ring, too
            self._reference.write_covers(mv, game, 0)
        # The last HISTORY_LEN events, then what every decision changes.
        self._events = max(0, len(game.betting) - HISTORY_LEN)
        self._advance(game)

    def _advance(self, game: Any) -> None:
        """Events ``self._events`` .. of ``game.betting`` into the ring and the rows of the seats
        that made them, then what any decision changes: stake, pot, the B19 flag and the seat
        to act. After a finished hand (the session's last: a new hand would have a new
        ``betting`` list) also every stack and the shown cards.

        A seat's stack and chips in change only when it pays (or when a hand ends: stacks are
        then all rewritten; a new hand rebuilds), so an event that pays nothing leaves them."""
        n, na, k, ring_row, o_ring, inv, inv_stake, o_chips, o_stake, o_pot, o_choice, o_to_act = (
            self._consts
        )
        betting = game.betting
        mv = self._mv
        status_at, last_at, ring_at = self._status_at, self._last_at, self._ring_at
        total = len(betting)
        for i in range(self._events, total):
            seat, action, paid = betting[i]
            # The seat's row: status and last-action one-hots, stack, chips in.
            o_status, at_chips, at_in, o_last = self._seat_at[seat]
            at = o_status + game.status[seat]
            old = status_at[seat]
            if old != at:
                if old >= 0:
                    mv[old] = 0.0
                mv[at] = 1.0
                status_at[seat] = at
            if paid:
                mv[at_chips] = game.chips[seat] * inv
                mv[at_in] = game.contributed[seat] * inv
            at = o_last + game.last_action[seat]  # every event sets the seat's last action
            old = last_at[seat]
            if old != at:
                if old >= 0:
                    mv[old] = 0.0
                mv[at] = 1.0
                last_at[seat] = at
            if action == LOOK or action >= self._keep_action:  # B10, B19: the private block
                if action == self._cover_action:  # B16: the seat's cover, the pot it closed
                    o_covered, o_closed, _ = self._o_cover  # type: ignore[misc]
                    mv[o_covered + seat] = 1.0
                    mv[o_closed + seat] = dict(game.covers)[seat] * inv
                else:
                    self._private(game, seat)
            # Event i goes to ring row i % HISTORY_LEN (the index arrays read it back).
            row = i % k
            old_seat, old_action = ring_at[row]
            if old_seat >= 0:
                mv[old_seat] = 0.0
                mv[old_action] = 0.0
            at = o_ring + row * ring_row
            seat_one, action_one = at + seat, at + n + action
            mv[seat_one] = 1.0
            mv[action_one] = 1.0
            mv[at + n + na] = paid * inv
            ring_at[row] = (seat_one, action_one)
        self._events = total
        results = len(game.hand_results)
        if results != self._results:
            self._results = results
            for s, c in enumerate(game.chips):
                mv[o_chips + s] = c * inv
            o_shown = self._o_shown
            for c in game.shown_cards:
                mv[o_shown + c] = 1.0
        mv[o_stake] = game.stake * inv_stake
        mv[o_pot] = game.pot * inv
        mv[o_choice] = 1.0 if game.choosing else 0.0
        if game.covers:  # B16 (a new hand rebuilds, so without a cover the field stays 0)
            mv[self._o_cover[2]] = side_pot(game) * inv  # type: ignore[index]
        player = game.current_player
        at = o_to_act + player if player >= 0 else -1
        old = self._to_act_at
        if at != old:
            if old >= 0:
                mv[old] = 0.0
            if at >= 0:
                mv[at] = 1.0
            self._to_act_at = at

    def _private(self, game: Any, s: int) -> None:
        """Seat ``s``'s own cards, category and strength, or zeros while it has not looked."""
        mv = self._mv
        base = self._o_private + s * self._private_width
        for at in self._private_at[s]:
            mv[at] = 0.0
        strength_at = base + NUM_CARDS + len(CATEGORY_NAMES)
        if self._reference.has_looked(game, s):
            hand = game.hands[s]
            category, percentile = _hand_features(hand, self._ranking)
            written = (*(base + c for c in hand), base + NUM_CARDS + category)
            if self._wild:  # B25: the seat's wild cards
                written += tuple(base + _PRIVATE + c for c in hand if c in self._wild)
            for at in written:
                mv[at] = 1.0
            mv[strength_at] = percentile
            self._private_at[s] = written
        else:
            mv[strength_at] = 0.0
            self._private_at[s] = ()
