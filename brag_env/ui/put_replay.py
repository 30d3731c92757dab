"""Rebuild what each Put player knew at each recorded decision, and draw it.

A hand history (``brag_env.put.game.HandRecord.to_dict``) is first played again by the engine's
``brag_env.put.replay_hand``, which must reproduce it. Then a fresh ``PutGame`` is reset to the
hand's start (its dealt cards, dealer, score and hand number: all public arguments of
``PutGame.reset``) and the actions are applied one by one; before each one the acting seat's
observation is encoded by ``PutObserver`` and decoded. A step's ``view`` is exactly what that
player's observation held: its own cards by rank (P1), the tricks so far, the Put, the score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from rich.console import Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.text import Text

from brag_env.cards import format_card, parse_card
from brag_env.put.game import LastHand, PutGame, read_hand_number, replay_hand
from brag_env.put.observation import PutObserver
from brag_env.put.rules import ACTION_NAMES, LEGACY_OPTIONS, PUT_RANK, PutConfig, action_id
from brag_env.ui.put_view import SeatCards, event_text, table_view, unit_name
from brag_env.ui.terminal import action_label, card_text

# The keys every Put hand history has (``HandRecord.to_dict``).
REQUIRED_KEYS = (
    "hand",
    "num_players",
    "dealer",
    "scores_before",
    "deck",
    "deal",
    "actions",
    "tricks",
    "result",
    "scores_after",
)


@dataclass(frozen=True)
class PutStep:
    """One decision: ``seat`` knew ``view`` (its decoded observation), could choose among
    ``legal`` and chose ``action`` (``card``: the card it played or passed, else None)."""

    index: int
    seat: int
    view: dict[str, Any]
    legal: list[str]
    action: str
    card: str | None
    cards: SeatCards | None = None  # the seat's hand and the tricks so far, with suits


def config_for(record: Mapping[str, Any], overrides: Mapping[str, Any]) -> PutConfig:
    """The rules of a hand: its ``config`` (written by ``play``; an option it lacks predates
    that option, so the original rule, ``LEGACY_OPTIONS``), then ``overrides``, and the
    history's own player count."""
    stored = record.get("config")
    options = {**LEGACY_OPTIONS, **stored} if stored else {}
    options.update(overrides)
    options["num_players"] = record["num_players"]
    return PutConfig.from_dict(options)


def _game_at_start(record: Mapping[str, Any], config: PutConfig) -> PutGame:
    """A fresh engine at the start of a recorded hand (``PutGame.new_session``'s options)."""
    game = PutGame(config)
    game.new_session(
        np.random.default_rng(0),  # unused: the deck holds every dealt card
        deck=record["deck"],
        dealer=record["dealer"],
        scores=record["scores_before"],
        hand_number=read_hand_number(record),
    )
    return game


def _check(record: Mapping[str, Any], config: PutConfig) -> None:
    """``replay_hand`` must give back the recorded hand, entry by entry."""
    hand = {key: record[key] for key in REQUIRED_KEYS} | {"put": record.get("put")}
    again = replay_hand(hand, config)
    for key, value in again.items():
        if hand.get(key) != value:
            raise ValueError(
                f"hand {record['hand']}: {key} differs when played again "
                f"(recorded {hand.get(key)!r}, replayed {value!r})"
            )


def last_hand_of(record: Mapping[str, Any], config: PutConfig) -> LastHand:
    """What the table saw of a finished hand, as the engine keeps it for the next hand's
    observations (``PutGame.last_hand``: cards played face up, trick results, Put, points)."""
    _check(record, config)
    game = _game_at_start(record, config)
    for act in record["actions"]:
        game.apply(action_id(act["action"]))
    assert game.last_hand is not None  # the checked actions finish the hand
    return game.last_hand


def put_steps(
    record: Mapping[str, Any], config: PutConfig, last_hand: LastHand | None = None
) -> list[PutStep]:
    """Every decision of a recorded hand with what the acting player knew (see module doc).

    ``last_hand`` is the match's hand before this one (``last_hand_of``; None for a match's
    first hand), which every player's observation repeats.
    """
    _check(record, config)
    game = _game_at_start(record, config)
    game.last_hand = last_hand
    observer = PutObserver(config)
    steps = []
    for i, act in enumerate(record["actions"]):
        seat = game.current_player
        view = observer.decode(observer.set_from(game, seat))
        legal = [ACTION_NAMES[a] for a in game.legal_actions()]
        cards = SeatCards.of(game, seat)
        game.apply(action_id(act["action"]))
        steps.append(PutStep(i, seat, view, legal, act["action"], act.get("card"), cards))
    return steps


def hand_header(record: Mapping[str, Any], names: Sequence[str], config: PutConfig) -> Text:
    n = config.num_players
    first = (record["dealer"] + 1) % n
    units = range(config.num_units)
    score = " · ".join(f"{unit_name(u, names, config)} {record['scores_before'][u]}" for u in units)
    return Text(
        f"Dealer {names[record['dealer']]} · {names[first]} leads the first trick · "
        f"score before the hand: {score}"
    )


def step_panel(
    step: PutStep,
    record: Mapping[str, Any],
    names: Sequence[str],
    players: Sequence[str],
    config: PutConfig,
) -> Panel:
    """One decision: the acting player's knowledge, its options and its choice."""
    seat = step.seat
    body = table_view(step.view, seat, names, config, record["hand"], you="Own", cards=step.cards)
    choice = Text("Legal: " + ", ".join(action_label(a) for a in step.legal) + "\n", style="dim")
    choice.append(f"▶ {event_text(names[seat], step.action, step.card, True)}", style="bold")
    return Panel(
        Group(body, choice),
        title=f"Step {step.index + 1} · {names[seat]} ({escape(players[seat])}) to act",
        title_align="left",
    )


def hidden_hands(record: Mapping[str, Any], names: Sequence[str]) -> Group:
    """After the hand: every dealt hand, strongest first by P1 (the unplayed cards were
    hidden at the table)."""
    when = "; as dealt, before the pass" if len(record["deal"]) == 4 else ""
    title = f"Dealt hands (hidden at the table{when}):"
    lines: list[RenderableType] = [Text(title, style="bold")]
    for seat, cards in enumerate(record["deal"]):
        hand = sorted((parse_card(c) for c in cards), key=lambda c: (PUT_RANK[c], c))
        line = Text(f"  {names[seat]}: ")
        line.append_text(card_text([format_card(c) for c in hand]))
        lines.append(line)
    return Group(*lines)
