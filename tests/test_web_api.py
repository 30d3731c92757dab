"""The web app through Starlette's test client: whole games, no hidden card, bad requests."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import itertools
import json
import random
import re
import socket
import threading

import pytest
from starlette.datastructures import MultiDict
from starlette.testclient import TestClient

from agents.registry import shipped_models
from brag_env.cards import format_card, parse_card
from brag_env.games import FormChoice, game_spec
from brag_env.web import forms, limits
from brag_env.web.app import Settings, create_app
from brag_env.web.cli import build_parser
from brag_env.web.cli import main as web_main
from brag_env.web.store import BoundedStore
from tests.web_client import Witness, brag_form, open_game, put_form


def play_through(client, app, game_id, rng, check=True, limit=5000):
    """Play a game to its end through the API, a random legal action at each human turn,
    checking every answer (JSON state and HTML fragment) for hidden cards."""
    table = app.state.games.get(game_id)
    witness = Witness(table)
    state = client.get(f"/api/games/{game_id}").json()
    for _ in range(limit):
        if check:
            witness.check_state(state)
            witness.check(client.get(f"/play/{game_id}/table").text)
        if state["phase"] == "over":
            return state, table
        if state["phase"] == "your_turn":
            action = rng.choice(state["actions"])["name"]
            response = client.post(
                f"/api/games/{game_id}/act", json={"action": action, "turn": state["turn"]}
            )
        else:
            response = client.post(f"/api/games/{game_id}/advance", json={"turn": state["turn"]})
        assert response.status_code == 200, response.text
        state = response.json()
    raise AssertionError("the game did not end")


@pytest.mark.slow  # about 0.5 s: every answer of the session is checked
def test_brag_session_played_through_the_api(client, app):
    """B17: a whole session of 2 hands, every answer checked for hidden cards."""
    game_id = open_game(client, **brag_form(["brag:tight"], hands="2", seed="5"))
    state, table = play_through(client, app, game_id, random.Random(1))
    assert table.hands_done == 2 or "sit out" in state["message"]
    assert sum(row["chips"] for row in state["standings"]) == 2 * 200
    assert state["result"] and state["message"].startswith(("Session over", "You cannot"))


def test_put_match_played_through_the_api(client, app):
    """P6: a match to 2 points against one opponent, every answer checked."""
    game_id = open_game(client, **put_form(["put:caller"], target_points="2", seed="2"))
    state, table = play_through(client, app, game_id, random.Random(2))
    assert max(table.engine.scores) >= 2
    assert sum(row["matches_won"] for row in state["standings"]) == 1
    assert "is over" in state["message"]


@pytest.mark.slow
def test_no_hidden_card_in_many_random_games(client, app):
    """B10 blind hands, B14 sees, B16 covers, B19 kept hands; P7 simultaneous answers, P8
    partners: over many random tables, no answer holds a card its human may not see."""
    rng = random.Random(11)
    brag_styles = ["brag:tight", "brag:bluffer", "random", "brag:tips", "brag:never_look"]
    for k in range(16):
        n = rng.randint(1, 4)
        opponents = [rng.choice(brag_styles) for _ in range(n)]
        fields = brag_form(opponents, hands=str(rng.randint(1, 4)), seed=str(k))
        fields["seat"] = str(rng.randint(0, n))
        if rng.random() < 0.3:
            del fields["allow_blind"]  # B10 variant: everyone open
        if rng.random() < 0.5:
            fields["cover_pot"] = "on"
            fields["starting_chips"] = str(rng.choice([6, 10, 20]))  # short stacks: covers
        play_through(client, app, open_game(client, **fields), rng)
    put_styles = ["put:caller", "put:greedy", "put:bluffer", "random"]
    for k in range(16):
        n = rng.randint(1, 3)
        fields = put_form([rng.choice(put_styles) for _ in range(n)], seed=str(k))
        fields["seat"] = str(rng.randint(0, n))
        fields["target_points"] = "2"
        if n == 2 and rng.random() < 0.5:
            del fields["simultaneous"]
        play_through(client, app, open_game(client, **fields), rng)


def test_the_witness_catches_a_leak(client, app):
    """The check above can fail: an opponent's card put into the state is caught."""
    game_id = open_game(client, **brag_form(["random"], seed="1"))
    table = app.state.games.get(game_id)
    state = client.get(f"/api/games/{game_id}").json()
    state["log"].append({"seat": 1, "text": format_card(table.engine.hands[1][0])})
    with pytest.raises(AssertionError, match="hidden card"):
        Witness(table).check_state(state)


