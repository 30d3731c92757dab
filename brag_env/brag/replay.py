"""Replaying hand histories (see ``brag_env.brag.history`` for the format).

:func:`replay_hand` puts a fresh engine at the recorded start of a hand (stacks, antes, the
deal, a pending B19 choice), re-applies the recorded actions and checks that every cost, stake and
pot, and the result (winner, see, chip changes, B20 bonus, B19 offer), come out the same.
:func:`replay_session` does that for every hand of a session and also checks what links the hands:
stacks carried over (B17), the button (B7/B16) and the kept blind hand (B19).
A mismatch raises ``ValueError`` saying which hand, which action and what differed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from brag_env.brag.game import BragGame, HandResult
from brag_env.brag.rules import BragConfig
from brag_env.cards import parse_cards


def _as_config(config: BragConfig | dict[str, Any] | None) -> BragConfig:
    if config is None:
        return BragConfig()
    if isinstance(config, dict):
        return BragConfig.from_dict(config)
    return config


def _mismatch(hand: int, what: str, recorded: Any, replayed: Any) -> ValueError:
    return ValueError(f"hand {hand}: {what} differs (recorded {recorded!r}, replayed {replayed!r})")


def replay_hand(
    history: dict[str, Any], config: BragConfig | dict[str, Any] | None = None
) -> HandResult:
    """Re-play one recorded hand under ``config`` and check it reproduces the recorded result."""
    cfg = _as_config(config)
    n = cfg.num_players
    k = history.get("hand_number", "?")
    if history.get("num_players") != n:
        raise ValueError(
            f"hand {k}: recorded for {history.get('num_players')} players, config has {n}"
        )
    dealt = [parse_cards(c) if c is not None else [] for c in history["cards"]]
    keep = None
    if history.get("keep") is not None:
        keep = (history["keep"]["seat"], parse_cards(history["keep"]["old_hand"]))
    game = BragGame(cfg)
    game._setup_replay(
        hand_number=history["hand_number"],
        dealer=history["dealer"],
        sitting_out=history["sitting_out"],
        chips_before=history["chips_before"],
        antes=history["antes"],
        dealt=dealt,
        keep=keep,
    )
    if list(history["deal_order"]) != game._order:
        raise _mismatch(k, "deal order", history["deal_order"], game._order)
    ids = {name: i for i, name in enumerate(cfg.action_names)}
    result: HandResult | None = None
    for i, act in enumerate(history["actions"]):
        if result is not None:
            raise ValueError(f"hand {k}: the hand ended at action {i - 1}, the history goes on")
        if game.current_player != act["seat"]:
            raise _mismatch(k, f"seat to act at action {i}", act["seat"], game.current_player)
        if act["action"] not in ids:
            raise ValueError(f"hand {k}: unknown action {act['action']!r} at action {i}")
        try:
            result = game.apply(ids[act["action"]])
        except ValueError as err:
            raise ValueError(f"hand {k}, action {i}: {err}") from None
        cost = game.betting[-1][2]
        pot = game.pot if result is None else result.pot
        for what, recorded, replayed in (
            ("cost", act["cost"], cost),
            ("stake", act["stake"], game.stake),
            ("pot", act["pot"], pot),
        ):
            if recorded != replayed:
                raise _mismatch(k, f"{what} after action {i} ({act['action']})", recorded, replayed)
    if result is None:
        raise ValueError(f"hand {k}: the history ends before the hand does")
    see = history.get("see")
    shown = {} if see is None else {int(s): parse_cards(c) for s, c in see["hands"].items()}
    for what, recorded, replayed in (
        ("winner", history["winner"], result.winner),
        ("by_see", history["by_see"], result.by_see),
        ("pot", history["pot"], result.pot),
        ("deltas", list(history["deltas"]), result.deltas),
        ("chips_after", list(history["chips_after"]), result.chips),
        ("bonus", list(history["bonus"]), result.bonus),
        ("keep_offer", history["keep_offer"], result.keep_offer),
        ("shown hands", shown, result.shown),
    ):
        if recorded != replayed:
            raise _mismatch(k, what, recorded, replayed)
    return result


def replay_session(
    histories: Sequence[dict[str, Any]], config: BragConfig | dict[str, Any] | None = None
) -> list[HandResult]:
    """Replay every hand of a session and check the links between consecutive hands."""
    cfg = _as_config(config)
    results = []
    prev: dict[str, Any] | None = None
    for i, hist in enumerate(histories):
        if hist["hand_number"] != i:
            raise _mismatch(i, "hand number", hist["hand_number"], i)
        if prev is not None:
            if list(hist["chips_before"]) != list(prev["chips_after"]):  # B17
                raise _mismatch(i, "stacks carried over", hist["chips_before"], prev["chips_after"])
            dealer = _next_dealer(prev["dealer"], hist["sitting_out"], cfg.num_players)
            if hist["dealer"] != dealer:  # B7/B16
                raise _mismatch(i, "dealer", hist["dealer"], dealer)
            expected_keep = None
            if prev["keep_offer"]:  # B19
                expected_keep = (prev["winner"], _played_hand(prev, prev["winner"]))
            keep = hist.get("keep")
            got_keep = None if keep is None else (keep["seat"], keep["old_hand"])
            if got_keep != expected_keep:
                raise _mismatch(i, "kept blind hand", got_keep, expected_keep)
        results.append(replay_hand(hist, cfg))
        prev = hist
    return results


def _played_hand(hist: dict[str, Any], seat: int) -> str | None:
    """The cards ``seat`` played: the dealt hand, or the old one it kept under B19."""
    keep = hist.get("keep")
    if keep is not None and keep["seat"] == seat and keep["choice"] == "keep_old_hand":
        return keep["old_hand"]
    return hist["cards"][seat]


def _next_dealer(dealer: int, sitting_out: Sequence[int], n: int) -> int:
    out = set(sitting_out)
    d = dealer
    for _ in range(n):
        d = (d + 1) % n
        if d not in out:
            return d
    raise ValueError("no seat left to deal")
