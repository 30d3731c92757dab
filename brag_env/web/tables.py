"""A human's table in the browser: the game moved one step per request, and the human's state.

A table is a PettingZoo env (``brag_v1``/``brag7_v0``/``put_v1``, built by
``ui.seating.open_table`` as the terminal builds it) with agents in every seat but the human's.
The page moves it on with two requests: ``act`` (the human's action, by name) and ``advance``
(one agent's move, or the next hand once the human has read a result). Each request names the
``turn`` it answers; the turn counts the table's changes, so a request sent for a table that has
moved on is refused.

``state`` is all the page is ever sent, and it is built for the human's seat ONLY: its decoded
observation and its legal actions (``ui.turns.Decision``: the same prices and explanations as
the terminal), the public news of each move (``ui.turns``: no discard or pass of another seat,
no answer to a Put before both are in, P7) and the public lines of a finished hand
(``ui.brag_view.hand_result``/``ui.put_view.hand_result``: only cards that were shown or
played). No engine field holding a hidden card is read here, except the human's own hand in Put
(``SeatCards``), which it holds in its hand. Seven-card Brag (B24) shows the human its own
seven cards and, after each deal, the two hands every player showed (no discard).
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.console import Group
from rich.text import Text

from brag_env import brag7_v0, brag_v1, put_v1
from brag_env.brag7.render import result_lines
from brag_env.cards import format_cards
from brag_env.games import game_spec
from brag_env.io import brief
from brag_env.put.rules import ACTION_NAMES
from brag_env.ui import brag_view, put_view
from brag_env.ui.put_play import match_seed
from brag_env.ui.seating import Seating, open_table
from brag_env.ui.terminal import action_label, hand_text, plural, verb
from brag_env.ui.turns import (
    Decision,
    PutNews,
    brag7_decision,
    brag_decision,
    brag_news,
    put_decision,
)

YOUR_TURN, BOT_TURN, HAND_OVER, OVER = "your_turn", "bot_turn", "hand_over", "over"


class RequestError(Exception):
    """A request the table refuses, with its HTTP status and a one-line reason."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def plain_lines(renderable: Any) -> list[str]:
    """The lines of a rich ``Group`` of ``Text`` (the terminal's hand results) as plain text."""
    if isinstance(renderable, Text):
        return [renderable.plain]
    if isinstance(renderable, Group):
        return [line for part in renderable.renderables for line in plain_lines(part)]
    raise TypeError(f"cannot read {type(renderable).__name__} as lines")


def card_list(cards: str | None) -> list[str] | None:
    """Card text (``"Ah 3d"``) as the screens order and print it: ``["A♥", "3♦"]``."""
    return hand_text(cards).split() if cards else None