def _play_until(client, game_id, witness, rng, found, pages=True):
    """Play on (random legal actions), checking every state (and with ``pages`` its HTML)
    with ``witness``, until ``found(state)`` holds; that state."""
    state = client.get(f"/api/games/{game_id}").json()
    for _ in range(3000):
        witness.check_state(state)
        if pages:
            witness.check(client.get(f"/play/{game_id}/table").text)
        if found(state):
            return state
        assert state["phase"] != "over", "the game ended first"
        if state["phase"] == "your_turn":
            body = {"action": rng.choice(state["actions"])["name"], "turn": state["turn"]}
            state = client.post(f"/api/games/{game_id}/act", json=body).json()
        else:
            state = client.post(f"/api/games/{game_id}/advance", json={"turn": state["turn"]})
            state = state.json()
    raise AssertionError("not found")


def _plant(witness, state, card):
    planted = {**state, "log": [*state["log"], {"seat": 1, "text": f"{card} leaked"}]}
    with pytest.raises(AssertionError, match="hidden card"):
        witness.check_state(planted)


def test_the_witness_catches_a_put_card_played_in_an_earlier_hand(client, app):
    """P6: a new hand is dealt anew: an opponent's card that was played face up in an earlier
    hand is private again, and a state that names it leaks it."""
    game_id = open_game(client, **put_form(["random"], target_points="9", seed="3"))
    table = app.state.games.get(game_id)
    witness, played = Witness(table), set()

    def found(state):
        for record in table.engine.records:  # every card played face up so far (P6)
            actions = record.to_dict()["actions"]
            played.update(format_card(parse_card(a["card"])) for a in actions if "card" in a)
        if state["phase"] == "hand_over" or not table.engine.records:
            return False
        return bool(_opponent_cards(table) & played)

    state = _play_until(client, game_id, witness, random.Random(4), found)
    _plant(witness, state, sorted(_opponent_cards(table) & played)[0])


@pytest.mark.slow  # about 0.6 s: the deck must come round (B18)
def test_the_witness_catches_a_brag_card_dealt_again_unshuffled(client, app):
    """B18: a shown hand's cards go to the bottom of the deck and come round again unshuffled:
    dealt again, such a card is private to its new holder (the list of cards shown since the
    shuffle may still name it), and a state that names it elsewhere leaks it."""
    fields = brag_form(["brag:tight"], hands="20", seed="2", starting_chips="2000")
    del fields["allow_blind"]
    game_id = open_game(client, **fields)
    table = app.state.games.get(game_id)
    witness = Witness(table)

    def found(state):
        return state["phase"] != "hand_over" and bool(
            _opponent_cards(table) & witness.shown_since_shuffle
        )

    state = _play_until(client, game_id, witness, random.Random(5), found, pages=False)
    witness.check(client.get(f"/play/{game_id}/table").text)  # the page lists it as shown
    card = sorted(_opponent_cards(table) & witness.shown_since_shuffle)[0]
    assert card in state["table"]["shown_cards"]  # named as shown before: allowed
    _plant(witness, state, card)


def _opponent_cards(table):
    game = table.engine
    return {format_card(c) for s, cards in enumerate(game.hands) if s != table.human for c in cards}


def test_a_blind_hand_is_not_sent_until_looked_at(client, app):
    """B10: blind, the human's cards are not in the state; after a look they are."""
    game_id = open_game(client, **brag_form(["brag:tight"], seed="3"))
    state = _your_turn(client, game_id, "look")
    assert state["table"]["my_cards"] is None
    assert state["table"]["my_note"] == "blind: not looked at yet"
    assert "look" in [a["name"] for a in state["actions"]]
    state = client.post(
        f"/api/games/{game_id}/act", json={"action": "look", "turn": state["turn"]}
    ).json()
    table = app.state.games.get(game_id)
    assert len(state["table"]["my_cards"]) == 3
    Witness(table).check_state(state)


def test_actions_carry_the_terminal_explanations(client, app):
    """The buttons say what the terminal menu says: the price of staying blind (B11)."""
    game_id = open_game(client, **brag_form(["brag:tight"], seed="3"))
    state = _your_turn(client, game_id, "look")
    stake = int(state["table"]["notes"][0].split()[1])
    texts = {a["name"]: a["text"] for a in state["actions"]}
    assert texts["stay"] == f"stay blind: pay {stake // 2}"
    assert texts["fold"] == "fold: give up this hand"


# ---------------------------------------------------------------- bad requests


