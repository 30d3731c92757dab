"""Rich views of a Put table: one seat's knowledge, and the public end of a hand.

The table view is drawn from a DECODED OBSERVATION (``put_v1.decode_observation``) of one seat:
its own hand (ranks: suits never matter in Put, P1), the tricks played so far, the Put, the score,
and with partners what it passed and received (P8). Seats in an observation are relative to the
observer; ``names`` are indexed by absolute seat. The observation has no suits; the cards the
seat holds and has seen played are passed in (``SeatCards``) so that the screen shows the same
cards, suits included, as the moves and the end of the hand.

The end of a hand is drawn from the public parts of a hand history (``brag_env.put.game``): the
cards played to each trick, the Put and its answers, the result and the score. The ``deal`` and
``deck`` of the history are never read here: cards not played when a Put is folded stay hidden.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from brag_env.cards import format_card, parse_card
from brag_env.put.rules import PUT_RANK, RANK_NAMES, PutConfig
from brag_env.ui.terminal import card_text, verb


@dataclass(frozen=True)
class SeatCards:
    """What one seat can name by suit: the card ids in its hand, and the card each seat
    played to each trick of the hand so far (face up, so everyone saw them)."""

    hand: tuple[int, ...] = ()
    tricks: tuple[Mapping[int, int], ...] = field(default_factory=tuple)

    @classmethod
    def of(cls, game: Any, seat: int) -> SeatCards:
        """From a ``PutGame`` in play: ``seat``'s hand and the tricks of its current hand."""
        tricks = [dict(cards) for _, cards, _ in game.record.tricks]
        if game.trick:
            tricks.append({p: card for p, _, card in game.trick})
        return cls(tuple(game.hands[seat]), tuple(tricks))

    def card_of_rank(self, rank: str) -> str | None:
        """The card of put rank ``rank`` that playing it would use (the engine plays the lowest
        card id of a rank first), with its suit; None when the hand holds none."""
        r = RANK_NAMES.index(rank)
        ids = [c for c in self.hand if PUT_RANK[c] == r]
        return format_card(min(ids)) if ids else None

    def hand_text(self) -> str:
        """The hand strongest first (by put rank, then card id), suits included."""
        return " ".join(format_card(c) for c in sorted(self.hand, key=lambda c: (PUT_RANK[c], c)))


def unit_name(unit: int, names: Sequence[str], config: PutConfig) -> str:
    """A scoring unit: a player, or with four players a side (seats u and u + 2, P8)."""
    if config.partnerships:
        return f"{names[unit]} & {names[unit + 2]}"
    return names[unit]


def points_text(points: int) -> str:
    return f"{points} point" + ("" if points == 1 else "s")


def seen_put_text(config: PutConfig) -> str:
    spp = config.seen_put_points
    return "the whole match" if spp == "game" else points_text(int(spp))


def rank_order_text() -> str:
    """P1's rank order, for a new player's screen."""
    return "Ranks high to low: " + " ".join(RANK_NAMES) + " · suits never matter"


def option_text(
    action: str,
    config: PutConfig,
    view: Mapping[str, Any] | None = None,
    cards: SeatCards | None = None,
) -> str:
    """A legal action as a menu entry (P3, P4, P7, P8); ``view`` is the chooser's decoded
    observation (who already folded to a Put, P7), ``cards`` its cards with their suits."""
    if action == "pass_none":  # P8 optional exchange
        return "pass nothing (partners swap only when both pass a card)"
    if action.startswith(("play_", "pass_")):
        rank = action[5:]
        card = (cards.card_of_rank(rank) if cards is not None else None) or rank
        return f"play {card}" if action.startswith("play_") else f"pass {card} to your partner"
    worth = seen_put_text(config)
    n = config.num_players
    if action == "put":
        if n == 3 and config.simultaneous_answers:  # P7: both answer, unseen by each other
            return (
                f"call Put! (both answer, unseen by each other: one see and all play for "
                f"{worth}; two folds: 1 point to you)"
            )
        if n == 3:  # P7, put_answers="in_turn": the second answers only after a fold
            return (
                f"call Put! (both others answer: one see and all play for {worth}; two "
                "folds: 1 point to you)"
            )
        if n == 4:  # P8: the next opponent answers for their side
            return (
                f"call Put! (the next opponent answers for their side: see for {worth}, or "
                "fold: 1 point to your side)"
            )
        return f"call Put! (the opponent sees, for {worth}, or folds: 1 point to you)"
    if action == "see":
        return f"see the Put: play on, the hand is worth {worth}"
    if action == "fold":
        if n == 3 and view is not None and not view["put"]["folded"]:
            return (
                "fold: if the other player folds too the caller scores 1 point, if they see "
                "you still play on"
            )
        if n == 4:
            return "fold for your side: the caller's side scores 1 point and the hand ends"
        return "fold: the caller scores 1 point and the hand ends"
    return action


def action_options(
    legal: Sequence[str],
    config: PutConfig,
    view: Mapping[str, Any] | None = None,
    cards: SeatCards | None = None,
) -> list[tuple[str, str]]:
    """``(name, description)`` per legal action, for ``Prompter.choose``."""
    return [(name, option_text(name, config, view, cards)) for name in legal]


