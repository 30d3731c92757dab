"""The Brag observation written the slow, readable way: the reference every fast path must equal.

``BragObserver.set_from`` (precomputed offsets, memoryview writes), ``IncrementalObserver`` (updated
event by event) and the batched engine's ``observe`` all compute the vector documented in
``brag_env.brag.observation``; this module computes it once more straight from the game's state
and the rules, one field at a time, so that a test can hold each fast path to it.

In the manner of OpenSpiel's Python observers: ``ReferenceObserver`` keeps one float32
``tensor`` and a dict of named views into it (``dict``), and ``set_from(game, player)`` fills
them. The layout is the data of ``observation_layout`` (names, shapes, order); what each field
holds is the data of ``FIELD_WRITERS`` below, one small function per field name. A field the
layout gains without a writer here is refused by name, so the reference cannot silently fall
behind the layout.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from brag_env.brag.hands import (
    ALL_HANDS,
    CATEGORY_NAMES,
    hand_category,
    hand_strength,
    strength_percentile,
)
from brag_env.brag.observation import HISTORY_LEN, observation_layout
from brag_env.brag.rules import HAND_SIZE, LOOK, BragConfig, SeatStatus
from brag_env.brag.wild import WILD_CARDS, config_ranking


@dataclass(frozen=True)
class Viewpoint:
    """One player's seat at one moment of a game: what every field writer reads."""

    game: Any  # a BragGame (or anything with its attributes)
    me: int

    @property
    def config(self) -> BragConfig:
        return self.game.config

    def row(self, seat: int) -> int:
        """The seat's row, relative to the observer (row 0 is the observer)."""
        return (seat - self.me) % self.config.num_players

    def chips(self, amount: float) -> float:
        """A chip amount as the observation scales it: in starting stacks."""
        return amount / self.config.starting_chips

    def knows_own_cards(self) -> bool:
        """B10: open players know their cards, and so does a folder who looked first; without
        blind play everyone looks at once."""
        game, me = self.game, self.me
        status = game.status[me]
        if status == SeatStatus.OPEN:
            return True
        if status != SeatStatus.FOLDED:
            return False
        looked = any(seat == me and action == LOOK for seat, action, _ in game.betting)
        return looked or not self.config.allow_blind

    def ranked_hand(self) -> list[int] | None:
        """The observer's three cards if it knows them and holds three (B22: a deal of four or
        five is no Brag hand until the discards)."""
        hand = self.game.hands[self.me]
        return list(hand) if self.knows_own_cards() and len(hand) == HAND_SIZE else None


Writer = Callable[[np.ndarray, Viewpoint], None]


def _own_cards(view: np.ndarray, at: Viewpoint) -> None:
    if at.knows_own_cards():
        view[list(at.game.hands[at.me])] = 1.0


def _own_category(view: np.ndarray, at: Viewpoint) -> None:
    hand = at.ranked_hand()
    if hand is None:
        return
    if at.config.wild_cards == "none":
        view[CATEGORY_NAMES.index(hand_category(hand))] = 1.0
    else:  # B25: the category of the hand's best reading
        view[CATEGORY_NAMES.index(config_ranking(at.config).category(hand))] = 1.0


def _own_strength(view: np.ndarray, at: Viewpoint) -> None:
    hand = at.ranked_hand()
    if hand is None:
        return
    cfg = at.config
    if cfg.wild_cards == "none":  # B21 order, among the hands of a B1 short deck
        view[0] = strength_percentile(hand_strength(hand, cfg.lowball), cfg.lowball, cfg.deck_ranks)
    else:  # B25: the share of all hands strictly weaker, counted one by one
        order = config_ranking(cfg)
        view[0] = np.mean(order.strength_batch(ALL_HANDS) < order.strength(hand))


def _own_wild(view: np.ndarray, at: Viewpoint) -> None:
    if at.knows_own_cards():  # B25: which of my cards are wild
        wild = WILD_CARDS[at.config.wild_cards]
        view[[card for card in at.game.hands[at.me] if card in wild]] = 1.0