def _your_turn(client, game_id, action="fold"):
    """Move the table on to the human's first turn at which ``action`` is legal."""
    state = client.get(f"/api/games/{game_id}").json()
    while action not in [a["name"] for a in state["actions"]]:
        if state["phase"] == "your_turn":  # e.g. B19: keep or take, before the betting
            choice = {"action": state["actions"][-1]["name"], "turn": state["turn"]}
            state = client.post(f"/api/games/{game_id}/act", json=choice).json()
        else:
            state = client.post(
                f"/api/games/{game_id}/advance", json={"turn": state["turn"]}
            ).json()
    return state


def _refused(client, game_id, path, status, **kwargs):
    before = client.get(f"/api/games/{game_id}").json()
    response = client.post(f"/api/games/{game_id}/{path}", **kwargs)
    assert response.status_code == status, response.text
    message = response.json()["error"]
    assert message and "\n" not in message
    assert client.get(f"/api/games/{game_id}").json() == before  # nothing changed
    return message


def test_an_illegal_action_is_refused(client):
    game_id = open_game(client, **brag_form(["brag:tight"], seed="3"))
    state = _your_turn(client, game_id, "look")
    message = _refused(  # B19's choice, at a betting turn
        client, game_id, "act", 400, json={"action": "keep_old_hand", "turn": state["turn"]}
    )
    assert "'keep_old_hand' is not a legal action now" in message
    _refused(client, game_id, "act", 400, json={"action": "raise_99x", "turn": state["turn"]})


def test_a_stale_turn_is_refused(client):
    game_id = open_game(client, **brag_form(["brag:tight"], seed="3"))
    state = _your_turn(client, game_id)
    assert "stale turn" in _refused(
        client, game_id, "act", 409, json={"action": "fold", "turn": state["turn"] - 1}
    )
    _refused(client, game_id, "advance", 409, json={"turn": state["turn"]})  # your turn


def test_acting_on_a_bot_turn_is_refused(client):
    game_id = open_game(client, **put_form(["put:caller"], seed="1"))
    state = client.get(f"/api/games/{game_id}").json()
    while state["phase"] != "bot_turn":
        choice = {"action": state["actions"][0]["name"], "turn": state["turn"]}
        state = client.post(f"/api/games/{game_id}/act", json=choice).json()
    assert "not your turn" in _refused(
        client, game_id, "act", 409, json={"action": "play_3", "turn": state["turn"]}
    )


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"[1, 2]",
        b'{"turn": "0", "action": "fold"}',
        b'{"turn": true, "action": "fold"}',
        b'{"turn": 0}',
        b'{"turn": 0, "action": 3}',
        b'{"turn": 0, "action": "fold", "seat": 1}',
        b"[" * 100_000,
    ],
)
def test_a_malformed_body_is_refused(client, body):
    game_id = open_game(client, **brag_form(["brag:tight"], seed="3"))
    _your_turn(client, game_id)
    status = 413 if len(body) > 4096 else 400
    _refused(client, game_id, "act", status, content=body)


def test_an_unknown_game_is_refused(client):
    for url in ("/api/games/nope", "/play/nope/table"):
        assert client.get(url).status_code == 404
    response = client.post("/api/games/nope/advance", json={"turn": 0})
    assert response.status_code == 404 and "no such game" in response.json()["error"]
    page = client.get("/play/nope")
    assert page.status_code == 404 and "no such game" in page.text


def test_a_finished_game_is_refused(client, app):
    game_id = open_game(client, **put_form(["put:caller"], target_points="1", seed="4"))
    state, _ = play_through(client, app, game_id, random.Random(0), check=False)
    assert state["phase"] == "over"
    assert "over" in _refused(client, game_id, "advance", 410, json={"turn": state["turn"]})


def test_one_game_is_not_reached_from_another(client, app):
    """Each id reaches its own table only; ids are 128-bit secrets."""
    first = open_game(client, **brag_form(["random"], seed="1"))
    second = open_game(client, **brag_form(["random"], seed="2"))
    assert first != second and len(first) >= 22 and len(second) >= 22
    a = client.get(f"/api/games/{first}").json()
    b = client.get(f"/api/games/{second}").json()
    assert "seed 1" in a["title"] and "seed 2" in b["title"]
    state = _your_turn(client, first)
    client.post(f"/api/games/{first}/act", json={"action": "fold", "turn": state["turn"]})
    assert client.get(f"/api/games/{second}").json() == b


