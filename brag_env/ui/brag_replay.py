"""Rebuild what each Brag player knew at each recorded decision, and draw it.

A hand history (``brag_env.brag.history``) is first checked by the engine's
``brag_env.brag.replay.replay_hand`` (every cost, stake, pot and the result must come out the
same). Then a fresh engine is put at the start of the hand exactly as ``replay_hand`` does it and
the recorded actions are applied one by one; before each one, the acting seat's observation is
encoded by ``BragObserver`` and decoded by ``decode_observation``. A step's ``view`` is therefore
exactly what that player's observation held: its own cards only once it had looked (B10), the
public betting, stakes and pot, and the cards shown at sees since the last shuffle (B18).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.text import Text

from brag_env.brag.game import BragGame, HandResult
from brag_env.brag.observation import BragObserver, decode_observation
from brag_env.brag.replay import replay_hand
from brag_env.brag.rules import BragConfig
from brag_env.brag.wild import config_ranking, stand_in_text
from brag_env.cards import parse_cards
from brag_env.ui.brag_view import CATEGORY_TEXT, event_text, table_view
from brag_env.ui.terminal import action_label, card_text, hand_text

# The keys every Brag hand history has (``brag_env.brag.history``).
REQUIRED_KEYS = (
    "hand_number",
    "num_players",
    "dealer",
    "deal_order",
    "sitting_out",
    "chips_before",
    "antes",
    "cards",
    "actions",
    "winner",
    "by_see",
    "deltas",
    "chips_after",
)


# History entries that depend on the session around a hand, not on the hand itself.
_SESSION_KEYS = frozenset({"config", "shuffled", "stacked"})


@dataclass(frozen=True)
class BragStep:
    """One decision: ``seat`` knew ``view`` (its decoded observation), could choose among
    ``legal`` and chose ``action``, which cost ``cost`` and left ``stake`` and ``pot``."""

    index: int
    seat: int
    view: dict[str, Any]
    legal: list[str]
    action: str
    cost: int
    stake: int
    pot: int


def config_for(
    record: Mapping[str, Any], overrides: Mapping[str, Any], session_hands: int = 1
) -> BragConfig:
    """The rules a hand was played with: its ``config`` (written by ``play``), then
    ``overrides`` (``--option``), and the history's own player count.

    Without a recorded ``hands_per_session``, the number of hands its session has in the file
    stands in for it: the B19 keep offer depends on whether another hand follows, and a session
    cut short by B16 ended for want of players, which the engine sees from the stacks anyway.
    """
    options = dict(record.get("config") or {})
    options.update(overrides)
    options["num_players"] = record["num_players"]
    options.setdefault("hands_per_session", max(session_hands, record["hand_number"] + 1))
    return BragConfig.from_dict(options)


def shown_before(session: Sequence[Mapping[str, Any]]) -> list[int]:
    """Cards shown at sees since the last shuffle, at the start of ``session[-1]``.

    ``session`` is the hands of one session so far, in order, the hand of interest last.
    """
    shown: list[int] = []
    for i, record in enumerate(session):
        if record["hand_number"] == 0 or record.get("shuffled", False):
            shown = []
        if i == len(session) - 1:
            break
        if "shown" in record:  # every hand shown: the see's and the B16 comparisons'
            for cards in record["shown"].values():
                shown.extend(parse_cards(cards))
            continue
        see = record.get("see")
        if see is not None:
            for seat in (see["seer"], see["seen"]):
                shown.extend(parse_cards(see["hands"][str(seat)]))
    return shown


def previous_result(record: Mapping[str, Any], config: BragConfig) -> HandResult:
    """The result of a recorded hand, as the engine keeps it for the next hand's observations
    (``BragGame.previous_result``); checked by ``replay_hand`` on the way."""
    return replay_hand(dict(record), config)


def brag_steps(
    record: Mapping[str, Any],
    config: BragConfig,
    shown: Sequence[int] = (),
    previous: HandResult | None = None,
) -> list[BragStep]:
    """Every decision of a recorded hand with what the acting player knew (see module doc).

    ``shown`` are the cards shown at sees since the last shuffle (``shown_before``) and
    ``previous`` the result of the session's hand before this one (``previous_result``;
    None for a session's first hand): both are part of what the table saw.
    """
    replay_hand(dict(record), config)  # ValueError naming the hand and what differs
    game = BragGame(config)
    keep = record.get("keep")
    # The same start as ``replay_hand``: stacks, antes, the deal and a pending B19 choice.
    game._setup_replay(
        hand_number=record["hand_number"],
        dealer=record["dealer"],
        sitting_out=record["sitting_out"],
        chips_before=record["chips_before"],
        antes=record["antes"],
        dealt=[parse_cards(c) if c is not None else [] for c in record["cards"]],
        keep=None if keep is None else (keep["seat"], parse_cards(keep["old_hand"])),
        previous=previous,
        carried_in=record.get("carried_in", 0),
    )
    # B18: a fresh engine forgets earlier hands; give it what their sees showed.
    game.shown_cards = list(shown)
    observer = BragObserver(config)
    ids = {name: i for i, name in enumerate(config.action_names)}
    names = config.action_names
    steps = []
    # B22: the discards come first, each seen by the discarder alone (cost 0, nothing public).
    for i, step in enumerate(record.get("discards") or []):
        seat = game.current_player
        view = decode_observation(observer.set_from(game, seat), config)
        legal = [names[a] for a in game.legal_actions()]
        game.apply(ids[step["action"]])
        steps.append(BragStep(i, seat, view, legal, step["action"], 0, game.stake, game.pot))
    first = len(steps)
    for i, act in enumerate(record["actions"], first):
        seat = game.current_player
        view = decode_observation(observer.set_from(game, seat), config)
        legal = [names[a] for a in game.legal_actions()]
        game.apply(ids[act["action"]])
        steps.append(
            BragStep(i, seat, view, legal, act["action"], act["cost"], act["stake"], act["pot"])
        )
    # Every entry the viewer reads must be the engine's own (a see's hands and categories,
    # the B19 choice, the looks): ``replay_hand`` does not compare them all.
    again = game.history()[-1]
    for key, value in again.items():
        if key not in _SESSION_KEYS and record.get(key) != value:
            raise ValueError(
                f"hand {record['hand_number']}: {key} differs when played again "
                f"(recorded {record.get(key)!r}, replayed {value!r})"
            )
    return steps


def hand_header(record: Mapping[str, Any], names: Sequence[str]) -> list[RenderableType]:
    """Dealer, antes and any B19 choice of the hand (all public at the table)."""
    antes = sum(record["antes"])
    lines: list[RenderableType] = [
        Text(
            f"Dealer {names[record['dealer']]} · antes in the pot: {antes} · dealt from "
            f"the dealer's left: {', '.join(names[s] for s in record['deal_order'])}"
        )
    ]
    if record.get("carried_in"):
        lines.append(Text(f"Carried from the last deal: {record['carried_in']} chips."))
    if record.get("sitting_out"):
        out = ", ".join(names[s] for s in record["sitting_out"])
        lines.append(Text(f"Sitting out: {out}"))
    keep = record.get("keep")
    if keep is not None:
        lines.append(
            Text(
                f"{names[keep['seat']]} was left alone blind last hand and first chooses "
                "between that unseen hand and the new one."
            )
        )
    return lines


def step_panel(
    step: BragStep, names: Sequence[str], players: Sequence[str], config: BragConfig
) -> Panel:
    """One decision: the acting player's knowledge, its options and its choice."""
    seat = step.seat
    body = table_view(step.view, seat, names, players, config, you="Own")
    choice = Text("Legal: " + ", ".join(action_label(a) for a in step.legal) + "\n", style="dim")
    choice.append(f"▶ {names[seat]} chose: {event_text(step.action, step.cost)}", style="bold")
    choice.append(f" · stake {step.stake} · pot {step.pot}")
    return Panel(
        Group(body, choice),
        title=f"Step {step.index + 1} · {names[seat]} ({escape(players[seat])}) to act",
        title_align="left",
    )