def forced_reason(view: Mapping[str, Any], legal: Sequence[str]) -> str | None:
    """Why the observer has a single choice (its last card, or cards of one rank), else None."""
    if len(legal) != 1:
        return None
    hand = view["hand"]
    if len(hand) == 1:
        return "Your last card: it is the only move."
    if len(set(hand)) == 1:
        return f"All your cards are {hand[0]}s and suits never matter: one move."
    return "This is your only legal move."


def event_text(
    subject: str,
    action: str,
    card: str | None,
    reveal_pass: bool = False,
    optional_pass: bool = False,
) -> str:
    """One event as a sentence about ``subject`` ("You play 9♦", "seat 1 calls Put!"); a
    passed card is private (P8) unless ``reveal_pass``; with ``optional_pass`` so is whether
    a card was chosen at all."""
    if action.startswith("pass_") and optional_pass and not reveal_pass:
        return f"{subject} {verb(subject, 'choose')} what to pass, face down"
    if action == "pass_none":
        return f"{subject} {verb(subject, 'pass')} nothing"
    if action.startswith("play_"):
        shown = format_card(parse_card(card)) if card else action[5:]
        return f"{subject} {verb(subject, 'play')} {shown}"
    if action.startswith("pass_"):
        what = format_card(parse_card(card)) if reveal_pass and card else "a card face down"
        partner = "your partner" if subject == "You" else "their partner"
        return f"{subject} {verb(subject, 'pass')} {what} to {partner}"
    words = {"put": ("call", " Put!"), "see": ("see", " the Put"), "fold": ("fold", " to the Put")}
    if action in words:
        base, rest = words[action]
        return f"{subject} {verb(subject, base)}{rest}"
    return f"{subject}: {action}"


def _absolute(me: int, relative: int | None, n: int) -> int | None:
    return None if relative is None else (me + relative) % n


def trick_rows(
    view: Mapping[str, Any],
    me: int,
    names: Sequence[str],
    config: PutConfig,
    cards: SeatCards | None = None,
) -> list[tuple[str, str, str, str]]:
    """The tricks of the hand so far as seat ``me`` saw them: (number, led by, the cards in
    play order from the leader round the table (P3), the result)."""
    n = config.num_players
    rows = []
    for t, trick in enumerate(view["tricks"], 1):
        lead = trick["leader"] or 0
        order = sorted(trick["cards"].items(), key=lambda item: (item[0] - lead) % n)
        seen = cards.tricks[t - 1] if cards is not None and t <= len(cards.tricks) else {}
        played = ", ".join(
            f"{names[(me + rel) % n]} "
            + (format_card(seen[(me + rel) % n]) if (me + rel) % n in seen else rank)
            for rel, rank in order
        )
        if trick["tied"]:
            result = "tied: its leader leads again"
        elif trick["winner"] is not None:
            result = f"won by {names[_absolute(me, trick['winner'], n)]}"  # type: ignore[index]
        else:
            result = "in play"
        leader = _absolute(me, trick["leader"], n)
        rows.append((str(t), names[leader] if leader is not None else "-", played or "-", result))
    return rows


def table_notes(
    view: Mapping[str, Any],
    me: int,
    names: Sequence[str],
    config: PutConfig,
    hand_number: int | None = None,
    you: str = "Your",
    waiting: str | None = None,
) -> dict[str, str]:
    """The plain lines of the table as seat ``me`` knows them, by what they tell: ``score``,
    ``dealer``, ``tricks_won``, ``put`` (the Put and its answers so far, P4, P7), ``passed``
    and ``exchanged`` (P8). A line that does not apply is left out. The terminal and the web
    table both show these. An unanswered Put reads as ``me``'s to answer (the terminal draws
    the table at ``me``'s decision), unless ``waiting`` says whose answer the table awaits
    (the web table, drawn while others act)."""
    n = config.num_players
    scores = [0] * n
    for rel, score in enumerate(view["scores"]):
        scores[(me + rel) % n] = score
    units = range(2) if config.partnerships else range(n)
    score = " · ".join(f"{unit_name(u, names, config)} {scores[u]}" for u in units)
    notes = {"score": f"Score: {score} (first to {config.target_points})"}
    dealer = _absolute(me, view["dealer"], n)
    head = f"Hand {hand_number} · " if hand_number is not None else ""
    notes["dealer"] = f"{head}dealer {names[dealer] if dealer is not None else '-'}"
    won = [0] * n
    for rel, count in enumerate(view["tricks_won"]):
        won[(me + rel) % n] = count
    notes["tricks_won"] = "Tricks won: " + " · ".join(f"{names[s]} {won[s]}" for s in range(n))
    put = view["put"]
    if put["caller"] is not None:
        caller = names[_absolute(me, put["caller"], n)]  # type: ignore[index]
        if put["seen"]:
            state = f"seen: the hand is worth {seen_put_text(config)}"
        elif waiting is not None:
            state = waiting
        else:
            state = "your answer: see or fold" if you == "Your" else "to answer: see or fold"
        folded = [names[_absolute(me, s, n)] for s in put["folded"]]  # type: ignore[index]
        if folded:
            state += f" (folded: {', '.join(folded)})"
        notes["put"] = f"Put! called by {caller}: {state}"
    if config.partnerships:
        passed, received = view.get("passed"), view.get("received")
        partner = names[(me + 2) % n]
        if passed or received:
            whose = "your" if you == "Your" else "the"
            notes["passed"] = (
                f"Passed to {whose} partner ({partner}): {passed or '-'} · received: "
                f"{received or '-'}"
            )
        exchanged = view.get("exchanged")
        if exchanged is not None and view.get("phase") != "pass":
            said = ("swapped cards" if e else "did not swap" for e in exchanged)
            notes["exchanged"] = "Partners: yours {} · the others {}".format(*said)
    return notes