class WebTable:
    """What both games' tables share: the turn, the phase, the news log, the requests."""

    game: str
    env: Any
    agents: list[Any]
    config: Any
    engine: Any

    @classmethod
    def start(
        cls, seating: Seating, options: dict[str, Any], seed: int, matches: int = 1
    ) -> WebTable:
        """A table of the game; ``matches`` counts the matches of a game played in matches
        (Put), a session of the others ignores it."""
        return cls(seating, options, seed)  # type: ignore[call-arg]

    def __init__(self, seating: Seating, seed: int) -> None:
        self.seating = seating
        self.names = seating.names
        self.human = seating.human
        self.seed = seed
        self.turn = 0
        self.phase = BOT_TURN
        self.log: list[tuple[int, str]] = []  # this hand's news, oldest first
        self.result: list[str] | None = None  # the last finished hand's public lines
        self.message: str | None = None  # why the table closed, or a match's end
        # One request at a time reads or changes a table. The app holds it while the move runs
        # in a worker thread; an asyncio.Lock, so a waiting request does not block the loop.
        self.lock = asyncio.Lock()

    def _open(self, env_module: Any, options: dict[str, Any], seed: int) -> None:
        """The env of ``env_module`` at this seating, its agents, config and engine."""
        self.env, self.agents = open_table(self.seating, env_module, options, seed)
        self.config = self.env.config
        self.engine = self.env.game

    def _reset(self, seed: int) -> None:
        """A new episode of the env (a session, a match), every agent reset with it."""
        self.env.reset(seed=seed)
        for agent in self.agents:
            if agent is not None:
                agent.reset()

    def _chip_standings(self, chips: list[int]) -> list[dict[str, Any]]:
        """Each seat's chips and what it won or lost since the session began (B17, B24)."""
        start = self.config.starting_chips
        return [
            {"name": self.names[s], "chips": c, "change": c - start} for s, c in enumerate(chips)
        ]

    # ------------------------------------------------------------ moving the game
    def _seat_to_act(self) -> int | None:
        """The seat whose decision it is, after stepping the seats that are done (AEC)."""
        env = self.env
        while env.agents:
            name = env.agent_selection
            if env.terminations[name] or env.truncations[name]:
                env.step(None)
                continue
            return env.possible_agents.index(name)
        return None

    def _set_phase(self) -> None:
        seat = self._seat_to_act()
        if seat is None:
            self.phase = OVER
        else:
            self.phase = YOUR_TURN if seat == self.human else BOT_TURN

    def _check_turn(self, turn: int) -> None:
        if self.phase == OVER:
            raise RequestError(410, "this game is over: start a new one")
        if turn != self.turn:
            raise RequestError(
                409, f"stale turn {turn}: the table is at turn {self.turn} (reload the page)"
            )

    def _decision(self) -> Decision:
        raise NotImplementedError

    def _step(self, seat: int, action: int) -> None:
        raise NotImplementedError

    def _next_hand(self) -> None:
        raise NotImplementedError

    def act(self, action: str, turn: int) -> None:
        """The human plays the legal action named ``action`` (``RequestError`` otherwise)."""
        self._check_turn(turn)
        if self.phase != YOUR_TURN:
            raise RequestError(409, "it is not your turn")
        decision = self._decision()
        legal = [name for name, _ in decision.options]
        if action not in legal:
            raise RequestError(
                400, f"{brief(action)} is not a legal action now (legal: {', '.join(legal)})"
            )
        self._play(decision, legal.index(action))
        self.turn += 1

    def _play(self, decision: Decision, choice: int) -> None:
        """The human's ``choice`` (an index into ``decision.options``) played."""
        self._step(self.human, decision.action_ids[choice])

    def advance(self, turn: int) -> None:
        """One agent's move, or the next hand after a result (``RequestError`` otherwise)."""
        self._check_turn(turn)
        if self.phase == YOUR_TURN:
            raise RequestError(409, "it is your turn: choose an action")
        if self.phase == HAND_OVER:
            self.log, self.result, self.message = [], None, None
            self._next_hand()
        else:
            seat = self._seat_to_act()
            assert seat is not None and seat != self.human
            obs = self.env.observe(self.env.possible_agents[seat])
            action = int(self.agents[seat].act(obs["observation"], obs["action_mask"]))
            self._step(seat, action)
        self.turn += 1

    # ------------------------------------------------------------ the human's state
    def _common(self) -> dict[str, Any]:
        state: dict[str, Any] = {
            "game": self.game,
            "turn": self.turn,
            "phase": self.phase,
            "you": self.human,
            "who": self.seating.who_is_who(),
            "log": [{"seat": s, "text": t, "you": s == self.human} for s, t in self.log],
            "result": self.result,
            "message": self.message,
            "actions": [],
            "reason": None,
            "acting": None,
        }
        if self.phase == YOUR_TURN:
            decision = self._decision()
            state["actions"] = [
                {"name": name, "label": action_label(name), "text": text}
                for name, text in decision.options
            ]
            state["reason"] = decision.reason
        elif self.phase == BOT_TURN:
            seat = self._seat_to_act()
            if seat is not None:
                state["acting"] = f"{self.names[seat]} ({self.seating.players[seat]}) to act"
        return state

    def state(self) -> dict[str, Any]:
        raise NotImplementedError


