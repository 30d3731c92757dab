"""What one Brag player knows, as a flat float32 vector, and a decoder back to readable form.

The vector is ONE float32 buffer allocated once per observer; a dict of named numpy views
(``BragObserver.views``) reshapes its pieces. The same names, in the order below, define the
layout, fill the buffer and drive ``decode_observation``: there is no second offset table.

Seats are RELATIVE to the observer: row 0 is the observer, row 1 the next seat up (the player
to its left, who acts after it), and so on round the table. ``n`` = ``num_players``,
``A`` = ``num_actions`` (7 with the default raise ladder), ``K`` = ``HISTORY_LEN`` = 16.

====================  ========  ===========================================================
name                  shape     contents
====================  ========  ===========================================================
own_cards             52        one-hot of the observer's three cards (card id = rank*4+suit);
                                all zero until the observer has looked (B10)
own_category          6         one-hot hand category, weakest first: high_card, pair, flush,
                                run, running_flush, prial (B2); zero until looked
own_strength          1         fraction of the 22,100 hands strictly weaker than the
                                observer's (lowball order under B21; with wild cards, B25,
                                the order of readings then fewer wild cards, and the
                                category is the reading's); zero until looked
seat_status           n x 4     one-hot: sitting_out, folded, blind, open (B10, B16)
seat_chips            n         stack (chips not in the pot) / starting_chips
seat_chips_in         n         chips put in this hand, ante included / starting_chips
seat_last_action      n x A     one-hot of the seat's last action this hand (zero: none yet)
seat_dealer           n         1 at the dealer's row
seat_to_act           n         1 at the row of the player whose decision it is
stake                 1         current stake S in open units (B11) / max_stake
pot                   1         chips in the pot / starting_chips
hand_number           1         hand index in the session (0-based) / hands_per_session
choice_pending        1         1 while the player to act must choose a kept blind hand (B19)
shown_cards           52        cards shown at sees since the last shuffle (B14, B18)
prev_by_see           1         1 if the session's previous hand ended at a see (B14), 0 if
                                it ended by folds (B15) or this is the first hand
prev_seat_change      n x 2     each seat's chip change in the previous hand (antes, bets,
                                pot, B20 bonus) / starting_chips, as (won, lost): both >= 0
prev_seat_see         n x 2     one-hot of the seat's part in the previous hand's see:
                                (paid to see, was seen); zero for everyone after folds
prev_shown_cards      2 x 52    the hands shown at the previous hand's see: row 0 the
                                seer's, row 1 the seen player's (zero after folds)
history_seat          K x n     public events of this hand, most recent first: relative seat
history_action        K x A     ... the action taken
history_paid          K         ... the chips paid / starting_chips (0 for a look or a choice)
--------------------  --------  -----------------------------------------------------------
only with ``cover_pot`` (B16); without it the vector ends above
--------------------  --------  -----------------------------------------------------------
seat_covered          n         1 at the row of each seat that covered the pot this hand
                                (its status is then ``folded``: out of the betting, but its
                                hand stays on the pot for the comparison)
seat_covered_pot      n         the pot closed by that seat's cover (all chips in the middle
                                at that moment, carried chips included) / starting_chips
side_pot              1         chips in the middle beyond the last covered pot (what the
                                players still in bet for) / starting_chips; 0 without a cover
====================  ========  ===========================================================

only with ``cards_dealt`` 4 or 5 (B22), after everything above
--------------------  --------  -----------------------------------------------------------
own_discards          52        one-hot of the cards the observer discarded this hand
discard_pending       1         1 while the players are still discarding (before the betting)
--------------------  --------  -----------------------------------------------------------
only with ``wild_cards`` other than "none" (B25), after everything above
--------------------  --------  -----------------------------------------------------------
own_wild              52        one-hot of the observer's own cards that are wild (zero
                                until looked, like own_cards)
prev_shown_reading    2 x 52    what the previous hand's shown hands counted as: each
                                shown card, a wild card replaced by the card it stood for
                                (row 0 the seer's, row 1 the seen player's; zero after folds)
--------------------  --------  -----------------------------------------------------------
only with ``perfect_recall``, at the very end (``L`` = ``recall_length(config)``)
--------------------  --------  -----------------------------------------------------------
recall_seat           L x n     EVERY public event of this hand, oldest first: relative seat
recall_action         L x A     ... the action taken (looks, the B19 choice, covers included)
recall_paid           L         ... the chips paid / starting_chips
====================  ========  ===========================================================

``recall_length`` bounds the events of one hand from the config: every STAY, raise and SEE
costs at least ``min_stake / 2`` chips (a blind stay at the opening stake) and no hand can take
more than the ``n * starting_chips`` chips at the table, so there are at most
``n * starting_chips // (min_stake // 2)`` of them; on top come at most one FOLD, one LOOK and
one cover per seat and one B19 choice. With the defaults (4 seats, 200 chips, min_stake 2)
that is 813 rows of 13 values: 11,086 values in all (517 without the option).

With B22, ``own_cards`` holds the whole deal until the observer discards, then the three kept
cards; ``own_category`` and ``own_strength`` are those of the kept three, zero before (four or
five cards are no Brag hand). Nobody learns another player's discards.

With several covers, ``seat_covered_pot`` values grow in the order the covers came; the pot a
coverer may win is its closed pot less the one closed before it (B16, settled outwards).

Every chip amount is divided by ``starting_chips``, so 1.0 is one starting stack and no value
exceeds ``num_players`` (all the chips at the table). Unused history slots are all zero. The
observation never contains another player's unrevealed cards, and a blind player's vector has
nothing derived from its own cards: they appear only once it looks (or from the start when
``allow_blind`` is false). A player who looked and then folded still sees its cards.

The ``prev_*`` block repeats what everyone saw at the end of the previous hand of the session
(``BragGame.previous_result``); it stays the same for the whole hand. It matters most after a
see that revealed a prial: the deck is then shuffled and ``shown_cards`` starts empty, yet the
players at the table did see those hands. A hand won by folds shows no cards (B15), and a blind
hand kept under B19 is never in it.

``SEAT_FIELDS`` names the fields with one row per relative seat; every other field is the
same for all observers. ``BragObserver.write_previous_hand`` writes the ``prev_*`` block alone
(for ``incremental_observation``, which keeps the table in absolute seat order).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from brag_env.brag.hands import ALL_HANDS, CATEGORY_NAMES
from brag_env.brag.rules import LOOK, BragConfig
from brag_env.brag.wild import config_ranking, ranking
from brag_env.cards import NUM_CARDS, format_cards

HISTORY_LEN = 16
RECALL_FIELDS: tuple[str, ...] = ("recall_seat", "recall_action", "recall_paid")
# The fields with one row per seat, relative to the observer (row 0 = the observer).
SEAT_FIELDS: tuple[str, ...] = (
    "seat_status",
    "seat_chips",
    "seat_chips_in",
    "seat_last_action",
    "seat_dealer",
    "seat_to_act",
    "prev_seat_change",
    "prev_seat_see",
    "seat_covered",  # only with cover_pot (B16)
    "seat_covered_pot",
)
# The B16 block, present only when the config has cover_pot.
COVER_FIELDS: tuple[str, ...] = ("seat_covered", "seat_covered_pot", "side_pot")
# Seat status ids, as the engine numbers them (brag_env/brag/game.py).
STATUS_NAMES: tuple[str, ...] = ("sitting_out", "folded", "blind", "open")
_OPEN, _FOLDED = STATUS_NAMES.index("open"), STATUS_NAMES.index("folded")


@dataclass(frozen=True)
class Field:
    """One named piece of the vector: its place, its shape and its upper bound."""

    name: str
    shape: tuple[int, ...]
    offset: int
    high: float

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


class ObservationLayout:
    """The ordered named fields of a config's observation vector (see the module docstring)."""

    def __init__(self, config: BragConfig) -> None:
        n, a, k = config.num_players, config.num_actions, HISTORY_LEN
        amount_high = float(n)  # every chip amount / starting_chips is at most n
        spec: list[tuple[str, tuple[int, ...], float]] = [
            ("own_cards", (NUM_CARDS,), 1.0),
            ("own_category", (len(CATEGORY_NAMES),), 1.0),
            ("own_strength", (1,), 1.0),
            ("seat_status", (n, len(STATUS_NAMES)), 1.0),
            ("seat_chips", (n,), amount_high),
            ("seat_chips_in", (n,), amount_high),
            ("seat_last_action", (n, a), 1.0),
            ("seat_dealer", (n,), 1.0),
            ("seat_to_act", (n,), 1.0),
            ("stake", (1,), 1.0),
            ("pot", (1,), amount_high),
            ("hand_number", (1,), 1.0),
            ("choice_pending", (1,), 1.0),
            ("shown_cards", (NUM_CARDS,), 1.0),
            ("prev_by_see", (1,), 1.0),
            ("prev_seat_change", (n, 2), amount_high),
            ("prev_seat_see", (n, 2), 1.0),
            ("prev_shown_cards", (2, NUM_CARDS), 1.0),
            ("history_seat", (k, n), 1.0),
            ("history_action", (k, a), 1.0),
            ("history_paid", (k,), amount_high),
        ]
        if config.cover_pot:  # B16, appended so that the layout without it stays the same
            spec += [
                ("seat_covered", (n,), 1.0),
                ("seat_covered_pot", (n,), amount_high),
                ("side_pot", (1,), amount_high),
            ]
        if config.cards_dealt > 3:  # B22, appended: the three-card layout stays the same
            spec += [("own_discards", (NUM_CARDS,), 1.0), ("discard_pending", (1,), 1.0)]
        if config.wild_cards != "none":  # B25, appended: layouts without wild cards stay the same
            spec += [("own_wild", (NUM_CARDS,), 1.0), ("prev_shown_reading", (2, NUM_CARDS), 1.0)]
        if config.perfect_recall:  # appended last: every other offset stays the same
            length = recall_length(config)
            spec += [
                ("recall_seat", (length, n), 1.0),
                ("recall_action", (length, a), 1.0),
                ("recall_paid", (length,), amount_high),
            ]
        self.config = config
        self.fields: dict[str, Field] = {}
        offset = 0
        for name, shape, high in spec:
            f = Field(name, shape, offset, high)
            self.fields[name] = f
            offset += f.size
        self.size = offset
        self.high = np.empty(self.size, dtype=np.float32)
        for f in self.fields.values():
            self.high[f.offset : f.offset + f.size] = f.high
        self.high.flags.writeable = False

    def views(self, buffer: np.ndarray) -> dict[str, np.ndarray]:
        """Named, reshaped views into ``buffer`` (no copies)."""
        return {
            name: buffer[f.offset : f.offset + f.size].reshape(f.shape)
            for name, f in self.fields.items()
        }

    def offset(self, name: str) -> int:
        return self.fields[name].offset


