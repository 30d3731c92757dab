"""Put rules engine (P1-P8): config, card order, scripted scenarios, dealing, Put, scoring."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import numpy as np
import pytest

from brag_env.cards import parse_cards
from brag_env.put import (
    ACTION_NAMES,
    FOLD,
    NUM_ACTIONS,
    PHASE_ANSWER,
    PHASE_PASS,
    PHASE_PLAY,
    PUT,
    PUT_RANK,
    RANK_NAMES,
    SEE,
    PutConfig,
    PutGame,
    action_id,
    replay_hand,
)

SCENARIOS = Path(__file__).resolve().parents[1] / "seeds" / "scenarios"
SCENARIO_FILES = sorted(SCENARIOS.glob("put_*.json"))


def play_scenario(scenario: dict) -> PutGame:
    """Deal the scenario's deck and apply its actions, checking whose turn each one is."""
    game = PutGame(PutConfig.from_dict(scenario.get("config")))
    game.new_session(
        np.random.default_rng(0),
        deck=scenario["deck"],
        dealer=scenario["dealer"],
        scores=scenario.get("scores_before"),
    )
    for seat, name in scenario["actions"]:
        assert game.current_player == seat, f"expected seat {seat} to act before {name}"
        assert game.legal_mask()[action_id(name)] == 1, f"{name} is not legal for seat {seat}"
        game.apply(action_id(name))
    return game


def legal_random_match(game: PutGame, rng: np.random.Generator, pick: random.Random) -> int:
    """Play a match with uniformly random legal actions; returns the number of decisions."""
    game.new_session(rng)
    decisions = 0
    while not game.session_over:
        legal = game.legal_actions()
        game.apply(legal[int(pick.random() * len(legal))])
        decisions += 1
        assert decisions < 100_000, "a match must end"
    return decisions


# ------------------------------------------------------------------- config
def test_config_defaults_follow_the_spec():
    cfg = PutConfig()
    assert (cfg.num_players, cfg.target_points, cfg.seen_put_points) == (2, 5, 2)
    assert cfg.put_draw_to_opponent is False and cfg.reward == "match"
    assert PutConfig.from_dict(cfg.to_dict()) == cfg


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"num_players": 5}, "num_players"),
        ({"num_players": 1}, "num_players"),
        ({"num_players": "2"}, "num_players"),
        ({"target_points": 0}, "target_points"),
        ({"target_points": 2.5}, "target_points"),
        ({"seen_put_points": 0}, "seen_put_points"),
        ({"seen_put_points": "double"}, "seen_put_points"),
        ({"seen_put_points": True}, "seen_put_points"),
        ({"put_draw_to_opponent": "yes"}, "put_draw_to_opponent"),
        ({"put_draw_to_opponent": True, "num_players": 3}, "put_draw_to_opponent"),
        ({"put_draw_to_opponent": True, "num_players": 4}, "put_draw_to_opponent"),
        ({"reward": "chips"}, "reward"),
        ({"trumps": True}, "trumps"),
    ],
)
def test_bad_config_values_name_the_field(options, field):
    with pytest.raises(ValueError, match=field):
        PutConfig.from_dict(options)


def test_seen_put_points_accepts_game_and_other_integers():
    assert PutConfig(seen_put_points="game").seen_put_points == "game"
    assert PutConfig(seen_put_points=3).seen_put_points == 3


# ----------------------------------------------------------------------- P1
def test_p1_rank_order_three_high_four_low_suits_ignored():
    cards = parse_cards("3c 2d Ah Ks Qc Jd 10h 9s 8c 7d 6h 5s 4c")
    assert [PUT_RANK[c] for c in cards] == list(range(13))
    assert [RANK_NAMES[PUT_RANK[c]] for c in cards] == list(RANK_NAMES)
    for rank in ("3", "A", "10", "4"):
        same = parse_cards(f"{rank}s {rank}h {rank}d {rank}c")
        assert len({PUT_RANK[c] for c in same}) == 1