class BragWebTable(WebTable):
    """A session of ``hands_per_session`` Brag hands (B17)."""

    game = "brag"

    def __init__(self, seating: Seating, options: dict[str, Any], seed: int) -> None:
        super().__init__(seating, seed)
        self._open(brag_v1, options, seed)
        self._reset(seed)
        self.hands_done = 0
        self.chips = [self.config.starting_chips] * seating.num_players
        self._set_phase()

    def _decision(self) -> Decision:
        return brag_decision(self.env.observe(self.env.possible_agents[self.human]), self.config)

    def _step(self, seat: int, action: int) -> None:
        hands_before = len(self.engine.hand_results)
        self.env.step(action)
        news, record = brag_news(
            self.engine, self.config, seat, action, hands_before, self.names, self.human
        )
        self.log.extend(news)
        if record is None:
            self._set_phase()
            return
        self.hands_done += 1
        self.chips = list(record["chips_after"])
        self.result = plain_lines(brag_view.hand_result(record, self.names, self.config.lowball))
        hps = self.config.hands_per_session
        if self.engine.session_over:
            self.phase = OVER
            self.message = f"Session over after {plural(self.hands_done, 'hand')} of {hps}."
        elif self.human in self.engine.sitting_out:
            self.phase = OVER
            self.message = "You cannot pay the ante: you sit out, the session is over for you."
        else:
            self.phase = HAND_OVER

    def _next_hand(self) -> None:
        self._set_phase()

    def _seats(self, view: dict[str, Any]) -> list[dict[str, Any]]:
        n = self.config.num_players
        rows = []
        for row in sorted(view["seats"], key=lambda r: (self.human + r["relative_seat"]) % n):
            seat = (self.human + row["relative_seat"]) % n
            status = "covered" if row.get("covered") else row["status"] or ""
            rows.append(
                {
                    "seat": seat,
                    "name": self.names[seat],
                    "player": self.seating.players[seat],
                    "status": brag_view.STATUS_TEXT.get(status, status),
                    "chips": row["chips"],
                    "in_pot": row["chips_in"],
                    "last": brag_view.last_action_text(row["last_action"]),
                    "dealer": row["dealer"],
                    "to_act": row["to_act"],
                    "you": seat == self.human,
                }
            )
        return rows

    def state(self) -> dict[str, Any]:
        cfg = self.config
        state = self._common()
        state["title"] = (
            f"Three-Card Brag · {cfg.num_players} players · {cfg.starting_chips} chips each · "
            f"{plural(cfg.hands_per_session, 'hand')} · seed {self.seed}"
        )
        state["standings"] = self._chip_standings(self.chips)
        state["table"] = None
        if self.phase in (YOUR_TURN, BOT_TURN):
            view = brag_v1.decode_observation(
                self.env.observe(self.env.possible_agents[self.human])["observation"], cfg
            )
            state["table"] = {
                "heading": f"Hand {view['hand_number'] + 1} of {cfg.hands_per_session}",
                "seats": self._seats(view),
                "notes": [  # this hand's events are in the log, in full
                    text
                    for key, text in brag_view.table_notes(
                        view, self.human, self.names, cfg
                    ).items()
                    if key != "events"
                ],
                "shown_cards": card_list(view["shown_cards"]) or [],
                "my_cards": card_list(view["own_cards"]),
                "my_note": brag_view.own_cards_note(view),
                "my_discards": card_list(view.get("own_discards")),
                "my_wild": card_list(view.get("own_wild")),  # B25
            }
        return state