def _seat_status(view: np.ndarray, at: Viewpoint) -> None:
    for seat, status in enumerate(at.game.status):
        view[at.row(seat), SeatStatus(status)] = 1.0


def _seat_chips(view: np.ndarray, at: Viewpoint) -> None:
    for seat, chips in enumerate(at.game.chips):
        view[at.row(seat)] = at.chips(chips)


def _seat_chips_in(view: np.ndarray, at: Viewpoint) -> None:
    for seat, paid in enumerate(at.game.contributed):
        view[at.row(seat)] = at.chips(paid)


def _seat_last_action(view: np.ndarray, at: Viewpoint) -> None:
    for seat, action in enumerate(at.game.last_action):
        if action >= 0:  # -1: no action yet this hand
            view[at.row(seat), action] = 1.0


def _seat_dealer(view: np.ndarray, at: Viewpoint) -> None:
    if at.game.dealer >= 0:
        view[at.row(at.game.dealer)] = 1.0


def _seat_to_act(view: np.ndarray, at: Viewpoint) -> None:
    if at.game.current_player >= 0:
        view[at.row(at.game.current_player)] = 1.0


def _stake(view: np.ndarray, at: Viewpoint) -> None:
    view[0] = at.game.stake / at.config.max_stake  # B11: the stake in open units


def _pot(view: np.ndarray, at: Viewpoint) -> None:
    view[0] = at.chips(at.game.pot)


def _hand_number(view: np.ndarray, at: Viewpoint) -> None:
    view[0] = at.game.hand_number / at.config.hands_per_session


def _choice_pending(view: np.ndarray, at: Viewpoint) -> None:
    view[0] = float(at.game.choosing)  # B19: the kept blind hand or a new one


def _shown_cards(view: np.ndarray, at: Viewpoint) -> None:
    view[list(at.game.shown_cards)] = 1.0  # B14, B18: since the last shuffle


def _prev_by_see(view: np.ndarray, at: Viewpoint) -> None:
    previous = at.game.previous_result
    if previous is not None and previous.by_see:
        view[0] = 1.0


def _prev_seat_change(view: np.ndarray, at: Viewpoint) -> None:
    previous = at.game.previous_result
    if previous is not None:
        for seat, delta in enumerate(previous.deltas):  # (won, lost), both >= 0
            view[at.row(seat), 0 if delta > 0 else 1] = at.chips(abs(delta))


def _prev_seat_see(view: np.ndarray, at: Viewpoint) -> None:
    previous = at.game.previous_result
    if previous is not None and previous.by_see:  # B14: who paid to see, who was seen
        view[at.row(previous.seer), 0] = 1.0
        view[at.row(previous.seen), 1] = 1.0


def _prev_shown_cards(view: np.ndarray, at: Viewpoint) -> None:
    previous = at.game.previous_result
    if previous is not None and previous.by_see:  # B15: a hand won by folds shows nothing
        view[0, previous.shown[previous.seer]] = 1.0
        view[1, previous.shown[previous.seen]] = 1.0


def _prev_shown_reading(view: np.ndarray, at: Viewpoint) -> None:
    previous = at.game.previous_result
    if previous is not None and previous.by_see:  # B25: what each shown hand counted as
        order = config_ranking(at.config)
        view[0, order.reading(previous.shown[previous.seer])] = 1.0
        view[1, order.reading(previous.shown[previous.seen])] = 1.0


def _recent_events(at: Viewpoint) -> list[tuple[int, int, int]]:
    """The last HISTORY_LEN public events of the hand, most recent first."""
    return list(reversed(at.game.betting[-HISTORY_LEN:]))


def _history_seat(view: np.ndarray, at: Viewpoint) -> None:
    for k, (seat, _, _) in enumerate(_recent_events(at)):
        view[k, at.row(seat)] = 1.0


def _history_action(view: np.ndarray, at: Viewpoint) -> None:
    for k, (_, action, _) in enumerate(_recent_events(at)):
        view[k, action] = 1.0


def _history_paid(view: np.ndarray, at: Viewpoint) -> None:
    for k, (_, _, paid) in enumerate(_recent_events(at)):
        view[k] = at.chips(paid)