def test_action_names_fixed_layout():
    ranks = ["3", "2", "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4"]
    assert ACTION_NAMES[:13] == tuple(f"play_{r}" for r in ranks)
    assert ACTION_NAMES[13:16] == ("put", "see", "fold")
    assert ACTION_NAMES[16:29] == tuple(f"pass_{r}" for r in RANK_NAMES)
    assert ACTION_NAMES[29:] == ("pass_none",)
    assert NUM_ACTIONS == 30 and action_id("pass_4") == 28 and action_id("pass_none") == 29
    # P8: the original rules have no "pass nothing", so their action list stops at pass_4
    assert PutConfig(num_players=4, partner_exchange="always").num_actions == 29
    assert PutConfig(num_players=4).num_actions == 30
    assert PutConfig(num_players=2).num_actions == PutConfig(num_players=3).num_actions == 29
    with pytest.raises(ValueError, match="play_1"):
        action_id("play_1")


# ---------------------------------------------------------------- scenarios
EXPECTED_KEYS = {
    "deal",
    "put",
    "result",
    "scores_after",
    "tricks",
    "match_over",
    "winners",
    "seat_scores",
    "next_dealer",
    "next_to_act",
}


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.stem)
def test_scripted_scenario(path):
    scenario = json.loads(path.read_text())
    expected = scenario["expected"]
    # a misspelt key would silently drop its check
    assert set(expected) <= EXPECTED_KEYS, set(expected) - EXPECTED_KEYS
    assert {"result", "scores_after"} <= set(expected), "every scenario checks the score"
    game = play_scenario(scenario)
    record = game.history()[0]
    assert len(game.history()) == 1, "the scripted actions must finish exactly one hand"
    for key in ("deal", "put", "result", "scores_after"):
        if key in expected:
            assert record[key] == expected[key], key
    if "tricks" in expected:
        got = [{k: t[k] for k in ("leader", "winner", "tied")} for t in record["tricks"]]
        assert got == expected["tricks"]
    if expected.get("match_over"):
        assert game.session_over and game.winners() == expected["winners"]
    else:
        assert not game.session_over
    if "seat_scores" in expected:  # P8: a side's points count for both partners
        assert game.seat_scores() == expected["seat_scores"]
    if "next_dealer" in expected:
        assert game.dealer == expected["next_dealer"]
    if "next_to_act" in expected:
        assert game.current_player == expected["next_to_act"]
    # the history is replayable (and records exactly what happened)
    assert replay_hand(record, game.config) == record


# ----------------------------------------------------------------------- P3
def test_p3_tied_trick_leader_leads_again_even_when_the_dealer_led_it():
    """Dealer 0: seat 1 leads trick 1 and the dealer takes it, so the dealer leads trick 2;
    that trick ties, and the dealer (its leader) leads trick 3 too."""
    game = PutGame()
    game.new_session(np.random.default_rng(0), deck="9s As 5s 5h Qs 2h", dealer=0)
    assert sorted(game.hands[1]) == sorted(parse_cards("9s 5s Qs"))
    assert sorted(game.hands[0]) == sorted(parse_cards("As 5h 2h"))
    for seat, name in ((1, "play_9"), (0, "play_A"), (0, "play_5"), (1, "play_5")):
        assert game.current_player == seat
        game.apply(action_id(name))
    assert game.trick_results == [(1, 0), (0, -1)]
    assert game.current_player == 0 and game.leader == 0
    game.apply(action_id("play_2"))
    game.apply(action_id("play_Q"))
    assert game.records[0].result == ("tricks", 0, 1)  # one trick won, one tied (P5)