class PutWebTable(WebTable):
    """``matches`` Put matches to ``target_points`` (P6)."""

    game = "put"

    @classmethod
    def start(
        cls, seating: Seating, options: dict[str, Any], seed: int, matches: int = 1
    ) -> WebTable:
        return cls(seating, options, seed, matches)

    def __init__(
        self, seating: Seating, options: dict[str, Any], seed: int, matches: int = 1
    ) -> None:
        super().__init__(seating, seed)
        if matches < 1:
            raise ValueError(f"matches must be at least 1, got {matches}")
        self._open(put_v1, options, seed)
        self.matches = matches
        self.match = 0
        self.wins = [0] * self.config.num_units
        self.news = PutNews(self.config, self.names, self.human)
        # P7 simultaneous: the human's answer when it was the first of the two, held by the
        # engine (and shown to this human only) until the other opponent has answered.
        self.held_answer: str | None = None
        self._start_match()

    def _start_match(self) -> None:
        self._reset(match_seed(self.seed, self.match))
        self.news.new_hand()
        self.held_answer = None
        self._set_phase()

    def _cards(self) -> put_view.SeatCards:
        return put_view.SeatCards.of(self.engine, self.human)

    def _decision(self) -> Decision:
        obs = self.env.observe(self.env.possible_agents[self.human])
        return put_decision(obs, self.config, self._cards())

    def _unit(self, unit: int) -> str:
        return put_view.unit_name(unit, self.names, self.config)

    def _put_view(self) -> dict[str, Any]:
        """The Put as the human's observation tells it (P4, P7): caller, seen, folded."""
        obs = self.env.observe(self.env.possible_agents[self.human])
        return put_v1.decode_observation(obs["observation"], self.config)["put"]

    def _unanswered(self) -> bool:
        put = self._put_view()
        return put["caller"] is not None and not put["seen"] and not put["folded"]

    def _step(self, seat: int, action: int) -> None:
        hands_before = len(self.engine.records)
        answering = seat == self.human and ACTION_NAMES[action] in ("see", "fold")
        self.env.step(action)
        news, record = self.news.after_step(self.engine, hands_before)
        self.log.extend(news)
        if record is None and answering and not news and self._unanswered():
            # P7: the first of two simultaneous answers: nobody else learns it yet.
            self.held_answer = ACTION_NAMES[action]
            second = self._seat_to_act()
            other = self.names[second] if second is not None else "the other player"
            text = f"You answer {self.held_answer}: held, unseen, until {other} has answered (P7)"
            self.log.append((self.human, text))
        elif news:
            self.held_answer = None
        if record is None:
            self._set_phase()
            return
        self.result = plain_lines(put_view.hand_result(record, self.names, self.config))
        self.phase = HAND_OVER
        if self.engine.session_over:
            winner = self.engine.winner
            self.wins[winner] += 1
            who = self._unit(winner)
            self.message = (
                f"Match {self.match + 1} of {self.matches} is over: {who} "
                f"{verb(who, 'reach')} {self.config.target_points} points and "
                f"{verb(who, 'win')}."
            )
            if self.match + 1 >= self.matches:
                self.phase = OVER

    def _next_hand(self) -> None:
        if self.engine.session_over:
            self.match += 1
            self._start_match()
            return
        self.news.new_hand()
        self._set_phase()

    def _waiting(self) -> str | None:
        """Whose answer an unanswered Put awaits, when it is not the human's (None: it is, or
        no Put waits)."""
        if self.phase != BOT_TURN:
            return None
        seat = self._seat_to_act()
        other = self.names[seat] if seat is not None else "the other player"
        if self.held_answer is not None:
            return f"you answered {self.held_answer}, waiting for the other answer ({other})"
        return f"waiting for the answer of {other}"

    def state(self) -> dict[str, Any]:
        cfg = self.config
        state = self._common()
        sides = " in partnerships" if cfg.partnerships else ""
        state["title"] = (
            f"Put · {cfg.num_players} players{sides} · first to {cfg.target_points} points · "
            f"match {self.match + 1} of {self.matches} · seed {self.seed}"
        )
        state["standings"] = [
            {"name": self._unit(u), "matches_won": self.wins[u]} for u in range(cfg.num_units)
        ]
        state["table"] = None
        if self.phase in (YOUR_TURN, BOT_TURN):
            obs = self.env.observe(self.env.possible_agents[self.human])
            view = put_v1.decode_observation(obs["observation"], cfg)
            cards = self._cards()
            hand = self.engine.hand_number + 1  # shown from 1
            state["table"] = {
                "heading": f"Match {self.match + 1} · hand {hand}",
                "notes": list(
                    put_view.table_notes(
                        view, self.human, self.names, cfg, hand, waiting=self._waiting()
                    ).values()
                ),
                "tricks": [
                    list(row)
                    for row in put_view.trick_rows(view, self.human, self.names, cfg, cards)
                ],
                "my_cards": cards.hand_text().split() if view["hand"] else [],
                "rank_order": put_view.rank_order_text(),
            }
        return state