def recall_length(config: BragConfig) -> int:
    """The most public events one hand can hold (see the module docstring): the priced
    decisions the chips at the table can pay for, one FOLD, LOOK and cover per seat, and one
    B19 choice."""
    n = config.num_players
    priced = n * config.starting_chips // (config.min_stake // 2)
    return priced + n * (1 + int(config.allow_blind) + int(config.cover_pot)) + 1


@lru_cache(maxsize=64)
def observation_layout(config: BragConfig) -> ObservationLayout:
    """The layout for ``config`` (cached: configs are frozen)."""
    return ObservationLayout(config)


# Per ranking (lowball, deck_ranks, wild_cards): every hand's card bitmask -> (category id,
# percentile among the deck's hands), built on first use.
_HAND_FEATURES: dict[tuple[bool, int, str], dict[int, tuple[int, float]]] = {}


def _features_table(
    lowball: bool, deck_ranks: int, wild_cards: str
) -> dict[int, tuple[int, float]]:
    """All 22,100 hands at once (numpy), so that the fill never meets an uncached hand."""
    order = ranking(wild_cards, lowball, deck_ranks)  # B21, B1, B25
    strengths = order.strength_batch(ALL_HANDS)
    categories = order.category_of.take(strengths).tolist()
    percentiles = order.percentile(strengths).tolist()
    bits = np.left_shift(np.int64(1), ALL_HANDS.astype(np.int64))
    keys = np.bitwise_or.reduce(bits, axis=1).tolist()
    return dict(zip(keys, zip(categories, percentiles, strict=True), strict=True))