# ----------------------------------------------------------------------- P4
def test_p4_no_second_put_by_either_player():
    game = PutGame()
    game.new_session(np.random.default_rng(0), deck="4s 3h 5s 2h 6s 7h", dealer=1)
    assert game.legal_mask()[PUT] == 1
    game.apply(PUT)
    assert game.phase == PHASE_ANSWER and list(np.flatnonzero(game.legal_mask())) == [SEE, FOLD]
    game.apply(SEE)
    assert game.phase == PHASE_PLAY and game.current_player == 0
    for _ in range(6):
        assert game.legal_mask()[PUT] == 0
        with pytest.raises(ValueError, match="only one Put per hand"):
            game.apply(PUT)
        game.apply(game.legal_actions()[0])
    assert game.hand_number == 1 and game.legal_mask()[PUT] == 1, "the next hand allows a Put again"


def test_p4_put_on_the_last_card_is_allowed():
    game = PutGame()
    game.new_session(np.random.default_rng(0), deck="4s 3h 5s 2h 6s 7h", dealer=1)
    for name in ("play_4", "play_3", "play_7", "play_6", "play_2"):
        game.apply(action_id(name))
    assert game.current_player == 0 and game.legal_mask()[PUT] == 1
    game.apply(PUT)
    game.apply(FOLD)
    assert game.records[0].result == ("fold", 0, 1)


def test_p8_no_put_during_the_pass():
    game = PutGame(PutConfig(num_players=4))
    game.new_session(np.random.default_rng(3))
    for _ in range(4):
        assert game.phase == PHASE_PASS and game.legal_mask()[PUT] == 0
        assert game.legal_mask()[:13].sum() == 0 and game.legal_mask()[16:].sum() >= 1
        game.apply(game.legal_actions()[0])
    assert game.phase == PHASE_PLAY and game.legal_mask()[PUT] == 1


def test_p8_pass_is_private_until_all_four_chose():
    game = PutGame(PutConfig(num_players=4))
    game.new_session(np.random.default_rng(0), deck="3s Ks 3h Kh 4s 6s Ts Qs 8s 7s 9s 8h", dealer=3)
    before = [sorted(h) for h in game.hands]
    for name in ("pass_4", "pass_6", "pass_10"):
        game.apply(action_id(name))
        assert [sorted(h) for h in game.hands] == before
        assert game.received == [-1, -1, -1, -1]
    game.apply(action_id("pass_8"))
    assert sorted(game.hands[0]) == sorted(parse_cards("3s 8s Ts"))
    assert sorted(game.hands[1]) == sorted(parse_cards("Ks 7s 8h"))
    assert [RANK_NAMES[r] for r in game.received] == ["10", "8", "4", "6"]
    assert game.current_player == 0, "after the pass, play starts on the dealer's left (P8)"


# ----------------------------------------------------------------------- P2
def test_p2_seeded_cut_lowest_card_deals_and_is_reproducible():
    dealers = set()
    for seed in range(40):
        game = PutGame(PutConfig(num_players=3))
        game.new_session(np.random.default_rng(seed))
        again = PutGame(PutConfig(num_players=3))
        again.new_session(np.random.default_rng(seed))
        assert (game.dealer, game.hands, game.cut) == (again.dealer, again.hands, again.cut)
        final = dict(game.cut[-1])  # the deciding round: the dealer alone cut the lowest card
        lowest = max(PUT_RANK[c] for c in final.values())
        assert PUT_RANK[final[game.dealer]] == lowest
        assert sum(PUT_RANK[c] == lowest for c in final.values()) == 1
        for round_ in game.cut[:-1]:  # earlier rounds were ties for the lowest card
            lowest = max(PUT_RANK[c] for _, c in round_)
            assert sum(PUT_RANK[c] == lowest for _, c in round_) >= 2
        first_round = dict(game.cut[0])
        assert PUT_RANK[first_round[game.dealer]] == max(PUT_RANK[c] for c in first_round.values())
        dealers.add(game.dealer)
    assert dealers == {0, 1, 2}


