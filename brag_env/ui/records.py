"""The shape of a hand history line, checked before the engine replays it.

A line of a history file may be valid JSON and still not a hand history: a number where a list
belongs, a null action, a seat that is not at the table. ``check_brag``/``check_put`` look at
every entry the engine reads to set a hand up and apply its actions, and raise ``ValueError``
naming the first wrong one. What is not checked here (results, tricks, a see's hands and
categories, the B19 choice) is compared with the engine's own record when the hand is replayed
(``brag_replay.brag_steps``, ``put_replay.put_steps``), so the viewer only ever shows entries
the engine produced.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from brag_env.games import GAME_NAMES, game_spec

GAMES = GAME_NAMES


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(record: Mapping[str, Any], key: str, low: int, high: int | None = None) -> int:
    value = record[key]
    if not _whole(value) or value < low or (high is not None and value > high):
        span = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{key} must be a whole number {span}, got {value!r}")
    return value


def _seat(value: object, what: str, n: int) -> None:
    if not _whole(value) or not 0 <= value < n:  # type: ignore[operator]
        raise ValueError(f"{what} must be a seat number 0..{n - 1}, got {value!r}")


def _list(record: Mapping[str, Any], key: str, length: int | None = None) -> list[Any]:
    value = record[key]
    if not isinstance(value, list) or (length is not None and len(value) != length):
        size = f" of {length}" if length is not None else ""
        raise ValueError(f"{key} must be a list{size}, got {value!r}")
    return value


def _numbers(record: Mapping[str, Any], key: str, length: int | None = None) -> None:
    for item in _list(record, key, length):
        if not _whole(item):
            raise ValueError(f"{key} must hold whole numbers, got {item!r}")


def _seats(record: Mapping[str, Any], key: str, n: int) -> None:
    for item in _list(record, key):
        _seat(item, f"every seat in {key}", n)


def _object(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a JSON object, got {value!r}")
    return value


def _text(value: object, what: str, none: bool = False) -> None:
    if not (isinstance(value, str) or (none and value is None)):
        raise ValueError(f"{what} must be {'text or null' if none else 'text'}, got {value!r}")


def _actions(record: Mapping[str, Any], n: int, numbers: tuple[str, ...]) -> None:
    for i, act in enumerate(_list(record, "actions")):
        act = _object(act, f"action {i}")
        for key in ("seat", "action", *numbers):
            if key not in act:
                raise ValueError(f"action {i} has no {key!r}")
        _seat(act["seat"], f"the seat of action {i}", n)
        _text(act["action"], f"the name of action {i}")
        for key in numbers:
            if not _whole(act[key]):
                raise ValueError(f"the {key} of action {i} must be a whole number")
        if "card" in act:
            _text(act["card"], f"the card of action {i}", none=True)


def check_common(record: Mapping[str, Any]) -> None:
    """Entries of both games' lines: the rules and who played (``evaluate``/``play`` keys)."""
    if record.get("config") is not None:
        _object(record["config"], "config")
    for key in ("episode", "reset_seed", "deal_group"):
        value = record.get(key)
        if value is not None and not _whole(value):
            raise ValueError(f"{key} must be a whole number or null, got {value!r}")
    agents = record.get("seat_agents")
    if agents is not None and (
        not isinstance(agents, list) or not all(isinstance(a, str) for a in agents)
    ):
        raise ValueError(f"seat_agents must be a list of agent labels, got {agents!r}")


def check_agreement(record: Mapping[str, Any], n: int) -> None:
    """Entries that say the same thing twice must agree: the recorded rules' ``num_players``
    and the number of ``seat_agents`` with the line's ``num_players``; for Brag, the rules'
    ``hands_per_session`` with the hand number."""
    config = record.get("config") or {}
    if "num_players" in config and config["num_players"] != n:
        raise ValueError(
            f"config.num_players is {config['num_players']!r} but the hand has num_players {n}"
        )
    agents = record.get("seat_agents")
    if agents is not None and len(agents) != n:
        raise ValueError(f"seat_agents names {len(agents)} players but num_players is {n}")
    hands, number = config.get("hands_per_session"), record.get("hand_number")
    if _whole(hands) and _whole(number) and not number < hands:
        raise ValueError(
            f"hand_number {number} is past the session: config.hands_per_session is {hands} "
            "(hands are numbered from 0)"
        )


