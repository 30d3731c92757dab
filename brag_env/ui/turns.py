"""A human's turn and what the table learns from each move, for every front end.

The terminal (``brag_play``/``put_play``) and the browser (``brag_env.web``) show the same
things in their own way: a ``Decision`` is built from the deciding seat's OBSERVATION only (its
decoded view, its legal actions with their prices and explanations, and why a choice is forced
or what a cover means); the news of a move (``brag_news``, ``PutNews``) is read from the
engine's PUBLIC record, with a card shown only to the player who may see it (a B22 discard or a
P8 pass to its maker). Nothing here reads a hand the human may not see.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from brag_env import brag7_v0, brag_v1, put_v1
from brag_env.brag.hands import hand_category, hand_strength
from brag_env.brag.rules import BragConfig
from brag_env.brag7.rules import Brag7Config, arrangement_id
from brag_env.cards import format_card, format_cards, parse_cards
from brag_env.put.rules import ACTION_NAMES, PutConfig
from brag_env.ui import brag_view, put_view
from brag_env.ui.terminal import hand_text


@dataclass(frozen=True)
class Decision:
    """One seat's decision: ``view`` is its decoded observation, ``options`` its legal actions
    as ``(name, what it does and costs)``, ``action_ids`` their action numbers (same order),
    ``reason`` a note on a forced or special choice (or None). A Seven-card Brag arrangement
    is asked in two steps (``brag7_decision``): ``picks`` holds the cards each option picks,
    and the first step, which is no action yet, has no ``action_ids``."""

    view: dict[str, Any]
    options: list[tuple[str, str]]
    action_ids: list[int]
    reason: str | None
    picks: list[tuple[int, ...]] = field(default_factory=list)


def brag_decision(obs: Mapping[str, np.ndarray], config: BragConfig) -> Decision:
    """The decision of the Brag seat whose observation dict ``obs`` is."""
    view = brag_v1.decode_observation(obs["observation"], config)
    ids = [int(a) for a in np.flatnonzero(obs["action_mask"])]
    legal = [config.action_names[a] for a in ids]
    options = brag_view.action_options(view, legal)
    return Decision(view, options, ids, brag_view.forced_reason(view, legal))


def put_decision(
    obs: Mapping[str, np.ndarray], config: PutConfig, cards: put_view.SeatCards
) -> Decision:
    """The decision of the Put seat whose observation dict ``obs`` is; ``cards`` are its cards
    with their suits (``SeatCards.of``), so that each play names the card it plays."""
    view = put_v1.decode_observation(obs["observation"], config)
    ids = [int(a) for a in np.flatnonzero(obs["action_mask"])]
    legal = [ACTION_NAMES[a] for a in ids]
    options = put_view.action_options(legal, config, view, cards)
    return Decision(view, options, ids, put_view.forced_reason(view, legal))


def triple_options(cards: Sequence[int], lowball: bool) -> list[tuple[tuple[int, ...], str, str]]:
    """Every 3-card hand of ``cards``, strongest first (B2-B6; B21 order under lowball), as
    (cards, name one may type, description)."""
    triples = sorted(combinations(sorted(cards), 3), key=lambda t: -hand_strength(t, lowball))
    return [
        (t, format_cards(t, symbols=False), f"{hand_text(t)}  {hand_category(t).replace('_', ' ')}")
        for t in triples
    ]


def brag7_decision(
    obs: Mapping[str, np.ndarray], config: Brag7Config, first: Sequence[int] | None = None
) -> Decision:
    """B24: a Seven-card Brag seat's arrangement, one step of two. Without ``first``: the first
    hand, one of the 35 triples of its seven cards, strongest first (no action ids: nothing is
    played yet). With ``first``: the second hand from the four cards left, each option's
    action id the whole arrangement (the card left over is the discard)."""
    view = brag7_v0.decode_observation(obs["observation"], config)
    cards = parse_cards(view["own_cards"])
    if first is None:
        triples = triple_options(cards, config.lowball)
        options = [(name, text) for _, name, text in triples]
        reason = "First hand: choose three of your seven cards"
        return Decision(view, options, [], reason, [t for t, _, _ in triples])
    rest = [c for c in cards if c not in first]
    if len(rest) != 4:
        raise ValueError(f"first hand {list(first)} is not three of the cards {view['own_cards']}")
    triples = triple_options(rest, config.lowball)
    options = [(name, text) for _, name, text in triples]
    ids = [arrangement_id(first, t, cards) for t, _, _ in triples]
    reason = (
        f"First hand {hand_text(first)}. Second hand: three of the four cards "
        "left (the fourth is thrown away)"
    )
    return Decision(view, options, ids, reason, [t for t, _, _ in triples])


def brag_news(
    game: Any,
    config: BragConfig,
    seat: int,
    action: int,
    hands_before: int,
    names: Sequence[str],
    human: int,
) -> tuple[list[tuple[int, str]], dict[str, Any] | None]:
    """What the table learns from ``seat``'s ``action`` just applied to ``game`` (a
    ``BragGame``; ``hands_before``: its finished hands before the step): ``(seat, sentence)``
    lines, and the public hand history when the step ended a hand."""
    if action >= config.first_discard_action:  # B22: everyone sees a discard, not its cards
        if seat == human:
            cards = format_cards(game.discards[seat])
            return [(seat, f"{names[seat]}: discard {cards} face down")], None
        count = config.discards
        plural = "s" if count > 1 else ""
        return [(seat, f"{names[seat]}: discard {count} card{plural} face down")], None
    if len(game.hand_results) == hands_before:
        _, _, paid = game.betting[-1]
        text = brag_view.event_text(config.action_names[action], paid)
        return [(seat, f"{names[seat]}: {text}")], None
    record = game.history()[-1]
    last = record["actions"][-1]
    return [(seat, f"{names[seat]}: {brag_view.event_text(last['action'], last['cost'])}")], record


class PutNews:
    """The public events of a Put hand, each told once: a step can add none (P7: the first of
    two simultaneous answers is held back by the engine) or two (the second answer brings
    both). A card passed to a partner (P8) is named only to the human who passed it."""

    def __init__(self, config: PutConfig, names: Sequence[str], human: int) -> None:
        self.config = config
        self.names = names
        self.human = human
        self.told = 0  # events of the current hand told so far

    def new_hand(self) -> None:
        self.told = 0

    def after_step(
        self, game: Any, hands_before: int
    ) -> tuple[list[tuple[int, str]], dict[str, Any] | None]:
        """The new ``(seat, sentence)`` lines of a step applied to ``game`` (a ``PutGame``;
        ``hands_before``: its finished hands before the step), and the public hand history
        when the step ended a hand."""
        finished = len(game.records) > hands_before
        record = game.records[-1] if finished else game.record
        lines = []
        for seat, action, card in record.actions[self.told :]:
            text = put_view.event_text(
                self.names[seat],
                ACTION_NAMES[action],
                None if card < 0 else format_card(card, symbols=False),
                seat == self.human,
                self.config.optional_pass,
            )
            lines.append((seat, text))
        self.told = 0 if finished else len(record.actions)
        return lines, record.to_dict() if finished else None