def test_hand_numbers_count_from_0_in_the_engine_and_from_1_in_the_stored_history():
    """One convention in the engines (0-based, as BragGame and Brag7Game); the JSON history
    keeps the numbering the files already written use (``hand`` counts from 1)."""
    game = PutGame(PutConfig(target_points=12))
    legal_random_match(game, np.random.default_rng(11), random.Random(11))
    histories = game.history()
    assert len(histories) >= 3
    assert [rec.number for rec in game.records] == list(range(len(histories)))
    assert [h["hand"] for h in histories] == list(range(1, len(histories) + 1))
    assert replay_hand(histories[2]) == histories[2]  # replayed under its stored number
    with pytest.raises(ValueError, match="hand must be an integer >= 1"):
        replay_hand({**histories[0], "hand": 0})


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_p2_deal_passes_left_every_hand(num_players):
    game = PutGame(PutConfig(num_players=num_players, target_points=30))
    rng, pick = np.random.default_rng(5), random.Random(5)
    legal_random_match(game, rng, pick)
    dealers = [rec["dealer"] for rec in game.history()]
    assert len(dealers) >= 10
    assert all(b == (a + 1) % num_players for a, b in itertools.pairwise(dealers))


@pytest.mark.parametrize(
    ("num_players", "dealer", "hands"),
    [
        (2, 0, ["2s 4s 6s", "As 3s 5s"]),
        (2, 1, ["As 3s 5s", "2s 4s 6s"]),
        (3, 1, ["2s 5s 8s", "3s 6s 9s", "As 4s 7s"]),
        (4, 2, ["2s 6s Ts", "3s 7s Js", "4s 8s Qs", "As 5s 9s"]),
    ],
)
def test_p2_cards_dealt_one_at_a_time_from_the_dealers_left(num_players, dealer, hands):
    """P2/P7/P8: with the deck A 2 3 ... of spades stacked, seat by seat what each receives."""
    game = PutGame(PutConfig(num_players=num_players))
    deck = parse_cards("As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs")[: 3 * num_players]
    game.new_session(np.random.default_rng(0), deck=deck, dealer=dealer)
    assert [sorted(h) for h in game.hands] == [sorted(parse_cards(h)) for h in hands]
    assert game.current_player == (dealer + 1) % num_players


def test_p2_stacked_deck_top_cards_then_seeded_rest():
    a, b = PutGame(), PutGame()
    a.new_session(np.random.default_rng(9), deck="3s 4h", dealer=0)
    b.new_session(np.random.default_rng(9), deck="3s 4h", dealer=0)
    assert a.hands == b.hands
    assert a.hands[1][0] == parse_cards("3s")[0] and a.hands[0][0] == parse_cards("4h")[0]
    a.apply(a.legal_actions()[0])  # the game goes on normally


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dealer": 2}, "dealer"),
        ({"dealer": -1}, "dealer"),
        ({"dealer": "0"}, "dealer"),
        ({"deck": "As Xx"}, "Xx"),
        ({"deck": "As As"}, "duplicate"),
        ({"scores": [5, 0]}, "scores"),
        ({"scores": [0]}, "scores"),
    ],
)
def test_reset_rejects_bad_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        PutGame().new_session(np.random.default_rng(0), **kwargs)


# ---------------------------------------------------------------- P5 / P6
def test_p5_illegal_plays_raise_and_change_nothing():
    game = PutGame()
    game.new_session(np.random.default_rng(0), deck="4s 3h 5s 2h 6s 7h", dealer=1)
    with pytest.raises(ValueError, match="holds no K"):
        game.apply(action_id("play_K"))
    with pytest.raises(ValueError, match="see"):
        game.apply(SEE)
    with pytest.raises(ValueError, match="not an action id"):
        game.apply(99)
    assert game.current_player == 0 and game.plays == []


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_p6_match_ends_exactly_when_a_unit_reaches_the_target(num_players):
    pick = random.Random(num_players)
    rng = np.random.default_rng(num_players)
    game = PutGame(PutConfig(num_players=num_players, target_points=3))
    for _ in range(30):
        legal_random_match(game, rng, pick)
        histories = game.history()
        for rec in histories[:-1]:
            assert max(rec["scores_after"]) < 3
        last = histories[-1]
        assert max(last["scores_after"]) >= 3
        winner = last["result"]["unit"]
        assert last["scores_after"][winner] == max(last["scores_after"])
        units = [game.unit_of[s] for s in game.winners()]
        assert units and set(units) == {winner}
        with pytest.raises(ValueError, match="match is over"):
            game.apply(0)


