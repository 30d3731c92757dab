"""Helpers of the web tests: open a table through the app, and what its human may see.

``hidden_cards`` is the test's own account of the cards the human may NOT see, read from the
engine's state (not from the web's views): every other seat's hand, the human's own Brag hand
until it looks (B10), and of a finished hand everything that was not shown (B14, B16) or played
(Put), and of a Seven-card Brag deal the discards (B24). ``public`` holds what the table has
seen of the hand the state tells, and only of it: a new deal makes every card private to its new
holder again, the cards of an earlier hand included (Put: each hand is dealt anew; Brag: B18
puts a hand's cards to the bottom of the deck and deals them again without a shuffle). The one
exception is Brag's list of the cards shown since the last shuffle (B18), which names cards, not
who holds them: it may hold exactly the cards shown at the hands since the deck was last
shuffled, and nothing else.
"""

from __future__ import annotations

import json
import re
from typing import Any

from brag_env.cards import RANK_LABELS, SUIT_SYMBOLS, format_card, parse_card, parse_cards
from brag_env.put.game import PHASE_ANSWER

CARD = re.compile(
    "(?<![0-9A-Za-z])("
    + "|".join(sorted(RANK_LABELS, key=len, reverse=True))
    + ")(["
    + SUIT_SYMBOLS
    + "])"
)


# B25: a wild card's reading, "A♠ as Q♦" (in HTML each card in its span). The card it stands
# for is a name, computed from the shown cards; it tells nothing of who holds that card.
_ONE_CARD = f"(?:{'|'.join(sorted(RANK_LABELS, key=len, reverse=True))})[{SUIT_SYMBOLS}]"
STAND_IN = re.compile(f"({_ONE_CARD}(?:</span>)?)\\s+as\\s+(?:<span[^>]*>)?{_ONE_CARD}")


# The Brag table's list of the cards shown since the last shuffle (B18): public history.
SHOWN_SINCE_SHUFFLE = re.compile(r'<p[^>]*id="shown-cards"[^>]*>.*?</p>', re.S)


def card_tokens(text: str) -> set[str]:
    return {m.group(0) for m in CARD.finditer(text)}


def open_game(client: Any, **fields: Any) -> str:
    """POST the new-game form; the game's id."""
    data = {"boxes": "1", **fields}
    response = client.post("/new", data=data, follow_redirects=False)
    assert response.status_code == 303, response.text[:500]
    return response.headers["location"].rsplit("/", 1)[1]


def brag_form(opponents: list[str], **fields: Any) -> dict[str, Any]:
    return {"game": "brag", "brag_opponent": opponents, "allow_blind": "on", **fields}


def brag7_form(opponents: list[str], **fields: Any) -> dict[str, Any]:
    return {"game": "brag7", "brag7_opponent": opponents, **fields}


def put_form(opponents: list[str], **fields: Any) -> dict[str, Any]:
    return {"game": "put", "put_opponent": opponents, "simultaneous": "on", **fields}