def test_open_games_are_bounded():
    """A full store drops the game idle longest; an idle game expires."""
    app = create_app(Settings(bot_delay=0, max_games=2))
    with TestClient(app) as client:
        ids = [open_game(client, **brag_form(["random"], seed=str(k))) for k in range(3)]
        assert client.get(f"/api/games/{ids[0]}").status_code == 404
        assert all(client.get(f"/api/games/{i}").status_code == 200 for i in ids[1:])
        assert len(app.state.games) == 2
    now = [0.0]
    store = BoundedStore(capacity=5, idle_seconds=10, clock=lambda: now[0])
    key = store.add("table")
    now[0] = 9.0
    assert store.get(key) == "table"  # an access keeps it open
    now[0] = 25.0
    with pytest.raises(KeyError):
        store.get(key)
    assert len(store) == 0


def test_a_model_that_fails_to_load_is_explained_on_the_page(client, tmp_path):
    junk = tmp_path / "broken.zip"
    junk.write_bytes(b"this is not a model")
    response = client.post("/new", data=brag_form([str(junk)], boxes="1"))
    assert response.status_code == 400
    assert "cannot set up the table" in response.text and "broken.zip" in response.text
    response = client.post("/new", data=brag_form(["model:no_such_model"], boxes="1"))
    assert response.status_code == 400 and "no shipped model" in response.text


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"seat": "9"}, "your seat must be 0 to 1"),
        ({"hands": "zero"}, "Hands must be a whole number"),
        ({"more": "ante"}, "expected KEY=VALUE"),
        ({"more": "no_such_rule=1"}, "'no_such_rule' is not a rule option of brag"),
        ({"more": "render_mode=human"}, "'render_mode' is not a rule option"),
        ({"more": "num_players=3"}, "set by the opponents"),
        ({"more": "hands_per_session=100000"}, "hands_per_session in Other rule options must be"),
        ({"more": "ante=" + "9" * 900}, "more characters)"),  # the value echoed is cut short
        ({"more": "ante"}, "bad rule option 'ante'"),  # the page's words, not --option
        ({"brag_opponent": ["put:caller"]}, "is a put agent"),
        ({"wild_cards": "jokers"}, "Wild cards must be one of none, braggers, nines, aces"),
    ],
)
def test_a_bad_setup_is_explained_on_the_page(client, fields, message):
    form = {**brag_form(["random"]), **fields}
    response = client.post("/new", data=form)
    assert response.status_code == 400
    assert message in response.text.replace("&#39;", "'")


def test_the_server_binds_this_machine_by_default():
    args = build_parser().parse_args([])
    assert args.host == "127.0.0.1" and args.bot_delay > 0


def test_pages_render(client):
    for url in ("/", "/replay", "/results"):
        response = client.get(url)
        assert response.status_code == 200 and "brag-env" in response.text
    assert json.loads(client.get("/api/games/x").text)["error"]


@pytest.mark.slow  # about 1 s: a whole session through the API, every answer checked
def test_b25_the_form_s_wild_cards_deal_a_wild_table(client, app):
    """B25: the Wild cards menu reaches the table; the page marks the human's wild cards and
    names what a shown wild card stood for, and no hidden card is sent on the way."""
    assert 'name="wild_cards"' in client.get("/").text
    game_id = open_game(client, **brag_form(["brag:tight"], seed="0", hands="2", wild_cards="aces"))
    table = app.state.games.get(game_id)
    assert table.config.wild_cards == "aces"
    witness = Witness(table)
    state = client.get(f"/api/games/{game_id}").json()
    pages = []
    for _ in range(500):
        witness.check_state(state)
        pages.append(client.get(f"/play/{game_id}/table").text)
        witness.check(pages[-1])
        if state["phase"] == "over":
            break
        if state["phase"] == "your_turn":  # look, then see as soon as it may, else stay
            names = [a["name"] for a in state["actions"]]
            action = next(a for a in ("look", "see", "stay", "fold") if a in names)
            body = {"action": action, "turn": state["turn"]}
            state = client.post(f"/api/games/{game_id}/act", json=body).json()
        else:
            body = {"turn": state["turn"]}
            state = client.post(f"/api/games/{game_id}/advance", json=body).json()
    assert state["phase"] == "over"
    assert any('id="my-wild"' in page for page in pages)  # this deal gives the human an ace
    assert any(re.search(r"</span> as <span class=\"card", page) for page in pages)  # "A♠ as Q♠"
    plain = open_game(client, **brag_form(["brag:tight"], seed="0", hands="1"))
    assert app.state.games.get(plain).config.wild_cards == "none"