def _seat_covered(view: np.ndarray, at: Viewpoint) -> None:
    for seat, _ in at.game.covers:  # B16
        view[at.row(seat)] = 1.0


def _seat_covered_pot(view: np.ndarray, at: Viewpoint) -> None:
    for seat, closed in at.game.covers:  # B16: the pot the cover closed
        view[at.row(seat)] = at.chips(closed)


def _side_pot(view: np.ndarray, at: Viewpoint) -> None:
    covers = at.game.covers
    if covers and at.game.pot:  # B16: what the players still in bet for
        view[0] = at.chips(at.game.pot - covers[-1][1])


def _own_discards(view: np.ndarray, at: Viewpoint) -> None:
    view[list(at.game.discards[at.me])] = 1.0  # B22: nobody sees another's discards


def _discard_pending(view: np.ndarray, at: Viewpoint) -> None:
    view[0] = float(at.game.discarding)


def _recall_seat(view: np.ndarray, at: Viewpoint) -> None:
    for k, (seat, _, _) in enumerate(at.game.betting):  # every event, oldest first
        view[k, at.row(seat)] = 1.0


def _recall_action(view: np.ndarray, at: Viewpoint) -> None:
    for k, (_, action, _) in enumerate(at.game.betting):
        view[k, action] = 1.0


def _recall_paid(view: np.ndarray, at: Viewpoint) -> None:
    for k, (_, _, paid) in enumerate(at.game.betting):
        view[k] = at.chips(paid)


# What each field of the layout holds, by name (observation.py's docstring says it in words).
FIELD_WRITERS: dict[str, Writer] = {
    "own_cards": _own_cards,
    "own_category": _own_category,
    "own_strength": _own_strength,
    "seat_status": _seat_status,
    "seat_chips": _seat_chips,
    "seat_chips_in": _seat_chips_in,
    "seat_last_action": _seat_last_action,
    "seat_dealer": _seat_dealer,
    "seat_to_act": _seat_to_act,
    "stake": _stake,
    "pot": _pot,
    "hand_number": _hand_number,
    "choice_pending": _choice_pending,
    "shown_cards": _shown_cards,
    "prev_by_see": _prev_by_see,
    "prev_seat_change": _prev_seat_change,
    "prev_seat_see": _prev_seat_see,
    "prev_shown_cards": _prev_shown_cards,
    "prev_shown_reading": _prev_shown_reading,
    "own_wild": _own_wild,
    "history_seat": _history_seat,
    "history_action": _history_action,
    "history_paid": _history_paid,
    "seat_covered": _seat_covered,
    "seat_covered_pot": _seat_covered_pot,
    "side_pot": _side_pot,
    "own_discards": _own_discards,
    "discard_pending": _discard_pending,
    "recall_seat": _recall_seat,
    "recall_action": _recall_action,
    "recall_paid": _recall_paid,
}


class ReferenceObserver:
    """One ``tensor`` and its named views (``dict``) for a config; ``set_from`` fills them."""

    def __init__(self, config: BragConfig) -> None:
        layout = observation_layout(config)
        missing = [name for name in layout.fields if name not in FIELD_WRITERS]
        if missing:
            raise ValueError(
                f"the reference observation has no writer for {', '.join(missing)}: add one to "
                "FIELD_WRITERS in brag_env/brag/reference_observation.py"
            )
        self.config = config
        self.tensor = np.zeros(layout.size, dtype=np.float32)
        self.dict = layout.views(self.tensor)

    def set_from(self, game: Any, player: int) -> np.ndarray:
        """Write ``player``'s view of ``game`` and return the tensor (the same array each call)."""
        self.tensor.fill(0.0)
        at = Viewpoint(game, player)
        for name, view in self.dict.items():
            FIELD_WRITERS[name](view, at)
        return self.tensor


def reference_observation(game: Any, player: int) -> np.ndarray:
    """``player``'s observation of ``game``, as a new array."""
    return ReferenceObserver(game.config).set_from(game, player).copy()