def test_p6_one_point_short_keeps_playing_and_reaching_the_target_ends():
    game = PutGame(PutConfig(target_points=5))
    game.new_session(np.random.default_rng(0), deck="8s 8h 6s 6h 3s 2h", dealer=1, scores=[3, 4])
    for name in ("play_8", "play_8", "play_6", "play_6", "play_3", "play_2"):
        game.apply(action_id(name))
    assert game.scores == [4, 4] and not game.session_over
    game2 = PutGame(PutConfig(target_points=5))
    game2.new_session(np.random.default_rng(0), deck="8s 8h 6s 6h 3s 2h", dealer=1, scores=[4, 4])
    for name in ("play_8", "play_8", "play_6", "play_6", "play_3", "play_2"):
        game2.apply(action_id(name))
    assert game2.scores == [5, 4] and game2.session_over and game2.winners() == [0]


def test_p6_session_over_is_the_match_end_not_a_hand_waiting_to_be_dealt():
    """``session_over`` is Brag's word for the same state: the match has ended (or none began).
    A game that leaves the deal to its driver waits between hands with nobody to act, the
    match not over (``awaiting_deal``)."""
    game = PutGame(PutConfig(target_points=5), deal_between_hands=False)
    assert game.session_over and not game.awaiting_deal  # no match yet
    game.new_session(np.random.default_rng(0), deck="8s 8h 6s 6h 3s 2h", dealer=1, scores=[3, 4])
    for name in ("play_8", "play_8", "play_6", "play_6", "play_3", "play_2"):
        assert not game.session_over
        game.apply(action_id(name))
    assert game.scores == [4, 4] and game.current_player == -1
    assert game.awaiting_deal and not game.session_over
    game.deal_next_hand(parse_cards("8s 8h 6s 6h 3s 2h"))
    assert not game.awaiting_deal and not game.session_over and game.current_player >= 0
    for name in ("play_8", "play_8", "play_6", "play_6", "play_3", "play_2"):
        game.apply(action_id(name))
    assert game.scores[game.winner] == 5 and game.session_over and not game.awaiting_deal


def test_p4_seen_put_value_follows_the_option():
    for spp, expected in ((2, 2), (3, 3), ("game", 5)):
        game = PutGame(PutConfig(seen_put_points=spp))
        game.new_session(np.random.default_rng(0), deck="4s 3h 5s 2h 6s 7h", dealer=1)
        for name in ("play_4", "put", "see", "play_3", "play_7", "play_6", "play_2", "play_5"):
            game.apply(action_id(name))
        assert game.history()[0]["result"]["points"] == expected
        assert game.session_over == (spp == "game")


# ------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"scores": [4.9, 0]}, "scores"),
        ({"scores": ["4", 0]}, "scores"),
        ({"scores": [True, 0]}, "scores"),
        ({"deck": "4s 3h 5s 2h 6s 7h 8s"}, "at most 6 cards"),
        ({"hand_number": -1}, "hand_number"),
    ],
)
def test_reset_requires_integer_scores_and_a_deck_of_one_hand_at_most(kwargs, message):
    """P2: every hand after the first is a fresh seeded shuffle, so a stacked deck can only
    cover the first hand's 3 cards per player; scores are whole points (P5)."""
    with pytest.raises(ValueError, match=message):
        PutGame().new_session(np.random.default_rng(0), **kwargs)