def _hand_features(cards: list[int], order: tuple[bool, int, str]) -> tuple[int, float]:
    """Category and percentile of a hand under ``order`` = (lowball, deck_ranks, wild_cards)."""
    table = _HAND_FEATURES.get(order)
    if table is None:
        table = _HAND_FEATURES[order] = _features_table(*order)
    a, b, c = cards
    return table[(1 << a) | (1 << b) | (1 << c)]


class BragObserver:
    """Fills one preallocated observation buffer for any player of a game with ``config``.

    ``set_from(game, player)`` overwrites the buffer in place and returns it (the same array every
    time: copy it to keep it). ``views`` are the named pieces of that buffer.
    """

    def __init__(self, config: BragConfig) -> None:
        self.config = config
        self.layout = observation_layout(config)
        self.buffer = np.zeros(self.layout.size, dtype=np.float32)
        self.views = self.layout.views(self.buffer)
        # Writing Python floats through a memoryview is several times faster than numpy scalar
        # assignment; the fill is a short Python loop, so this is its main cost.
        self._mv = memoryview(self.buffer)
        n, na = config.num_players, config.num_actions
        self._inv_chips = 1.0 / config.starting_chips
        self._inv_stake = 1.0 / config.max_stake
        self._inv_hands = 1.0 / config.hands_per_session
        # B21, B1, B25: what categories and percentiles count
        self._ranking = (config.lowball, config.deck_ranks, config.wild_cards)
        self._order = config_ranking(config)
        self._allow_blind = config.allow_blind
        off = self.layout.offset
        # Flat indices, precomputed so that the fill is only look-ups and writes.
        # _seats[observer][seat]: (status row start, chips, chips in, last-action row start,
        # dealer, to-act) for that seat's row (seat - observer) % n in the observer's view.
        self._seats = [
            [
                (
                    off("seat_status") + 4 * r,
                    off("seat_chips") + r,
                    off("seat_chips_in") + r,
                    off("seat_last_action") + na * r,
                    off("seat_dealer") + r,
                    off("seat_to_act") + r,
                )
                for r in ((s - me) % n for s in range(n))
            ]
            for me in range(n)
        ]
        # _history_seat[observer][seat]: the seat's column in history slot 0 (+ n per slot).
        self._history_seat = [
            [off("history_seat") + (s - me) % n for s in range(n)] for me in range(n)
        ]
        # Per history slot k (most recent first): (seat row offset, action row start, paid).
        self._history_slots = [
            (n * k, off("history_action") + na * k, off("history_paid") + k)
            for k in range(HISTORY_LEN)
        ]
        self._scalars = (off("stake"), off("pot"), off("hand_number"), off("choice_pending"))
        # _previous[observer][seat]: (change row start, see row start) in the prev_* block.
        self._previous = [
            [
                (off("prev_seat_change") + 2 * r, off("prev_seat_see") + 2 * r)
                for r in ((s - me) % n for s in range(n))
            ]
            for me in range(n)
        ]
        self._o_prev = (off("prev_by_see"), off("prev_shown_cards"))
        self._o_shown = off("shown_cards")
        self._o_own = (off("own_cards"), off("own_category"), off("own_strength"))
        if config.cover_pot:
            self._o_cover = (off("seat_covered"), off("seat_covered_pot"), off("side_pot"))
        else:
            self._o_cover = None
        self._o_discards = (
            (off("own_discards"), off("discard_pending")) if config.cards_dealt > 3 else None
        )
        self._o_recall = (
            (off("recall_seat"), off("recall_action"), off("recall_paid"))
            if config.perfect_recall
            else None
        )
        self._recall_length = recall_length(config)
        self._o_wild = (
            (off("own_wild"), off("prev_shown_reading")) if config.wild_cards != "none" else None
        )

    def has_looked(self, game: Any, player: int) -> bool:
        """Whether ``player`` has seen its own cards this hand (B10)."""
        status = game.status[player]
        if status == _OPEN:
            return True
        if status != _FOLDED:
            return False  # blind, or sitting out with no cards
        if not self._allow_blind:
            return True
        return any(seat == player and action == LOOK for seat, action, _ in game.betting)

    def set_from(self, game: Any, player: int) -> np.ndarray:
        """Write ``player``'s observation of ``game`` into the buffer and return the buffer."""
        self.buffer.fill(0.0)
        mv = self._mv
        inv = self._inv_chips
        for (o_status, o_chips, o_in, o_last, _, _), status, chips, put_in, last in zip(
            self._seats[player],
            game.status,
            game.chips,
            game.contributed,
            game.last_action,
            strict=True,
        ):
            mv[o_status + status] = 1.0
            mv[o_chips] = chips * inv
            mv[o_in] = put_in * inv
            if last >= 0:
                mv[o_last + last] = 1.0
        seats = self._seats[player]
        if game.dealer >= 0:
            mv[seats[game.dealer][4]] = 1.0
        if game.current_player >= 0:
            mv[seats[game.current_player][5]] = 1.0
        o_stake, o_pot, o_hand, o_choice = self._scalars
        mv[o_stake] = game.stake * self._inv_stake
        mv[o_pot] = game.pot * inv
        mv[o_hand] = game.hand_number * self._inv_hands
        if game.choosing:
            mv[o_choice] = 1.0
        o_shown = self._o_shown
        for c in game.shown_cards:
            mv[o_shown + c] = 1.0
        columns = self._history_seat[player]
        # The HISTORY_LEN most recent events (zip stops at the shorter of the two).
        for (o_seat, o_action, o_paid), (seat, action, paid) in zip(
            self._history_slots, reversed(game.betting), strict=False
        ):
            mv[columns[seat] + o_seat] = 1.0
            mv[o_action + action] = 1.0
            if paid:
                mv[o_paid] = paid * inv
        if self.has_looked(game, player):
            hand = game.hands[player]
            o_cards, o_category, o_strength = self._o_own
            for c in hand:
                mv[o_cards + c] = 1.0
            if len(hand) == 3:  # B22: no category for a deal of four or five
                category, percentile = _hand_features(hand, self._ranking)
                mv[o_category + category] = 1.0
                mv[o_strength] = percentile
            if self._o_wild is not None:  # B25: which of the observer's cards are wild
                o_wild, wild = self._o_wild[0], self._order.wild
                for c in hand:
                    if c in wild:
                        mv[o_wild + c] = 1.0
        if game.previous_result is not None:
            self.write_previous_hand(mv, game, player)
        if self._o_cover is not None and game.covers:
            self.write_covers(mv, game, player)
        if self._o_discards is not None:
            o_discards, o_pending = self._o_discards
            for c in game.discards[player]:
                mv[o_discards + c] = 1.0
            if game.discarding:
                mv[o_pending] = 1.0
        if self._o_recall is not None:
            self._write_recall(mv, game, player)
        return self.buffer

    def _write_recall(self, mv: memoryview, game: Any, player: int) -> None:
        """Every event of ``game.betting``, oldest first (the perfect-recall block)."""
        o_seat, o_action, o_paid = self._o_recall  # type: ignore[misc]
        n, na, inv = self.config.num_players, self.config.num_actions, self._inv_chips
        if len(game.betting) > self._recall_length:  # recall_length is a proof, not a guess
            raise RuntimeError(
                f"a hand of {len(game.betting)} events exceeds recall_length "
                f"{self._recall_length}: the bound is wrong"
            )
        for k, (seat, action, paid) in enumerate(game.betting):
            mv[o_seat + n * k + (seat - player) % n] = 1.0
            mv[o_action + na * k + action] = 1.0
            if paid:
                mv[o_paid + k] = paid * inv

    def write_covers(self, mv: memoryview, game: Any, player: int) -> None:
        """Write the B16 block of ``player``'s view (``player=0``: absolute seat order)."""
        o_covered, o_pot, o_side = self._o_cover  # type: ignore[misc]
        n, inv = self.config.num_players, self._inv_chips
        for seat, closed in game.covers:
            r = (seat - player) % n
            mv[o_covered + r] = 1.0
            mv[o_pot + r] = closed * inv
        mv[o_side] = side_pot(game) * inv

    def write_previous_hand(self, mv: memoryview, game: Any, player: int) -> None:
        """Write the ``prev_*`` block of ``player``'s view into ``mv`` (a float32 memoryview of
        a vector with this layout, or of a longer buffer that starts with one), which must hold
        zeros there. With ``player=0`` the seat rows are in absolute seat order."""
        prev = game.previous_result
        if prev is None:
            return
        inv = self._inv_chips
        rows = self._previous[player]
        for (o_change, _), delta in zip(rows, prev.deltas, strict=True):
            if delta > 0:
                mv[o_change] = delta * inv
            elif delta < 0:
                mv[o_change + 1] = -delta * inv
        if prev.by_see:  # B14: both hands were shown to the table
            o_by_see, o_cards = self._o_prev
            mv[o_by_see] = 1.0
            mv[rows[prev.seer][1]] = 1.0
            mv[rows[prev.seen][1] + 1] = 1.0
            for c in prev.shown[prev.seer]:
                mv[o_cards + c] = 1.0
            for c in prev.shown[prev.seen]:
                mv[o_cards + NUM_CARDS + c] = 1.0
            if self._o_wild is not None:  # B25: the cards the shown hands counted as
                o_reading = self._o_wild[1]
                for row, seat in enumerate((prev.seer, prev.seen)):
                    for c in self._order.reading(prev.shown[seat]):
                        mv[o_reading + row * NUM_CARDS + c] = 1.0