def test_a_cover_is_explained(client):
    """B16: the page explains covering the pot, as the terminal does."""
    game_id = open_game(
        client, **brag_form(["brag:bluffer"], seed="0", starting_chips="5", cover_pot="on")
    )
    rng = random.Random(3)
    state = client.get(f"/api/games/{game_id}").json()
    for _ in range(300):
        names = [a["name"] for a in state["actions"]]
        if "cover" in names:
            break
        assert state["phase"] != "over", "no cover came up"
        if state["phase"] == "your_turn":
            raises = [n for n in names if n.startswith("raise") or n == "stay"]
            body = {"action": rng.choice(raises or names), "turn": state["turn"]}
            state = client.post(f"/api/games/{game_id}/act", json=body).json()
        else:
            state = client.post(
                f"/api/games/{game_id}/advance", json={"turn": state["turn"]}
            ).json()
    assert "COVER THE POT" in state["reason"]


def test_a_simultaneous_put_is_explained(client):
    """P7: with two opponents the Put button says both answer unseen by each other."""
    game_id = open_game(client, **put_form(["put:caller", "random"], seed="1"))
    state = _your_turn(client, game_id, "put")
    put = next(a for a in state["actions"] if a["name"] == "put")
    assert "unseen by each other" in put["text"]


def test_a_refused_form_keeps_the_other_game_s_defaults(client):
    """A Put form sent back with its error still shows Brag's blind play ticked (B10)."""
    response = client.post("/new", data=put_form(["model:no_such_model"], boxes="1"))
    assert response.status_code == 400
    assert re.search(r'name="allow_blind"\s+checked', response.text)
    assert re.search(r'name="simultaneous"\s+checked', response.text)


def test_a_first_simultaneous_answer_waits_for_the_other(client, app):
    """P7: after the human answers a Put first, the table says it waits for the other answer,
    tells the human its own held answer, and nothing tells the other opponent's."""
    game_id = open_game(client, **put_form(["put:bluffer", "put:bluffer"], seed="0", seat="0"))
    table = app.state.games.get(game_id)
    state = client.get(f"/api/games/{game_id}").json()
    rng = random.Random(0)

    def first_to_answer() -> bool:
        names = [a["name"] for a in state["actions"]]
        return "see" in names and table.engine._responders[0] == table.human

    while not first_to_answer():
        assert state["phase"] != "over", "no Put came up"
        if state["phase"] == "your_turn":
            names = [a["name"] for a in state["actions"] if a["name"] != "put"]
            body = {"action": rng.choice(names), "turn": state["turn"]}
            state = client.post(f"/api/games/{game_id}/act", json=body).json()
        else:
            body = {"turn": state["turn"]}
            state = client.post(f"/api/games/{game_id}/advance", json=body).json()
    second = table.engine._responders[1]  # answers after the human, unseen by each other
    assert any("your answer: see or fold" in note for note in state["table"]["notes"])
    state = client.post(
        f"/api/games/{game_id}/act", json={"action": "see", "turn": state["turn"]}
    ).json()
    assert state["phase"] == "bot_turn"
    other = table.names[second]
    put_note = next(note for note in state["table"]["notes"] if note.startswith("Put!"))
    assert put_note.endswith(f"you answered see, waiting for the other answer ({other})")
    assert state["log"][-1]["text"].startswith("You answer see: held, unseen, until")
    Witness(table).check_state(state)
    html = client.get(f"/play/{game_id}/table").text
    assert "waiting for the other answer" in html and "your answer: see or fold" not in html
    state = client.post(f"/api/games/{game_id}/advance", json={"turn": state["turn"]}).json()
    assert not any("waiting for" in note for note in (state["table"] or {}).get("notes", []))


def test_a_put_you_called_waits_for_the_answer(client):
    """P4: after the human calls Put, the table waits for the opponent's answer: not 'your'."""
    game_id = open_game(client, **put_form(["put:caller"], seed="1"))
    state = _your_turn(client, game_id, "put")
    state = client.post(
        f"/api/games/{game_id}/act", json={"action": "put", "turn": state["turn"]}
    ).json()
    put_note = next(note for note in state["table"]["notes"] if note.startswith("Put!"))
    assert put_note.endswith("waiting for the answer of " + state["acting"].split(" (")[0])


# ---------------------------------------------------------------- limits, origin, serving


def _asgi(app, method, path, chunks, headers=()):
    """Send a request straight to the ASGI app, its body as ``chunks`` (an iterator: the app
    pulls them one at a time); the status and how many body bytes the app pulled."""
    pulled = 0
    sent = []
    body = iter(chunks)

    async def receive():
        nonlocal pulled
        chunk = next(body, None)
        if chunk is None:
            return {"type": "http.request", "body": b"", "more_body": False}
        pulled += len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": True}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), *[(k.encode(), v.encode()) for k, v in headers]],
        "server": ("testserver", 80),
        "client": ("127.0.0.1", 5000),
    }
    asyncio.run(app(scope, receive, send))
    return sent[0]["status"], pulled