def hidden_hands(
    record: Mapping[str, Any],
    steps: Sequence[BragStep],
    names: Sequence[str],
    config: BragConfig,
) -> Group:
    """After the hand: every hand played, which stayed hidden from the others at the table
    (B19: the hand a keeper chose, and the one that went under the deck)."""
    looked = {s.seat: s.index for s in steps if s.action == "look"}
    order = config_ranking(config)  # B25: categories of the readings
    lines: list[RenderableType] = [Text("Dealt hands (hidden at the table):", style="bold")]
    keep = record.get("keep")
    thrown = {d["seat"]: parse_cards(d["cards"]) for d in record.get("discards") or []}
    for seat, cards in enumerate(record["cards"]):
        if cards is None:
            continue
        played = [c for c in parse_cards(cards) if c not in thrown.get(seat, ())]  # B22
        other = None
        if keep is not None and keep["seat"] == seat:
            old = parse_cards(keep["old_hand"])
            if keep["choice"] == "keep_old_hand":
                played, other, how = old, played, "kept the last hand's cards"
            else:
                other, how = old, "took the new hand"
        line = Text(f"  {names[seat]}: ")
        line.append_text(card_text(hand_text(played)))
        line.append(f"  {CATEGORY_TEXT[order.category(played)]}")
        if order.has_wilds and order.stand_ins(played):
            line.append(f" ({stand_in_text(order.stand_ins(played))})")
        if seat in looked:
            line.append(f" · looked at step {looked[seat] + 1}")
        elif config.allow_blind:
            line.append(" · never looked")
        if other is not None:
            line.append(f" · {how}, ")
            line.append_text(card_text(hand_text(other)))
            line.append(" went under the deck")
        lines.append(line)
    for step in record.get("discards") or []:  # B22: put aside face down
        line = Text(f"  {names[step['seat']]} discarded: ")
        line.append_text(card_text(hand_text(step["cards"])))
        lines.append(line)
    return Group(*lines)