def test_reset_accepts_numpy_integer_scores_and_a_full_stacked_hand():
    game = PutGame()
    game.new_session(np.random.default_rng(0), deck="4s 3h 5s 2h 6s 7h", scores=np.array([1, 4]))
    assert game.scores == [1, 4] and all(type(s) is int for s in game.scores)


def test_config_accepts_numpy_integers_and_stores_plain_ints():
    cfg = PutConfig(num_players=np.int64(3), target_points=np.int32(7), seen_put_points=np.int64(3))
    assert cfg == PutConfig(num_players=3, target_points=7, seen_put_points=3)
    assert all(type(v) is int for v in (cfg.num_players, cfg.target_points, cfg.seen_put_points))
    assert json.loads(json.dumps(cfg.to_dict())) == cfg.to_dict()
    with pytest.raises(ValueError, match="num_players"):
        PutConfig(num_players=np.float64(3))


# ------------------------------------------------------ histories (P4-P6)
SEEN_PUT_HAND = ("play_4", "put", "see", "play_3", "play_7", "play_6", "play_2", "play_5")
ALL_TIED_AFTER_PUT = ("put", "see", "play_K", "play_K", "play_7", "play_7", "play_5", "play_5")


def finished_hand(config: PutConfig, deck: str, actions, scores=None) -> dict:
    game = PutGame(config)
    game.new_session(np.random.default_rng(0), deck=deck, dealer=1, scores=scores)
    for name in actions:
        game.apply(action_id(name))
    return game.history()[0]


RULES_THAT_CHANGE_A_HAND = [
    # P4/P6: "game" credits the missing 4 points, a seen Put would otherwise be 2
    (PutConfig(seen_put_points="game"), "4s 3h 5s 2h 6s 7h", SEEN_PUT_HAND, [1, 1]),
    # P5 option: the non-caller gets 1 when a seen Put ends drawn
    (PutConfig(put_draw_to_opponent=True), "Ks Kh 7s 7h 5s 5h", ALL_TIED_AFTER_PUT, None),
    # P6: 6 points is a legal score before the hand only when the target is 7
    (PutConfig(target_points=7), "4s 3h 5s 2h 6s 7h", SEEN_PUT_HAND, [1, 6]),
]


@pytest.mark.parametrize(("config", "deck", "actions", "scores"), RULES_THAT_CHANGE_A_HAND)
def test_history_stores_its_rules_and_replays_alone(config, deck, actions, scores):
    record = finished_hand(config, deck, actions, scores)
    assert PutConfig.from_dict(record["config"]) == config
    assert json.loads(json.dumps(record)) == record
    assert replay_hand(record) == record


@pytest.mark.parametrize(("config", "deck", "actions", "scores"), RULES_THAT_CHANGE_A_HAND)
def test_replay_rejects_a_config_that_disagrees_with_the_history(config, deck, actions, scores):
    record = finished_hand(config, deck, actions, scores)
    changed = [k for k, v in config.to_dict().items() if v != PutConfig().to_dict()[k]]
    with pytest.raises(ValueError, match=changed[0]):
        replay_hand(record, PutConfig())
    # the reward mode is the environment's, not a rule of the hand
    same_rules = PutConfig.from_dict({**config.to_dict(), "reward": "points"})
    assert replay_hand(record, same_rules)["result"] == record["result"]


def test_replay_of_a_history_without_rules_needs_a_config():
    """Histories written before the rules were stored: no silent defaults."""
    record = finished_hand(PutConfig(seen_put_points="game"), "4s 3h 5s 2h 6s 7h", SEEN_PUT_HAND)
    old = {k: v for k, v in record.items() if k != "config"}
    with pytest.raises(ValueError, match="config"):
        replay_hand(old)
    assert replay_hand(old, PutConfig(seen_put_points="game")) == old
    with pytest.raises(ValueError, match="num_players"):
        replay_hand(old, PutConfig(num_players=3))