def _endless(chunk=b"x" * 65536, total=16 * 2**20):
    """A body far over every limit (finite, so that a server reading it all still ends)."""
    return itertools.repeat(chunk, total // len(chunk))


def test_a_body_over_the_limit_is_refused_unread(client, app):
    """A declared Content-Length over the limit: 413 before any of the body is read; a
    chunked body with no length: read only up to the limit and one chunk."""
    game_id = open_game(client, **brag_form(["random"], seed="1"))
    path = f"/api/games/{game_id}/advance"
    declared = [("content-length", str(10**9)), ("content-type", "application/json")]
    assert _asgi(app, "POST", path, _endless(), declared) == (413, 0)
    status, pulled = _asgi(app, "POST", path, _endless(b"x" * 1000))
    assert status == 413 and pulled <= limits.MAX_BODY_BYTES + 1000


@pytest.mark.parametrize("url", ["/replay", "/results", "/new"])
def test_an_upload_over_the_limit_is_refused_while_streaming(app, monkeypatch, url):
    """A history file or report (and the new-game form) is read only up to its limit."""
    monkeypatch.setattr(limits, "MAX_REPLAY_BYTES", 10_000)
    monkeypatch.setattr(limits, "MAX_REPORT_BYTES", 10_000)
    part = b'name="more"' if url == "/new" else b'name="file"; filename="big.jsonl"'
    head = b"--b\r\nContent-Disposition: form-data; " + part + b"\r\n\r\n"
    chunks = itertools.chain([head], _endless())
    headers = [("content-type", "multipart/form-data; boundary=b")]
    status, pulled = _asgi(app, "POST", url, chunks, headers)
    most = max(limits.MAX_FORM_BYTES, 10_000) + limits.FORM_OVERHEAD_BYTES + 65536 + len(head)
    assert status == 413 and pulled <= most
    declared = [*headers, ("content-length", str(10**9))]
    assert _asgi(app, "POST", url, _endless(), declared) == (413, 0)


def test_an_upload_over_the_limit_says_so(client, monkeypatch):
    monkeypatch.setattr(limits, "MAX_REPLAY_BYTES", 100)
    response = client.post("/replay", files={"file": ("big.jsonl", b"{}\n" * 50)})
    assert response.status_code == 413 and "larger than 100 bytes" in response.text


def test_kept_replays_are_bounded_by_size(tmp_path):
    """The replays kept together hold at most max_replay_bytes of files: a new one pushes
    out the one unused longest."""
    history = tmp_path / "h.jsonl"
    from brag_env.evaluation.cli import main as evaluate_main

    with contextlib.redirect_stdout(io.StringIO()):
        agents = ["--agents", "random", "random", "--hands", "1", "--seed", "0"]
        assert evaluate_main(["--game", "brag", *agents, "--history", str(history)]) == 0
    raw = history.read_bytes()
    app = create_app(Settings(bot_delay=0, max_replay_bytes=2 * len(raw) + 1))
    with TestClient(app) as client:
        where = []
        for _ in range(3):
            response = client.post(
                "/replay", files={"file": ("h.jsonl", raw)}, follow_redirects=False
            )
            where.append(response.headers["location"])
        assert client.get(where[0]).status_code == 404
        assert all(client.get(w).status_code == 200 for w in where[1:])
        assert app.state.replays.size == 2 * len(raw)
    store = BoundedStore(capacity=10, idle_seconds=60, max_size=100)
    first = store.add("a", 60)
    store.add("b", 30)
    store.add("c", 30)  # 120 > 100: "a" goes
    assert len(store) == 2 and store.size == 60
    with pytest.raises(KeyError):
        store.get(first)
    with pytest.raises(ValueError, match="more than the 100 kept"):
        store.add("d", 101)


def test_a_post_from_another_site_is_refused(client):
    """A cross-site form post or fetch (its Origin is another site) is refused with 403;
    this server's own pages and clients that send no Origin pass."""
    form = brag_form(["random"], seed="1", boxes="1")
    evil = {"origin": "http://evil.example"}
    response = client.post("/new", data=form, headers=evil, follow_redirects=False)
    assert response.status_code == 403 and "another site" in response.text
    site = {"sec-fetch-site": "cross-site"}
    assert client.post("/new", data=form, headers=site).status_code == 403
    assert client.post("/new", data=form, headers={"origin": "null"}).status_code == 403
    own = {"origin": "http://testserver"}
    response = client.post("/new", data=form, headers=own, follow_redirects=False)
    assert response.status_code == 303
    game_id = response.headers["location"].rsplit("/", 1)[1]
    before = client.get(f"/api/games/{game_id}").json()
    refused = client.post(f"/api/games/{game_id}/advance", json={"turn": 0}, headers=evil)
    assert refused.status_code == 403 and "another site" in refused.json()["error"]
    assert client.get(f"/api/games/{game_id}").json() == before
    for url in ("/replay", "/results"):
        upload = client.post(url, files={"file": ("x", b"")}, headers=evil)
        assert upload.status_code == 403


def test_an_echoed_value_is_cut_short(client):
    game_id = open_game(client, **brag_form(["brag:tight"], seed="3"))
    state = _your_turn(client, game_id)
    message = _refused(
        client, game_id, "act", 400, json={"action": "x" * 3000, "turn": state["turn"]}
    )
    assert len(message) < 300 and "more characters)" in message


def test_a_slow_move_does_not_block_other_tables(client, app):
    """An agent thinking (in a worker thread, under its table's lock) does not stop the
    server: another table answers, and a request to the same table waits its turn."""
    slow_id = open_game(client, **put_form(["put:caller"], seed="1", seat="1"))
    other_id = open_game(client, **brag_form(["random"], seed="2"))
    table = app.state.games.get(slow_id)
    state = client.get(f"/api/games/{slow_id}").json()
    while state["phase"] != "bot_turn":
        body = {"action": state["actions"][0]["name"], "turn": state["turn"]}
        state = client.post(f"/api/games/{slow_id}/act", json=body).json()
    thinking, go_on = threading.Event(), threading.Event()
    agent = table.agents[table._seat_to_act()]
    act = agent.act

    def slow_act(*args):
        thinking.set()
        assert go_on.wait(30)
        return act(*args)

    agent.act = slow_act
    answers = {}

    def request(key, method, url, **kwargs):
        answers[key] = getattr(client, method)(url, **kwargs)

    move = threading.Thread(
        target=request,
        args=("move", "post", f"/api/games/{slow_id}/advance"),
        kwargs={"json": {"turn": state["turn"]}},
    )
    move.start()
    assert thinking.wait(30)
    same = threading.Thread(target=request, args=("same", "get", f"/api/games/{slow_id}"))
    same.start()
    other = threading.Thread(target=request, args=("other", "get", f"/api/games/{other_id}"))
    other.start()
    other.join(30)
    answered_while_thinking = "other" in answers and "same" not in answers
    go_on.set()
    move.join(30)
    same.join(30)
    assert answered_while_thinking
    assert answers["other"].status_code == 200
    assert answers["same"].json()["turn"] == answers["move"].json()["turn"] == state["turn"] + 1


def test_a_busy_port_is_one_line_and_no_start_message(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert web_main(["--port", str(port)]) == 2
    out, err = capsys.readouterr()
    prefix = "python -m brag_env.web: error: cannot listen on 127.0.0.1:"
    assert out == "" and err.startswith(prefix)
    assert err.count("\n") == 1


def test_the_start_message_names_the_bound_port(monkeypatch, capsys):
    """The address is printed once the port is bound (port 0: the one the system gave)."""
    import uvicorn

    bound = []

    def run(self, sockets=None):
        bound.append(sockets[0].getsockname()[1])
        sockets[0].close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    assert web_main(["--port", "0"]) == 0
    out = capsys.readouterr().out
    assert bound and bound[0] != 0 and f"http://127.0.0.1:{bound[0]}/" in out


def _form_fields(page, form_id):
    """The fields a browser would post from the page's form ``form_id``."""
    form = re.search(rf'<form[^>]*id="{form_id}".*?</form>', page, re.S).group(0)
    fields = {}
    for tag in re.findall(r"<input[^>]*>", form):
        name = re.search(r'name="([^"]+)"', tag).group(1)
        value = re.search(r'value="([^"]*)"', tag)
        if 'type="checkbox"' in tag:
            if re.search(r"\schecked", tag):
                fields[name] = "on"
        elif value is not None and value.group(1):
            fields.setdefault(name, []).append(value.group(1).replace("&#39;", "'"))
    return {
        k: v[0] if isinstance(v, list) and not k.endswith("_opponent") else v
        for k, v in fields.items()
    }


@pytest.mark.parametrize("game", ["brag", "brag7", "put"])
def test_the_page_s_form_of_a_game_has_the_fields_the_game_table_names(client, game):
    # index.html writes a game's boxes, menus and number fields from its entry in the table,
    # in the entry's order, each with the entry's words and first value.
    spec = game_spec(game)
    form = re.search(rf'<form[^>]*id="new-{game}".*?</form>', client.get("/").text, re.S).group(0)
    boxes = re.findall(r'<input type="checkbox" name="([^"]+)" *(checked)?> ([^<]+)</label>', form)
    first = forms.NewGameForm().values[game]
    assert boxes == [(b.name, "checked" if first[b.name] else "", b.label) for b in spec.form_boxes]
    menus = re.findall(r'<label>([^<]+) <select name="([^"]+)">', form)
    assert menus == [(m.label, m.name) for m in spec.form_menus]
    numbers = re.findall(r'<label>([^<]+) <input name="([^"]+)" value="([^"]*)"', form)
    named = [(n.label, n.field, first[n.field]) for n in spec.form_numbers]
    assert [n for n in numbers if n[1] in first] == named


def test_a_box_added_to_a_game_s_entry_reaches_the_page_and_the_table(client, monkeypatch):
    # no edit of the page or forms.py: the entry alone names the field
    spec = game_spec("brag")
    extra = (*spec.form_boxes, FormChoice("lowball", "lowball (B21)"))
    monkeypatch.setitem(forms.GAME_SPECS, "brag", dataclasses.replace(spec, form_boxes=extra))
    form = re.search(r'<form[^>]*id="new-brag".*?</form>', client.get("/").text, re.S).group(0)
    assert '<input type="checkbox" name="lowball" > lowball (B21)</label>' in form
    posted = [("game", "brag"), ("brag_opponent", "random"), ("boxes", "1"), ("lowball", "on")]
    assert forms.NewGameForm.read(MultiDict(posted)).options()["lowball"] is True


def test_an_unknown_game_is_refused_naming_the_games_of_the_table(monkeypatch):
    with pytest.raises(
        forms.SetupError, match=r"^unknown game 'chess': choose brag, brag7 or put$"
    ):
        forms.NewGameForm(game="chess").build()
    monkeypatch.setattr(forms, "GAMES", (*forms.GAMES, "hearts"))
    with pytest.raises(forms.SetupError, match=r"choose brag, brag7, put or hearts$"):
        forms.NewGameForm(game="chess").build()


def _opponent_boxes(client, game: str) -> int:
    """How many opponent boxes the index page's form of ``game`` has."""
    form = re.search(rf'<form[^>]*id="new-{game}".*?</form>', client.get("/").text, re.S)
    return form.group(0).count(f'name="{game}_opponent"')


@pytest.mark.parametrize("game", ["brag", "brag7", "put"])
def test_the_form_offers_a_box_per_opponent_seat_of_the_game_table(client, monkeypatch, game):
    """B7/B24/P7-P8: the page's opponent boxes are the most opponents the game table's sizes
    allow (forms.MAX_OPPONENTS, from brag_env/games.py), not a number written in the page."""
    assert _opponent_boxes(client, game) == forms.MAX_OPPONENTS[game]
    monkeypatch.setitem(forms.MAX_OPPONENTS, game, 2)
    assert _opponent_boxes(client, game) == 2


@pytest.mark.slow  # loads torch and the models: seconds
@pytest.mark.parametrize("name", shipped_models())  # every zip in models/, so none is missed
def test_a_shipped_model_s_link_fills_a_form_that_deals(client, name):
    """Each shipped model's link fills the form with the table it was trained for, and that
    form, sent as it is, deals a table."""
    index = client.get("/").text
    assert f'href="/?model={name}"' in index
    page = client.get(f"/?model={name}")
    assert page.status_code == 200
    game = name.split("_", 1)[0]
    fields = _form_fields(page.text, f"new-{game}")
    assert f"model:{name}" in fields[f"{game}_opponent"]
    response = client.post("/new", data=fields, follow_redirects=False)
    assert response.status_code == 303, re.findall(r'id="setup-error">(.*?)<', response.text)


@pytest.mark.slow  # loads torch and the model
def test_a_model_on_another_table_is_refused_in_the_form_s_words(client):
    """A model on the form's defaults: the refusal names the fields to set, in the page's
    words, not the command line's."""
    response = client.post("/new", data=brag_form(["model:brag_selfplay"], boxes="1"))
    assert response.status_code == 400
    error = re.search(r'id="setup-error">(.*?)<', response.text).group(1).replace("&#39;", "'")
    assert "set 3 opponents (4 players), Hands 1, covering the pot (B16) ticked" in error
    assert "--" not in error
    assert client.get("/?model=no_such_model").status_code == 400