def check_brag(record: Mapping[str, Any]) -> None:
    """A Brag hand history's entries, as far as the engine reads them (see module doc)."""
    check_common(record)
    n = _number(record, "num_players", 2, 8)
    check_agreement(record, n)
    _number(record, "hand_number", 0)
    _seat(record["dealer"], "dealer", n)
    _seats(record, "deal_order", n)
    _seats(record, "sitting_out", n)
    for key in ("chips_before", "antes", "deltas", "chips_after"):
        _numbers(record, key, n)
    _numbers(record, "bonus")
    for seat, cards in enumerate(_list(record, "cards", n)):
        _text(cards, f"the cards of seat {seat}", none=True)
    _actions(record, n, ("cost", "stake", "pot"))
    keep = record.get("keep")
    if keep is not None:
        keep = _object(keep, "keep")
        _seat(keep.get("seat"), "the seat of keep", n)
        _text(keep.get("old_hand"), "the old hand of keep")
    see = record.get("see")
    if see is not None:
        see = _object(see, "see")
        _seat(see.get("seer"), "the seer of see", n)
        _seat(see.get("seen"), "the seen seat of see", n)
        hands = _object(see.get("hands"), "the hands of see")
        for seat in (see["seer"], see["seen"]):
            _text(hands.get(str(seat)), f"the hand of seat {seat} in see")
    # B15/B16 entries (absent from histories written before brag_v1).
    for key in ("carried_in", "carried"):
        if key in record:
            _number(record, key, 0)
    if "shown" in record:
        for seat, cards in _object(record["shown"], "shown").items():
            _text(cards, f"the shown hand of seat {seat}")
    for key, numbers in (("covers", ("seat", "closed_pot")), ("pots", ("chips", "winner"))):
        for i, item in enumerate(_list(record, key) if key in record else []):
            item = _object(item, f"entry {i} of {key}")
            for field in numbers:
                if not _whole(item.get(field)):
                    raise ValueError(f"the {field} of entry {i} of {key} must be a whole number")
    if "keeper" in record and record["keeper"] != -1:
        _seat(record["keeper"], "keeper", n)
    if record.get("carried"):  # B15: nobody won a carried pot
        if record["winner"] != -1:
            raise ValueError(f"winner must be -1 when the pot carried, got {record['winner']!r}")
    else:
        _seat(record["winner"], "winner", n)


def check_put(record: Mapping[str, Any]) -> None:
    """A Put hand history's entries, as far as the engine reads them (see module doc)."""
    check_common(record)
    n = _number(record, "num_players", 2, 4)
    check_agreement(record, n)
    _number(record, "hand", 1)
    _seat(record["dealer"], "dealer", n)
    _numbers(record, "scores_before", 2 if n == 4 else n)
    deck = record["deck"]
    if not isinstance(deck, str):
        for card in _list(record, "deck"):
            _text(card, "every card of deck")
    for seat, cards in enumerate(_list(record, "deal", n)):
        if not isinstance(cards, list):
            raise ValueError(f"the cards of seat {seat} in deal must be a list, got {cards!r}")
        for card in cards:
            _text(card, f"every card of seat {seat} in deal")
    _actions(record, n, ())


def check_brag7(record: Mapping[str, Any]) -> None:
    """The shape of a Seven-card Brag deal record (B24); ``brag7.game.check_deal_record``
    then plays it again and compares every entry."""
    n = _number(record, "num_players", 2, 7)
    _number(record, "deal_number", 0)
    _seat(record["dealer"], "dealer", n)
    _number(record, "pot", 0)
    _numbers(record, "arrangements", n)
    _numbers(record, "deltas", n)
    for key in ("dealt", "first_hands", "second_hands", "discards"):
        for i, item in enumerate(_list(record, key, n)):
            _text(item, f"{key}[{i}]")


def check_record(game: str, record: Mapping[str, Any]) -> None:
    """The game's own check of a line (its spec's ``record_check``: ``check_brag`` ...)."""
    game_spec(game).load("record_check")(record)