class Brag7WebTable(WebTable):
    """A Seven-card Brag session of ``hands_per_session`` deals (B24).

    The human arranges in two requests, as the terminal asks (``ui.turns.brag7_decision``):
    the first hand, held here (nothing is played, nobody else learns it), then the second
    hand, which plays the whole arrangement. A showdown shows the two hands of every player,
    never a discard (``brag7.render.result_lines``)."""

    game = "brag7"

    def __init__(self, seating: Seating, options: dict[str, Any], seed: int) -> None:
        super().__init__(seating, seed)
        self._open(brag7_v0, options, seed)
        self._reset(seed)
        self.first: tuple[int, ...] | None = None  # the human's first hand, chosen this deal
        self.deals_done = 0
        self._set_phase()

    def _decision(self) -> Decision:
        obs = self.env.observe(self.env.possible_agents[self.human])
        return brag7_decision(obs, self.config, self.first)

    def _play(self, decision: Decision, choice: int) -> None:
        if self.first is None:  # the first step: a first hand, no action yet
            self.first = decision.picks[choice]
            self.log.append((self.human, f"You chose your first hand: {hand_text(self.first)}"))
            return
        self.first = None
        self._step(self.human, decision.action_ids[choice])

    def _step(self, seat: int, action: int) -> None:
        finished = len(self.engine.hand_results)
        self.env.step(action)
        # B24: the seats arrange at the same time; the table learns only that one has.
        mine = seat == self.human
        text = "You arrange your seven cards" if mine else f"{self.names[seat]} has arranged"
        self.log.append((seat, text))
        if len(self.engine.hand_results) == finished:
            self._set_phase()
            return
        self.deals_done += 1
        self.result = result_lines(self.engine.hand_results[-1], self.names)
        if self.engine.session_over:
            self.phase = OVER
            start = self.config.starting_chips
            changes = ", ".join(
                f"{name} {chips - start:+d}"
                for name, chips in zip(self.names, self.engine.chips, strict=True)
            )
            self.message = (
                f"Session over after {plural(self.deals_done, 'deal')}: chips won or lost "
                f"{changes}."
            )
        else:
            self.phase = HAND_OVER

    def _next_hand(self) -> None:
        self._set_phase()

    def state(self) -> dict[str, Any]:
        cfg = self.config
        state = self._common()
        state["title"] = (
            f"Seven-card Brag{' (lowball)' if cfg.lowball else ''} · {cfg.num_players} players · "
            f"ante {cfg.ante} · {plural(cfg.hands_per_session, 'deal')} · seed {self.seed}"
        )
        state["standings"] = self._chip_standings(list(self.engine.chips))
        state["table"] = None
        if self.phase in (YOUR_TURN, BOT_TURN):
            view = brag7_v0.decode_observation(
                self.env.observe(self.env.possible_agents[self.human])["observation"], cfg
            )
            n = cfg.num_players
            state["table"] = {
                "heading": f"Deal {view['deal_number'] + 1} of {cfg.hands_per_session}",
                "seats": [
                    {
                        "seat": (self.human + k) % n,
                        "name": self.names[(self.human + k) % n],
                        "player": self.seating.players[(self.human + k) % n],
                        "chips": chips,
                        "dealer": k in view["dealer"],
                        "you": k == 0,
                    }
                    for k, chips in enumerate(view["seat_chips"])
                ],
                "pot": view["pot"],
                "my_cards": card_list(view["own_cards"]),
                "my_first": card_list(format_cards(self.first)) if self.first else None,
            }
        return state


def new_table(
    game: str,
    seating: Seating,
    options: dict[str, Any],
    seed: int,
    matches: int = 1,
) -> WebTable:
    """A Brag session (B17), a Seven-card Brag session (B24) or ``matches`` Put matches;
    ``ValueError`` for a bad option."""
    return game_spec(game).load("web_table").start(seating, options, seed, matches)