def side_pot(game: Any) -> int:
    """B16: chips in the middle beyond the last covered pot (0 without a cover, or once the
    hand is settled)."""
    covers = game.covers
    return game.pot - covers[-1][1] if covers and game.pot else 0


def decode_observation(vector: np.ndarray, config: BragConfig) -> dict[str, Any]:
    """A readable dict of one observation vector (the ``"observation"`` entry, not the dict).

    Keys: ``own_cards`` (card text or None before looking), ``own_category``, ``own_strength``,
    ``seats`` (one dict per relative seat: ``relative_seat``, ``status``, ``chips``,
    ``chips_in``, ``last_action``, ``dealer``, ``to_act``), ``stake``, ``pot`` (chips),
    ``hand_number``, ``choice_pending``, ``shown_cards`` (card text), ``history`` (most
    recent first: ``relative_seat``, ``action``, ``paid``), and ``previous_hand``: ``by_see``,
    ``chip_changes`` (per relative seat), ``seer`` and ``seen`` (relative seats, or None after
    folds), ``seer_cards`` and ``seen_cards`` (card text, or None). With ``cover_pot`` (B16)
    each seat also has ``covered`` and ``covered_pot`` (chips, 0 when it did not cover), and
    there is ``side_pot`` (chips). With ``cards_dealt`` 4 or 5 (B22): ``own_discards`` (card
    text or None) and ``discard_pending``. With ``wild_cards`` (B25): ``own_wild`` (card text
    or None) and, in ``previous_hand``, ``seer_reading`` and ``seen_reading`` (the cards the
    shown hands counted as, or None). With ``perfect_recall``: ``recall``, every event
    of the hand oldest first (``relative_seat``, ``action``, ``paid``).
    """
    layout = observation_layout(config)
    vec = np.asarray(vector)
    if vec.shape != (layout.size,):
        raise ValueError(
            f"observation vector must have shape ({layout.size},) for this config "
            f"({config.num_players} players, {config.num_actions} actions), got {vec.shape}"
        )
    v = layout.views(vec.astype(np.float64))
    names = config.action_names
    start, n = config.starting_chips, config.num_players

    def chips(x: float) -> int:
        return round(float(x) * start)

    def one(row: np.ndarray) -> int | None:
        hits = np.flatnonzero(row > 0.5)
        return int(hits[0]) if len(hits) else None

    own = np.flatnonzero(v["own_cards"] > 0.5)
    category = one(v["own_category"])
    seats = []
    for r in range(n):
        status = one(v["seat_status"][r])
        last = one(v["seat_last_action"][r])
        seats.append(
            {
                "relative_seat": r,
                "status": STATUS_NAMES[status] if status is not None else None,
                "chips": chips(v["seat_chips"][r]),
                "chips_in": chips(v["seat_chips_in"][r]),
                "last_action": names[last] if last is not None else None,
                "dealer": bool(v["seat_dealer"][r] > 0.5),
                "to_act": bool(v["seat_to_act"][r] > 0.5),
            }
        )
        if config.cover_pot:
            seats[-1]["covered"] = bool(v["seat_covered"][r] > 0.5)
            seats[-1]["covered_pot"] = chips(v["seat_covered_pot"][r])
    history = []
    for k in range(HISTORY_LEN):
        seat, action = one(v["history_seat"][k]), one(v["history_action"][k])
        if seat is None or action is None:
            break
        history.append(
            {"relative_seat": seat, "action": names[action], "paid": chips(v["history_paid"][k])}
        )
    by_see = bool(v["prev_by_see"][0] > 0.5)
    seer, seen = one(v["prev_seat_see"][:, 0]), one(v["prev_seat_see"][:, 1])
    shown = [np.flatnonzero(row > 0.5).tolist() for row in v["prev_shown_cards"]]
    previous = {
        "by_see": by_see,
        "chip_changes": [chips(won) - chips(lost) for won, lost in v["prev_seat_change"]],
        "seer": seer,
        "seen": seen,
        "seer_cards": format_cards(shown[0]) if shown[0] else None,
        "seen_cards": format_cards(shown[1]) if shown[1] else None,
    }
    decoded = {
        "own_cards": format_cards(own.tolist()) if len(own) else None,
        "own_category": CATEGORY_NAMES[category] if category is not None else None,
        "own_strength": float(v["own_strength"][0]) if len(own) else None,
        "seats": seats,
        "stake": round(float(v["stake"][0]) * config.max_stake),
        "pot": chips(v["pot"][0]),
        "hand_number": round(float(v["hand_number"][0]) * config.hands_per_session),
        "choice_pending": bool(v["choice_pending"][0] > 0.5),
        "shown_cards": format_cards(np.flatnonzero(v["shown_cards"] > 0.5).tolist()),
        "history": history,
        "previous_hand": previous,
    }
    if config.cover_pot:
        decoded["side_pot"] = chips(v["side_pot"][0])
    if config.cards_dealt > 3:  # B22
        discarded = np.flatnonzero(v["own_discards"] > 0.5).tolist()
        decoded["own_discards"] = format_cards(discarded) if discarded else None
        decoded["discard_pending"] = bool(v["discard_pending"][0] > 0.5)
    if config.wild_cards != "none":  # B25
        wild = np.flatnonzero(v["own_wild"] > 0.5).tolist()
        decoded["own_wild"] = format_cards(wild) if wild else None
        read = [np.flatnonzero(row > 0.5).tolist() for row in v["prev_shown_reading"]]
        previous["seer_reading"] = format_cards(read[0]) if read[0] else None
        previous["seen_reading"] = format_cards(read[1]) if read[1] else None
    if config.perfect_recall:
        recall = []
        for seat_row, action_row, paid in zip(
            v["recall_seat"], v["recall_action"], v["recall_paid"], strict=True
        ):
            seat, action = one(seat_row), one(action_row)
            if seat is None or action is None:
                break
            recall.append({"relative_seat": seat, "action": names[action], "paid": chips(paid)})
        decoded["recall"] = recall
    return decoded