class Witness:
    """Tracks, from the engine, which cards the human of a table may see."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self.public: set[str] = set()  # seen by the table, of the hand the state tells
        self.held: set[str] = set()  # Put: every card the human held this hand (P8 passes)
        self.shown_since_shuffle: set[str] = set()  # Brag: shown at sees and covers (B18)
        self.hand_key: Any = None

    def _new_hand(self, key: Any) -> None:
        """A new deal: every card is private to its holder again, the earlier hands' too."""
        if key != self.hand_key:
            self.hand_key, self.public, self.held = key, set(), set()

    def _brag_hidden(self, finished: bool) -> set[str]:
        table, game = self.table, self.table.engine
        cfg, me = table.config, table.human
        hidden: set[str] = set()
        if finished:  # the state tells the hand just finished: what was not shown stays hidden
            record = game.history()[-1]
            self._new_hand(("finished", len(game.history())))
            if (
                record["shuffled"] or record["hand_number"] == 0
            ):  # B18: this hand's deck was shuffled
                self.shown_since_shuffle = set()
            see = record.get("see") or {}
            for cards in (see.get("hands") or {}).values():
                self.public.update(parse_to_text(cards))
            for cards in (record.get("shown") or {}).values():
                self.public.update(parse_to_text(cards))
            self.shown_since_shuffle |= self.public
            looked = not cfg.allow_blind or any(
                a["seat"] == me and a["action"] == "look" for a in record["actions"]
            )
            for seat, cards in enumerate(record["cards"]):
                if cards is not None and (seat != me or not looked):
                    hidden.update(parse_to_text(cards))
            return hidden
        self._new_hand(("playing", game.hand_number))
        if game.hand_number == 0 or game._shuffled:  # B18: shuffled before this deal
            self.shown_since_shuffle = set()
        look = cfg.action_names.index("look")
        status = game.status[me]
        looked_now = (
            status == 3  # OPEN
            or not cfg.allow_blind
            or (status == 1 and any(s == me and a == look for s, a, _ in game.betting))
        )
        for seat, cards in enumerate(game.hands):
            if seat != me or not looked_now:
                hidden.update(format_card(c) for c in cards)
        return hidden

    def _brag7_hidden(self, finished: bool) -> set[str]:
        """B24: the other seats' seven cards; of a finished deal, their discards (the two
        hands of every seat are shown) and the next deal's cards."""
        table, game = self.table, self.table.engine
        me = table.human
        hidden: set[str] = set()
        if finished:
            result = game.hand_results[-1]
            self._new_hand(("finished", len(game.hand_results)))
            for hands in (result.first_hands, result.second_hands):
                for cards in hands:
                    self.public.update(format_card(c) for c in cards)
            for seat, cards in enumerate(result.dealt):
                if seat != me:
                    hidden.update(format_card(c) for c in cards)
        else:
            self._new_hand(("playing", game.hand_number))
        if not game.session_over:
            for seat, cards in enumerate(game.hands):
                if seat != me:
                    hidden.update(format_card(c) for c in cards)
        return hidden

    def _put_hidden(self, finished: bool) -> set[str]:
        table, game = self.table, self.table.engine
        me = table.human
        hidden: set[str] = set()
        if finished:  # the hand just finished: every unplayed card of the others (P4 fold)
            record = game.records[-1].to_dict()
            played = {a["card"] for a in record["actions"] if a["action"].startswith("play_")}
            self.public.update(format_card(parse_card(c)) for c in played)
            for seat, cards in enumerate(record["deal"]):
                if seat != me:
                    hidden.update(format_card(parse_card(c)) for c in cards)
            return hidden - self.held
        self._new_hand((table.match, game.hand_number))  # each Put hand is dealt anew
        self.held.update(format_card(c) for c in game.hands[me])
        for seat, cards in enumerate(game.hands):
            if seat != me:
                hidden.update(format_card(c) for c in cards)
        for cards in game.record.tricks:
            self.public.update(format_card(c) for c in dict(cards[1]).values())
        for _, _, card in game.trick:
            self.public.add(format_card(card))
        return hidden - self.held

    def hidden(self) -> set[str]:
        """The cards the human may not see, of the hand the table's state now tells: the
        one in play, or the one just finished (``hand_over``/``over``)."""
        finished = self.table.phase in ("hand_over", "over")
        if self.table.game == "brag":
            hidden = self._brag_hidden(finished)
        elif self.table.game == "brag7":
            hidden = self._brag7_hidden(finished)
        else:
            hidden = self._put_hidden(finished)
        return hidden - self.public

    def _check_shown_list(self, cards: set[str]) -> None:
        extra = cards - self.shown_since_shuffle
        assert not extra, f"card(s) {sorted(extra)} listed as shown since the shuffle: never shown"

    def check(self, *texts: str) -> None:
        """No card the human may not see is in any of ``texts`` (JSON or HTML); the Brag list
        of cards shown since the last shuffle holds only such cards."""
        hidden = self.hidden()
        wild = getattr(self.table.config, "wild_cards", "none") != "none"
        for text in texts:
            if wild:
                text = STAND_IN.sub(lambda m: m.group(1), text)
            for shown in SHOWN_SINCE_SHUFFLE.findall(text):
                self._check_shown_list(card_tokens(shown))
            leaked = card_tokens(SHOWN_SINCE_SHUFFLE.sub("", text)) & hidden
            assert not leaked, f"hidden card(s) {sorted(leaked)} sent to the human"

    def check_state(self, state: dict[str, Any]) -> None:
        """The state's own fields hold only what the human may see, and hold it exactly."""
        table = state["table"]
        rest = state
        if table is not None and "shown_cards" in table:
            self.hidden()  # brings the account to the hand the state tells
            self._check_shown_list(set(table["shown_cards"]))
            rest = {**state, "table": {k: v for k, v in table.items() if k != "shown_cards"}}
        self.check(json.dumps(rest, ensure_ascii=False))
        if table is None:
            return
        game, me = self.table.engine, self.table.human
        mine = table["my_cards"]
        if self.table.game == "brag7":
            assert all("cards" not in row for row in table["seats"])
            assert set(mine) == {format_card(c) for c in game.hands[me]}
            return
        if self.table.game == "brag":
            assert all("cards" not in row for row in table["seats"])
            own = {format_card(c) for c in game.hands[me]}
            if mine is None:
                assert not own or own <= self.hidden() | self.public
            else:
                assert set(mine) == own
        else:
            assert set(mine) == {format_card(c) for c in game.hands[me]}
            pending = game.phase == PHASE_ANSWER and game._held_answer >= 0
            if pending:  # P7: a first answer is in, unseen: nothing may tell it
                first = game._responders[0]
                name = self.table.names[first]
                text = json.dumps(state["log"]) + json.dumps(table["notes"])
                assert f"{name} folds" not in text and f"{name} sees" not in text
                assert "folded:" not in json.dumps(table["notes"])


def parse_to_text(cards: str) -> set[str]:
    return {format_card(c) for c in parse_cards(cards)}
