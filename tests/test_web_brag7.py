"""Seven-card Brag (B24) in the web app: a session through the API, the two-step arrangement
the terminal asks, no hidden card (the witness over random tables), and bad requests."""

from __future__ import annotations

import contextlib
import io
import json
import random

import pytest

from brag_env.brag.hands import hand_strength
from brag_env.cards import format_card, parse_cards
from brag_env.evaluation.cli import main as evaluate_main
from brag_env.ui.turns import brag7_decision
from tests.test_web_api import _refused, play_through
from tests.web_client import Witness, brag7_form, brag_form, card_tokens, open_game


def _to_your_turn(client, game_id):
    state = client.get(f"/api/games/{game_id}").json()
    while state["phase"] == "bot_turn":
        state = client.post(f"/api/games/{game_id}/advance", json={"turn": state["turn"]}).json()
    return state


def _act(client, game_id, state, name):
    response = client.post(
        f"/api/games/{game_id}/act", json={"action": name, "turn": state["turn"]}
    )
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.slow  # about 0.5 s: every answer of the session is checked
def test_b24_a_session_played_through_the_api(client, app):
    """B24: two deals against two baselines, every answer checked for hidden cards; the
    chips are conserved and the session's end names what each seat won or lost."""
    opponents = ["brag7:balanced", "brag7:strongest_first"]
    game_id = open_game(client, **brag7_form(opponents, hands="2", seed="4", seat="1"))
    state, table = play_through(client, app, game_id, random.Random(3))
    assert table.deals_done == 2 and table.engine.session_over
    assert sum(row["chips"] for row in state["standings"]) == 3 * 200
    assert state["message"].startswith("Session over after 2 deals: chips won or lost")
    assert state["result"][0].startswith("Deal 2 showdown")


def test_b24_the_arrangement_is_asked_as_the_terminal_asks_it(client, app):
    """The page's two steps are ``ui.turns.brag7_decision``'s (the terminal's menu): 35 first
    hands strongest first, then the 4 second hands of the cards left; the deal's showdown has
    the hands chosen, and the first step moves nothing but the turn."""
    game_id = open_game(client, **brag7_form(["brag7:balanced"], hands="2", seed="7"))
    table = app.state.games.get(game_id)
    state = _to_your_turn(client, game_id)
    obs = table.env.observe(table.env.possible_agents[table.human])
    assert [a["name"] for a in state["actions"]] == [
        name for name, _ in brag7_decision(obs, table.config).options
    ]
    firsts = [parse_cards(a["name"]) for a in state["actions"]]
    assert len(firsts) == 35
    strengths = [hand_strength(t, False) for t in firsts]
    assert strengths == sorted(strengths, reverse=True)
    pot, deals = table.engine.pot, len(table.engine.hand_results)
    first = state["actions"][3]["name"]
    state = _act(client, game_id, state, first)
    assert state["phase"] == "your_turn" and len(state["actions"]) == 4
    assert (table.engine.pot, len(table.engine.hand_results)) == (pot, deals)
    assert state["table"]["my_first"] == [
        format_card(c) for c in sorted(parse_cards(first), key=lambda c: (-(c // 4), c % 4))
    ]
    second = state["actions"][0]["name"]
    while state["phase"] in ("your_turn", "bot_turn"):
        if state["phase"] == "your_turn":
            state = _act(client, game_id, state, second)
        else:
            state = client.post(
                f"/api/games/{game_id}/advance", json={"turn": state["turn"]}
            ).json()
    result = table.engine.hand_results[0]
    me = table.human
    assert sorted(result.first_hands[me]) == sorted(parse_cards(first))
    assert sorted(result.second_hands[me]) == sorted(parse_cards(second))


def test_b24_a_choice_not_offered_is_refused(client):
    game_id = open_game(client, **brag7_form(["random"], seed="2"))
    state = _to_your_turn(client, game_id)
    mine = parse_cards(state["actions"][0]["name"])
    message = _refused(client, game_id, "act", 400, json={"action": "fold", "turn": state["turn"]})
    assert "'fold' is not a legal action now" in message
    state = _act(client, game_id, state, state["actions"][0]["name"])
    again = " ".join(format_card(c, symbols=False) for c in mine)  # the first hand again
    _refused(client, game_id, "act", 400, json={"action": again, "turn": state["turn"]})
    _refused(
        client,
        game_id,
        "act",
        409,
        json={"action": state["actions"][0]["name"], "turn": state["turn"] - 1},
    )


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"brag7_opponent": ["random"] * 7}, "brag7 takes 1 to 6 opponents, got 7"),
        ({"ante": "0"}, "Ante must be 1 to 1000000"),
        ({"hands": "101"}, "Hands must be 1 to 100"),
        ({"brag7_opponent": ["brag:tight"]}, "is a brag agent"),
        ({"more": "wild_cards=aces"}, "is not a rule option of brag7"),
    ],
)
def test_b24_a_bad_setup_is_explained_on_the_page(client, fields, message):
    response = client.post("/new", data={**brag7_form(["random"]), "boxes": "1", **fields})
    assert response.status_code == 400
    assert message in response.text.replace("&#39;", "'")