def table_view(
    view: Mapping[str, Any],
    me: int,
    names: Sequence[str],
    config: PutConfig,
    hand_number: int | None = None,
    you: str = "Your",
    cards: SeatCards | None = None,
) -> Group:
    """The table as seat ``me`` knows it (from its decoded observation; ``cards``: the same
    cards with their suits). An unanswered Put at ``me``'s decision is ``me``'s to answer:
    nobody else acts between a call and its answers (P4, P7)."""
    notes = table_notes(view, me, names, config, hand_number, you)
    parts: list[RenderableType] = [Text(notes["score"], style="bold"), Text(notes["dealer"])]
    rows = trick_rows(view, me, names, config, cards)
    if rows:
        tricks = Table(box=None, pad_edge=False, header_style="bold")
        for column in ("trick", "led by", "cards", "result"):
            tricks.add_column(column)
        for row in rows:
            tricks.add_row(*row)
        parts.append(tricks)
    parts.append(Text(notes["tricks_won"]))
    if "put" in notes:
        parts.append(Text(notes["put"], style="bold magenta"))
    if "passed" in notes:
        parts.append(Text(notes["passed"]))
    if "exchanged" in notes:
        parts.append(Text(notes["exchanged"], style="dim"))
    hand = Text(f"{you} hand: ", style="bold")
    if not view["hand"]:
        hand.append("(no cards left)")
    else:
        hand.append_text(card_text(cards.hand_text() if cards is not None else view["hand"]))
    parts.append(hand)
    parts.append(Text(rank_order_text(), style="dim"))
    return Group(*parts)


def hand_result(record: Mapping[str, Any], names: Sequence[str], config: PutConfig) -> Group:
    """The public outcome of a finished hand: the cards played, the Put, the points, the score."""
    lines: list[RenderableType] = []
    played = 0
    put = record.get("put")
    for t, trick in enumerate(record["tricks"], 1):
        if put is not None and put["trick"] == t:
            lines.append(_put_line(put, names))
        line = Text(f"Trick {t}, led by {names[trick['leader']]}: ")
        for i, play in enumerate(trick["cards"]):
            if i:
                line.append(", ")
            line.append(f"{names[play['seat']]} ")
            line.append_text(card_text(format_card(parse_card(play["card"]))))
            played += 1
        if trick["tied"]:
            line.append("  tied")
        else:
            line.append(f"  won by {names[trick['winner']]}")
        lines.append(line)
    if put is not None and put["trick"] > len(record["tricks"]):
        lines.append(_put_line(put, names))
    plays = [a for a in record["actions"] if a["action"].startswith("play_")]
    if len(plays) > played:  # the cards of a trick left unfinished by a folded Put
        line = Text("On the table when the hand ended: ")
        for i, play in enumerate(plays[played:]):
            if i:
                line.append(", ")
            line.append(f"{names[play['seat']]} ")
            line.append_text(card_text(format_card(parse_card(play["card"]))))
        lines.append(line)
    result = record["result"]
    reason, unit, points = result["reason"], result["unit"], result["points"]
    who = unit_name(unit, names, config) if unit is not None else ""
    if reason == "fold":
        text = (
            f"{who} {verb(who, 'score')} 1 point: the Put was folded (unplayed cards stay hidden)."
        )
    elif reason == "tricks":
        text = f"{who} took more tricks and {verb(who, 'score')} {points_text(points)}."
    elif reason == "draw_to_opponent":
        text = (
            f"Drawn after a seen Put: {who} {verb(who, 'score')} {points_text(points)} "
            "(at this table a drawn seen Put scores for the caller's opponent)."
        )
    else:
        text = "Drawn: nobody took more tricks, nobody scores."
    lines.append(Text(text, style="bold green"))
    units = range(2) if config.partnerships else range(config.num_players)
    score = " · ".join(f"{unit_name(u, names, config)} {record['scores_after'][u]}" for u in units)
    lines.append(Text(f"Score: {score} (first to {config.target_points})", style="bold"))
    return Group(*lines)


def _put_line(put: Mapping[str, Any], names: Sequence[str]) -> Text:
    answers = ", ".join(
        f"{names[a['seat']]} {verb(names[a['seat']], a['answer'])}" for a in put["answers"]
    )
    return Text(
        f"Put! called by {names[put['caller']]} during trick {put['trick']}: {answers}",
        style="magenta",
    )
