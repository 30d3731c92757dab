"""Scripted Brag scenarios: a fixed deal, a list of action names and the expected outcome.

Scenario files live in ``seeds/scenarios/brag_*.json``; the engine tests, the environment tests
and the evaluation tools read the same files. A file is one JSON object:

``name``, ``description``
    What the scenario shows (``rules``: the rule IDs it exercises).
``config``
    ``BragConfig`` options (unknown keys are an error).
``seed``
    Seeds the generator for everything the file does not fix (the rest of the deck, later shuffles).
``dealer``
    The first dealer's seat, or ``null`` for the seeded cut (B7).
``deck``
    Card text stacked on top of the deck, top card first (dealt per B9), or ``null``.
``actions``
    Action names (``config.action_names``) applied in order, each by the seat to act.
``expected``
    ``deltas``: each seat's chip change summed over the hands the actions finish; optional
    ``hands``: per finished hand, any keys of ``HandResult.to_dict()``: ``hand_number``,
    ``dealer``, ``winner``, ``by_see``, ``deltas``, ``pot``, ``chips``, ``shown`` (seat number as
    text -> card text), ``seer``, ``seen``, ``bonus``, ``keep_offer``, ``covers``, ``pots``
    (B16), ``carried_in``, ``carried``, ``keeper`` (B15, B19); optional ``session_over``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from brag_env.brag.game import BragGame, HandResult
from brag_env.brag.rules import BragConfig
from brag_env.cards import format_cards, parse_cards
from brag_env.io import MAX_JSON_BYTES, loads_bounded, read_text_bounded

_KEYS = {"name", "description", "rules", "config", "seed", "dealer", "deck", "actions", "expected"}


@dataclass(frozen=True)
class Scenario:
    name: str
    config: BragConfig
    actions: tuple[str, ...]
    expected: dict[str, Any]
    seed: int = 0
    dealer: int | None = None
    deck: str | None = None
    description: str = ""
    rules: tuple[str, ...] = field(default_factory=tuple)

    def action_ids(self) -> list[int]:
        ids = {name: i for i, name in enumerate(self.config.action_names)}
        unknown = [a for a in self.actions if a not in ids]
        if unknown:
            raise ValueError(f"scenario {self.name!r}: unknown action name(s) {unknown}")
        return [ids[a] for a in self.actions]


def scenario_from_dict(data: dict[str, Any]) -> Scenario:
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ValueError(f"unknown scenario key(s): {', '.join(unknown)}")
    for key in ("name", "config", "actions", "expected"):
        if key not in data:
            raise ValueError(f"scenario is missing {key!r}")
    return Scenario(
        name=data["name"],
        config=BragConfig.from_dict(data["config"]),
        actions=tuple(data["actions"]),
        expected=dict(data["expected"]),
        seed=int(data.get("seed", 0)),
        dealer=data.get("dealer"),
        deck=data.get("deck"),
        description=data.get("description", ""),
        rules=tuple(data.get("rules", ())),
    )


def load_scenario(path: str | Path) -> Scenario:
    """Read a scenario file (see the module docstring for the format); its size and nesting are
    bounded (``brag_env.io``), a bad file is a one-line ``ValueError``."""
    text = read_text_bounded(path, MAX_JSON_BYTES, "scenario")
    return scenario_from_dict(loads_bounded(text, f"scenario {path}"))


def play_scenario(scenario: Scenario) -> tuple[BragGame, list[HandResult]]:
    """Deal the scenario and apply its actions; returns the game and the finished hands."""
    game = BragGame(scenario.config)
    game.new_session(
        np.random.default_rng(scenario.seed), deck=scenario.deck, dealer=scenario.dealer
    )
    results: list[HandResult] = []
    for i, action in enumerate(scenario.action_ids()):
        try:
            result = game.apply(action)
        except ValueError as err:
            raise ValueError(f"scenario {scenario.name!r}, action {i}: {err}") from None
        if result is not None:
            results.append(result)
    return game, results


def check_scenario(scenario: Scenario) -> BragGame:
    """Play the scenario and raise ``ValueError`` if the outcome differs from ``expected``."""
    game, results = play_scenario(scenario)
    exp = scenario.expected
    n = scenario.config.num_players
    totals = [sum(r.deltas[s] for r in results) for s in range(n)]
    if "deltas" in exp and list(exp["deltas"]) != totals:
        raise ValueError(f"scenario {scenario.name!r}: deltas {totals}, expected {exp['deltas']}")
    if "hands" in exp:
        if len(exp["hands"]) != len(results):
            raise ValueError(
                f"scenario {scenario.name!r}: {len(results)} hands finished, "
                f"expected {len(exp['hands'])}"
            )
        for k, (want, got) in enumerate(zip(exp["hands"], results, strict=True)):
            got_d = got.to_dict()
            for key, value in want.items():
                if key not in got_d:
                    raise ValueError(f"scenario {scenario.name!r}: unknown hand key {key!r}")
                if got_d[key] != value:
                    raise ValueError(
                        f"scenario {scenario.name!r}, hand {k}: {key} is {got_d[key]!r}, "
                        f"expected {value!r}"
                    )
    if "session_over" in exp and exp["session_over"] != game.session_over:
        raise ValueError(
            f"scenario {scenario.name!r}: session_over is {game.session_over}, "
            f"expected {exp['session_over']}"
        )
    return game


def stack_deck(hands: Sequence[str | Sequence[int] | None], dealer: int, rest: str = "") -> str:
    """Deck text, top card first, that deals ``hands[s]`` to seat ``s`` when ``dealer`` deals.

    Follows B9 (one card at a time, from the left of the dealer); seats given ``None`` sit out.
    Every seat gets the same number of cards: 3, or 4 or 5 for B22's ``cards_dealt``.
    ``rest`` is appended below (for instance the next hand's cards, B18).
    """
    n = len(hands)
    if not 0 <= dealer < n:
        raise ValueError(f"dealer must be a seat in 0..{n - 1}, got {dealer}")
    parsed = {s: parse_cards(h) for s, h in enumerate(hands) if h is not None}
    per = len(next(iter(parsed.values()))) if parsed else 3  # 4 or 5 with B22's cards_dealt
    if not 3 <= per <= 5:
        per = 3
    for s, cards in parsed.items():
        if len(cards) != per:
            raise ValueError(f"seat {s} must get {per} cards (as every seat), got {len(cards)}")
    order = [(dealer + i) % n for i in range(1, n + 1) if (dealer + i) % n in parsed]
    top = [parsed[s][r] for r in range(per) for s in order]
    text = format_cards(top, symbols=False)
    return f"{text} {rest}".strip()


def apply_names(game: BragGame, names: Iterable[str]) -> list[HandResult]:
    """Apply actions by name; returns the results of the hands they finished."""
    ids = {name: i for i, name in enumerate(game.config.action_names)}
    results = []
    for name in names:
        if name not in ids:
            raise ValueError(f"unknown action name {name!r}; names: {', '.join(ids)}")
        result = game.apply(ids[name])
        if result is not None:
            results.append(result)
    return results


def legal_names(game: BragGame) -> list[str]:
    """The names of the legal actions of the seat to act."""
    names = game.config.action_names
    return [names[a] for a in game.legal_actions()]
