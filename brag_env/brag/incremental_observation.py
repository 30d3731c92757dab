"""Brag observations kept up to date event by event: the env's fast path.

``BragObserver.fill`` (``brag_env.brag.observation``) rebuilds a player's whole vector from the
game at every call; it is the reference. ``IncrementalObserver.observation`` returns the same
vectors (``tests/test_fastpaths_brag.py`` compares them on many random states) for less work:

- It keeps ONE table-wide ``state`` buffer in absolute seat order: the public fields at the
  offsets of the observation layout, then one private block per seat (its cards, category and
  strength, left zero until that seat has looked, B10), then the hand's public events in a ring
  of ``HISTORY_LEN`` rows (absolute seat one-hot, action one-hot, chips paid).
- A player's vector is one numpy gather, ``state.take(index[player][head])``. The index arrays,
  built once per observer and ring position, hold the rotation to relative seats, the "most
  recent first" order of the history and the choice of private block. The gather returns a new
  array, so no separate copy is needed.
- Between two calls only what new events touched is rewritten. Every decision appends one event
  to ``game.betting`` and, unless it ends the hand, changes only the acting seat's row, its
  private block (a look, a B19 choice), the stake, the pot, the seat to act and the B19 flag.
  Anything else (another game object, a new hand or session, a finished hand) rebuilds the
  state from the game.

The game must change only through ``BragGame.apply`` / ``new_session`` (as inside ``brag_v0``):
state written into the game's attributes by hand is not noticed. Use ``BragObserver.fill``
for such games.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from brag_env.brag.hands import CATEGORY_NAMES
from brag_env.brag.observation import (
    HISTORY_LEN,
    STATUS_NAMES,
    BragObserver,
    _hand_features,
    observation_layout,
)
from brag_env.brag.rules import LOOK, BragConfig
from brag_env.cards import NUM_CARDS

_SEAT_FIELDS = (
    "seat_status",
    "seat_chips",
    "seat_chips_in",
    "seat_last_action",
    "seat_dealer",
    "seat_to_act",
)
_PRIVATE = NUM_CARDS + len(CATEGORY_NAMES) + 1  # own cards, own category, own strength
_STATUSES = len(STATUS_NAMES)  # width of a seat's status one-hot


class IncrementalObserver:
    """Fast observations of one game at a time (see the module docstring)."""

    def __init__(self, config: BragConfig) -> None:
        self.config = config
        self._reference = BragObserver(config)  # has_looked: one definition of B10 knowledge
        layout = observation_layout(config)
        n, na, k = config.num_players, config.num_actions, HISTORY_LEN
        size = layout.size
        ring_row = n + na + 1
        self._o_private = size
        self._o_ring = size + n * _PRIVATE
        self.state = np.zeros(self._o_ring + k * ring_row, dtype=np.float32)
        self._mv = memoryview(self.state)
        self._n, self._k, self._ring_row = n, k, ring_row
        self._keep_action = config.keep_old_hand_action
        self._lowball = config.lowball
        self._inv_chips = 1.0 / config.starting_chips
        self._inv_stake = 1.0 / config.max_stake
        self._inv_hands = 1.0 / config.hands_per_session
        off = layout.offset
        self._o_status, self._o_chips, self._o_in = (
            off("seat_status"),
            off("seat_chips"),
            off("seat_chips_in"),
        )
        self._o_last, self._o_dealer, self._o_to_act = (
            off("seat_last_action"),
            off("seat_dealer"),
            off("seat_to_act"),
        )
        self._o_stake, self._o_pot = off("stake"), off("pot")
        self._o_hand, self._o_choice = off("hand_number"), off("choice_pending")
        self._o_shown = off("shown_cards")
        self._na = na
        self._index = self._build_index(layout)
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

    def _build_index(self, layout: Any) -> list[list[np.ndarray]]:
        """index[me][head]: state position of every entry of ``me``'s vector when the next event
        goes to ring row ``head``."""
        n, k, na, ring_row = self._n, self._k, self._na, self._ring_row
        fields = layout.fields
        seats = np.arange(n)
        table = []
        for me in range(n):
            base = np.arange(layout.size, dtype=np.intp)
            private = self._o_private + me * _PRIVATE
            for name, start in (
                ("own_cards", 0),
                ("own_category", NUM_CARDS),
                ("own_strength", NUM_CARDS + len(CATEGORY_NAMES)),
            ):
                f = fields[name]
                base[f.offset : f.offset + f.size] = private + start + np.arange(f.size)
            absolute = (seats + me) % n  # relative row r shows absolute seat (r + me) % n
            for name in _SEAT_FIELDS:
                f = fields[name]
                width = f.size // n
                rows = f.offset + absolute[:, None] * width + np.arange(width)
                base[f.offset : f.offset + f.size] = rows.ravel()
            per_head = []
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
                per_head.append(index)
            table.append(per_head)
        return table

    # ------------------------------------------------------------------ public
    def observation(self, game: Any, player: int) -> np.ndarray:
        """A new float32 array equal to ``BragObserver(config).fill(game, player)``."""
        betting = game.betting
        if game is not self._game or betting is not self._betting:
            self._rebuild(game)
        elif len(betting) != self._events or len(game.hand_results) != self._results:
            self._advance(game)
        return self.state.take(self._index[player][self._events % self._k])

    # ------------------------------------------------------------------ updates
    def _rebuild(self, game: Any) -> None:
        """Everything from the game: a new game object, hand or session."""
        self.state.fill(0.0)
        n, k = self._n, self._k
        self._game, self._betting = game, game.betting
        self._status_at = [-1] * n
        self._last_at = [-1] * n
        self._private_at = [()] * n
        self._ring_at = [(-1, -1)] * k
        self._to_act_at = -1
        self._events = 0
        for s in range(n):
            self._seat(game, s)
            self._private(game, s)
        mv = self._mv
        if game.dealer >= 0:
            mv[self._o_dealer + game.dealer] = 1.0
        mv[self._o_hand] = game.hand_number * self._inv_hands
        self._advance(game, max(0, len(game.betting) - k))

    def _advance(self, game: Any, first: int = -1) -> None:
        """The events since the last call (from event ``first`` if given), then what a decision
        changes besides the acting seat. When a hand has just ended (and the session with it:
        a new hand would have a new ``betting`` list) every stack and the shown cards too."""
        betting = game.betting
        mv = self._mv
        n, k, na, width = self._n, self._k, self._na, self._ring_row
        o_ring, inv = self._o_ring, self._inv_chips
        keep = self._keep_action
        ring_at = self._ring_at
        for i in range(self._events if first < 0 else first, len(betting)):
            event = betting[i]
            seat, action, paid = event
            self._seat(game, seat)
            if action == LOOK or action >= keep:  # B10 look, B19 choice: the private block
                self._private(game, seat)
            # Event i goes to ring row i % HISTORY_LEN (the index arrays read it back).
            row = i % k
            old_seat, old_action = ring_at[row]
            if old_seat >= 0:
                mv[old_seat] = 0.0
                mv[old_action] = 0.0
            at = o_ring + row * width
            seat_at, action_at = at + seat, at + n + action
            mv[seat_at] = 1.0
            mv[action_at] = 1.0
            mv[at + n + na] = paid * inv
            ring_at[row] = (seat_at, action_at)
        self._events = len(betting)
        results = len(game.hand_results)
        if results != self._results or first >= 0:
            self._results = results
            o_chips = self._o_chips
            for s, chips in enumerate(game.chips):
                mv[o_chips + s] = chips * inv
            o_shown = self._o_shown
            for c in game.shown_cards:
                mv[o_shown + c] = 1.0
        mv[self._o_stake] = game.stake * self._inv_stake
        mv[self._o_pot] = game.pot * inv
        mv[self._o_choice] = 1.0 if game.choosing else 0.0
        player = game.current_player
        at = self._o_to_act + player if player >= 0 else -1
        old = self._to_act_at
        if at != old:
            if old >= 0:
                mv[old] = 0.0
            if at >= 0:
                mv[at] = 1.0
            self._to_act_at = at

    def _seat(self, game: Any, s: int) -> None:
        """Seat ``s``'s public row from the game (status, stack, chips in, last action)."""
        mv = self._mv
        inv = self._inv_chips
        at = self._o_status + _STATUSES * s + game.status[s]
        old = self._status_at[s]
        if old != at:
            if old >= 0:
                mv[old] = 0.0
            mv[at] = 1.0
            self._status_at[s] = at
        mv[self._o_chips + s] = game.chips[s] * inv
        mv[self._o_in + s] = game.contributed[s] * inv
        last = game.last_action[s]
        at = self._o_last + self._na * s + last if last >= 0 else -1
        old = self._last_at[s]
        if old != at:
            if old >= 0:
                mv[old] = 0.0
            if at >= 0:
                mv[at] = 1.0
            self._last_at[s] = at

    def _private(self, game: Any, s: int) -> None:
        """Seat ``s``'s own cards, category and strength, or zeros while it has not looked."""
        mv = self._mv
        base = self._o_private + s * _PRIVATE
        for at in self._private_at[s]:
            mv[at] = 0.0
        strength_at = base + NUM_CARDS + len(CATEGORY_NAMES)
        if self._reference.has_looked(game, s):
            hand = game.hands[s]
            category, percentile = _hand_features(hand, self._lowball)
            written = (*(base + c for c in hand), base + NUM_CARDS + category)
            for at in written:
                mv[at] = 1.0
            mv[strength_at] = percentile
            self._private_at[s] = written
        else:
            mv[strength_at] = 0.0
            self._private_at[s] = ()