def test_b21_the_lowball_box_reaches_the_table(client, app):
    assert 'id="new-brag7"' in client.get("/").text
    game_id = open_game(client, **brag7_form(["random"], lowball="on"))
    assert app.state.games.get(game_id).config.lowball
    plain = open_game(client, **brag7_form(["random"]))
    assert not app.state.games.get(plain).config.lowball


def test_the_witness_catches_a_discard(client, app):
    """The check can fail: an opponent's discard in a showdown's lines is caught."""
    game_id = open_game(client, **brag7_form(["random"], seed="1", hands="2"))
    table = app.state.games.get(game_id)
    state = client.get(f"/api/games/{game_id}").json()
    while state["phase"] != "hand_over":
        if state["phase"] == "your_turn":
            state = _act(client, game_id, state, state["actions"][0]["name"])
        else:
            state = client.post(
                f"/api/games/{game_id}/advance", json={"turn": state["turn"]}
            ).json()
    witness = Witness(table)
    witness.check_state(state)
    discard = table.engine.hand_results[-1].discards[1 - table.human]
    planted = {**state, "result": [*state["result"], format_card(discard)]}
    with pytest.raises(AssertionError, match="hidden card"):
        witness.check_state(planted)


@pytest.mark.slow  # several seconds: every answer of many sessions is checked
def test_no_hidden_card_in_many_random_tables(client, app):
    """B24 (2-7 players, B21 lowball) and B25 (a Brag table with wild cards): over random
    tables, no answer holds a card its human may not see."""
    rng = random.Random(29)
    styles = ["brag7:balanced", "brag7:strongest_first", "random"]
    for k in range(6):
        n = rng.randint(1, 6)
        fields = brag7_form([rng.choice(styles) for _ in range(n)], seed=str(k))
        fields.update(seat=str(rng.randint(0, n)), hands=str(rng.randint(1, 3)))
        if rng.random() < 0.5:
            fields["lowball"] = "on"
        play_through(client, app, open_game(client, **fields), rng)
    for k, wild in enumerate(["braggers", "nines", "aces", "aces"]):
        n = rng.randint(1, 4)
        opponents = [rng.choice(["brag:tight", "brag:bluffer", "random"]) for _ in range(n)]
        fields = brag_form(opponents, hands="2", seed=str(k), wild_cards=wild)
        fields["seat"] = str(rng.randint(0, n))
        game_id = open_game(client, **fields)
        assert app.state.games.get(game_id).config.wild_cards == wild
        play_through(client, app, game_id, rng)


def test_the_state_is_json_of_the_human_s_seat_only(client, app):
    """No field names another seat's cards: the seats list chips and the dealer only."""
    game_id = open_game(client, **brag7_form(["random", "random"], seed="3"))
    state = _to_your_turn(client, game_id)
    assert set(state["table"]["seats"][0]) == {"seat", "name", "player", "chips", "dealer", "you"}
    assert json.dumps(state)  # plain JSON


@pytest.mark.slow  # about 0.5 s: evaluate.py writes the history first
def test_b24_a_brag7_history_replays_in_the_page(client, tmp_path):
    """The replay page reads Seven-card Brag deals (``replay.hand_parts``): every seat's
    arrangement, the showdown, and the discards only through the eyes of everyone."""
    history = tmp_path / "brag7.jsonl"
    argv = ["--game", "brag7", "--agents", "brag7:balanced", "random", "--hands", "1"]
    with contextlib.redirect_stdout(io.StringIO()):
        assert evaluate_main([*argv, "--seed", "0", "--history", str(history)]) == 0
    response = client.post(
        "/replay", files={"file": ("b7.jsonl", history.read_bytes())}, follow_redirects=False
    )
    assert response.status_code == 303
    where = response.headers["location"]
    first = client.get(where).text
    assert "Seven-card Brag deal 1" in first and "decision 1 of 2" in first
    record = json.loads(history.read_text().splitlines()[0])
    discards = [format_card(c) for c in parse_cards(" ".join(record["discards"]))]
    end_all = client.get(f"{where}?hand=0&seat=all&step=2").text
    assert "showdown" in end_all and all(card in end_all for card in discards)
    end_seat = client.get(f"{where}?hand=0&seat=0&step=1").text
    assert "showdown" in end_seat and discards[1] not in card_tokens(end_seat)


def test_b25_the_witness_at_a_wild_table_still_catches_a_card(client, app):
    """Only a reading (a card after a card and "as") is let through at a wild table: an
    opponent's card on its own is still caught."""
    game_id = open_game(client, **brag_form(["random"], seed="1", wild_cards="aces"))
    table = app.state.games.get(game_id)
    state = client.get(f"/api/games/{game_id}").json()
    card = format_card(table.engine.hands[1 - table.human][0])
    witness = Witness(table)
    witness.check_state({**state, "log": [{"seat": 1, "text": f"reads A♠ as {card}"}]})
    with pytest.raises(AssertionError, match="hidden card"):
        witness.check_state({**state, "log": [{"seat": 1, "text": f"holds {card}"}]})
