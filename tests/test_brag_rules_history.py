"""Hand histories and replay, scenario files, and the French seed's worked example (B8-B14)."""

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from brag_env.brag.game import BragGame
from brag_env.brag.replay import replay_hand, replay_session
from brag_env.brag.rules import BragConfig
from brag_env.brag.scenario import (
    apply_names,
    check_scenario,
    load_scenario,
    play_scenario,
    scenario_from_dict,
    stack_deck,
)
from brag_env.cards import parse_cards

SCENARIOS = Path(__file__).resolve().parents[1] / "seeds" / "scenarios"
FRENCH = SCENARIOS / "brag_french_example.json"


def french_game() -> BragGame:
    game, _ = play_scenario(load_scenario(FRENCH))
    return game


def test_french_example_scenario_file_reproduces_the_seed():
    scenario = load_scenario(FRENCH)
    assert scenario.config == BragConfig(num_players=4, ante=5, min_stake=10)
    assert scenario.dealer == 0
    game = check_scenario(scenario)
    (result,) = game.hand_results
    assert result.deltas == [-55, -10, -5, 70]  # the example's players 1, 2, 3, 4
    # The deal the example describes: a pair of sevens, queen high, 4-6-9 of spades (the same
    # deck as the worked example in seeds/rules/brag.md).
    hist = game.history()[0]
    assert hist["cards"][0] == "7h 7d Kc" and hist["cards"][1] == "Qd 9c 4h"
    assert hist["cards"][3] == "4s 6s 9s"
    assert hist["see"]["categories"] == {"0": "pair", "3": "flush"}


def test_french_example_step_by_step():
    game = french_game()
    hist = game.history()[0]
    steps = [(a["seat"], a["action"], a["cost"], a["stake"]) for a in hist["actions"]]
    assert steps == [
        (1, "stay", 5, 10),  # player 2 blind: half of the stake of 10
        (2, "look", 0, 10),
        (2, "fold", 0, 10),  # player 3 looks and folds
        (3, "look", 0, 10),
        (3, "stay", 10, 10),  # player 4 opens for 10
        (0, "look", 0, 10),
        (0, "stay", 10, 10),  # player 1 (pair of sevens) also 10
        (1, "look", 0, 10),
        (1, "fold", 0, 10),  # player 2 looks: queen high, folds
        (3, "raise_2x", 20, 20),  # player 4 bets 20
        (0, "see", 40, 20),  # player 1 sees for twice the stake
    ]
    assert hist["antes"] == [5, 5, 5, 5] and hist["pot"] == 105
    assert [x["seat"] for x in hist["looked"]] == [2, 3, 0, 1]
    assert hist["see"]["seer"] == 0 and hist["see"]["seen"] == 3 and hist["see"]["cost"] == 40
    assert hist["winner"] == 3 and hist["by_see"] and hist["deltas"] == [-55, -10, -5, 70]


def test_history_is_json_and_replays():
    game = french_game()
    hist = json.loads(json.dumps(game.history()))
    result = replay_hand(hist[0], game.config)
    assert result.to_dict() == game.hand_results[0].to_dict()
    assert json.loads(json.dumps(result.to_dict()))["shown"] == {"0": "7h 7d Kc", "3": "4s 6s 9s"}
    assert replay_hand(hist[0], game.config.to_dict()).deltas == [-55, -10, -5, 70]


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("actions", 4, "cost"), 12, "cost after action 4"),
        (("actions", 9, "stake"), 40, "stake after action 9"),
        (("actions", 4, "action"), "raise_2x", "cost after action 4"),
        (("actions", 1, "seat"), 3, "seat to act at action 1"),
        (("actions", 2, "action"), "shout", "unknown action 'shout'"),
        (("winner",), 0, "winner differs"),
        (("deltas",), [-50, -10, -10, 70], "deltas differs"),
        (("cards", 0), "7h 7d 7c", "winner differs"),
        (("dealer",), 1, "deal order differs"),
        (("num_players",), 5, "recorded for 5 players"),
    ],
)
def test_replay_detects_a_changed_history(path, value, message):
    game = french_game()
    hist = copy.deepcopy(game.history()[0])
    target = hist
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(ValueError, match=message):
        replay_hand(hist, game.config)


def test_replay_detects_a_cut_or_extended_history():
    game = french_game()
    hist = game.history()[0]
    short = copy.deepcopy(hist)
    short["actions"].pop()
    with pytest.raises(ValueError, match="ends before the hand does"):
        replay_hand(short, game.config)
    long = copy.deepcopy(hist)
    long["actions"].append(dict(long["actions"][-1]))
    with pytest.raises(ValueError, match="the history goes on"):
        replay_hand(long, game.config)


def test_session_history_replays_with_keep_bonus_and_sitting_out():
    # B19 keep, B20 bonus and B16 sitting out in one session.
    cfg = BragConfig(num_players=3, hands_per_session=4, prial_bonus=3, starting_chips=5)
    hand0 = ["Jc 8h 3d", "As Ad 5c", "2h 5d 9c"]
    hand1 = ["Kh Qd 4c", "Qs Jh 6d", "8s 8c 8d"]
    game = BragGame(cfg)
    game.new_session(
        np.random.default_rng(2), deck=stack_deck(hand0, 0, stack_deck(hand1, 1)), dealer=0
    )
    apply_names(game, ["stay", "fold", "fold"])  # seat 1 wins blind
    apply_names(game, ["keep_old_hand", "stay", "fold", "see"])  # seat 1 sees seat 2's prial
    assert game.hand_results[1].winner == 2 and game.hand_results[1].bonus == [-3, -3, 6]
    assert game.chips == [0, 1 - 1, 14 - 1] and game.sitting_out == [0]
    apply_names(game, ["fold"])  # seat 1 had only the ante; then it is out too
    assert game.session_over and game.chips == [0, 0, 15] and len(game.hand_results) == 3
    hist = json.loads(json.dumps(game.history()))
    assert hist[2]["sitting_out"] == [0] and hist[2]["dealer"] == 2
    assert hist[1]["keep"]["choice"] == "keep_old_hand" and hist[1]["bonus"] == [-3, -3, 6]
    results = replay_session(hist, cfg)
    assert [r.to_dict() for r in results] == [r.to_dict() for r in game.hand_results]

    broken = copy.deepcopy(hist)
    broken[1]["keep"] = None
    with pytest.raises(ValueError, match="kept blind hand"):
        replay_session(broken, cfg)
    broken = copy.deepcopy(hist)
    broken[2]["chips_before"][0] += 1
    with pytest.raises(ValueError, match="stacks carried over"):
        replay_session(broken, cfg)
    broken = copy.deepcopy(hist)
    broken[2]["dealer"] = 0
    with pytest.raises(ValueError, match="dealer differs"):
        replay_session(broken, cfg)


def test_scenario_file_errors():
    data = json.loads(FRENCH.read_text())
    with pytest.raises(ValueError, match="unknown scenario key"):
        scenario_from_dict(data | {"colour": "red"})
    with pytest.raises(ValueError, match="missing 'actions'"):
        scenario_from_dict({k: v for k, v in data.items() if k != "actions"})
    with pytest.raises(ValueError, match="unknown action name"):
        play_scenario(scenario_from_dict(data | {"actions": ["stay", "dance"]}))
    wrong = data | {"expected": {"deltas": [-55, -10, -5, 69]}}
    with pytest.raises(ValueError, match="deltas"):
        check_scenario(scenario_from_dict(wrong))
    wrong = data | {"expected": {"hands": [{"winner": 0}]}}
    with pytest.raises(ValueError, match="winner is 3, expected 0"):
        check_scenario(scenario_from_dict(wrong))
    illegal = data | {"actions": ["stay", "see"]}
    with pytest.raises(ValueError, match="action 1: action 'see'"):
        play_scenario(scenario_from_dict(illegal))


def test_every_scenario_file_checks_out():
    files = sorted(SCENARIOS.glob("brag_*.json"))
    assert FRENCH in files
    for path in files:
        scenario = load_scenario(path)
        check_scenario(scenario)
        assert scenario.rules and scenario.description


def test_stack_deck_follows_the_deal():
    deck = stack_deck(["7h 7d Kc", None, "4s 6s 9s"], dealer=2)
    assert parse_cards(deck) == parse_cards("7h 4s 7d 6s Kc 9s")
    with pytest.raises(ValueError, match="seat 0 must get 3 cards"):
        stack_deck(["7h 7d", "4s 6s 9s"], dealer=0)


def _random_session(cfg: BragConfig, seed: int) -> list[dict]:
    game = BragGame(cfg)
    game.new_session(np.random.default_rng(seed))
    rnd = np.random.default_rng(seed + 1)
    while not game.session_over:
        game.apply(int(rnd.choice(game.legal_actions())))
    return json.loads(json.dumps(game.history()))


def test_history_carries_its_rules_so_replay_needs_nothing_else():
    cfg = BragConfig(num_players=3, hands_per_session=6, ante=2, min_stake=4, raise_sizes=(3,))
    hist = _random_session(cfg, 11)
    assert all(h["config"] == cfg.to_dict() for h in hist)
    assert [r.deltas for r in replay_session(hist)] == [h["deltas"] for h in hist]
    assert replay_hand(hist[0]).deltas == hist[0]["deltas"]
    with pytest.raises(ValueError, match="antes differ"):  # other rules given on purpose
        replay_hand(hist[0], BragConfig(num_players=3))


def test_replay_rejects_a_card_dealt_twice():
    """B1/B9: one deck, so no card is dealt to two seats (or also kept under B19)."""
    game = french_game()
    hist = copy.deepcopy(game.history()[0])
    hist["cards"][2] = "Qd 8d 2s"  # Qd is seat 1's first card; the outcome would not change
    with pytest.raises(ValueError, match=r"card\(s\) Qd dealt more than once"):
        replay_hand(hist, game.config)
    hist = copy.deepcopy(game.history()[0])
    hist["cards"][2] = "Jc 8d"
    with pytest.raises(ValueError, match="seat 2 must have 3 cards"):
        replay_hand(hist, game.config)


def _prial_then_folds(ante_mode: str = "after_prial") -> tuple[BragConfig, list[dict]]:
    """Hand 0 ends in a see that shows seat 2's prial of eights; hands 1 and 2 end by folds."""
    cfg = BragConfig(num_players=3, hands_per_session=3, ante_mode=ante_mode, blind_keep_hand=False)
    game = BragGame(cfg)
    deck = stack_deck(["Kh Qd 4c", "Qs Jh 6d", "8s 8c 8d"], 0)
    game.new_session(np.random.default_rng(5), deck=deck, dealer=0)
    apply_names(game, ["fold", "see"])  # seat 1 folds; blind seat 2 sees blind seat 0 (B14)
    apply_names(game, ["fold", "fold"])
    apply_names(game, ["fold", "fold"])
    assert game.session_over
    return cfg, json.loads(json.dumps(game.history()))


def _with_antes(hist: list[dict], hand: int, antes: list[int]) -> list[dict]:
    """A copy with other antes on ``hand`` and every amount that depends on them adjusted (the
    pot, the stacks from then on, that hand's chip changes), so only B8 can object."""
    hist = copy.deepcopy(hist)
    h = hist[hand]
    refund = [old - new for old, new in zip(h["antes"], antes, strict=True)]
    offset = list(refund)
    offset[h["winner"]] -= sum(refund)  # the pot the winner takes changes as much
    h["antes"] = antes
    pot = sum(antes)
    for act in h["actions"]:
        pot += act["cost"]
        act["pot"] = pot
    h["pot"] = pot
    for later in hist[hand:]:
        for key in ("chips_before", "chips_after"):
            if key == "chips_after" or later is not h:
                later[key] = [c + d for c, d in zip(later[key], offset, strict=True)]
    h["deltas"] = [a - b for a, b in zip(h["chips_after"], h["chips_before"], strict=True)]
    return hist


def test_replay_session_recomputes_whether_an_ante_was_due():
    """B8 "after_prial": an ante on the first hand and after a shown prial, never otherwise."""
    cfg, hist = _prial_then_folds()
    assert [h["antes"] for h in hist] == [[1, 1, 1], [1, 1, 1], [0, 0, 0]]
    replay_session(hist, cfg)
    assert [h["shuffled"] for h in hist] == [False, True, False]  # B18, stacked first deal
    # Hand 2 with an ante, or hand 1 without one: each hand replays, the session does not.
    for hand, antes in ((2, [1, 1, 1]), (1, [0, 0, 0])):
        broken = _with_antes(hist, hand, antes)
        replay_hand(broken[hand], cfg)
        with pytest.raises(ValueError, match=f"hand {hand}: antes differ"):
            replay_session(broken, cfg)


def test_replay_hand_checks_antes_the_mode_fixes():
    """B8: "every_hand" and the first hand always have an ante; "none" never has one."""
    cfg, hist = _prial_then_folds("every_hand")
    with pytest.raises(ValueError, match="hand 1: antes differ"):
        replay_hand(_with_antes(hist, 1, [0, 0, 0])[1], cfg)
    cfg, hist = _prial_then_folds("none")
    with pytest.raises(ValueError, match="hand 0: antes differ"):
        replay_hand(_with_antes(hist, 0, [1, 1, 1])[0], cfg)
    cfg, hist = _prial_then_folds()
    with pytest.raises(ValueError, match="hand 0: antes differ"):
        replay_hand(_with_antes(hist, 0, [0, 0, 0])[0], cfg)


def test_replay_session_recomputes_the_shuffle():
    """B18: a flipped ``shuffled`` flag, or a later hand claiming a stacked deal, is caught."""
    cfg, hist = _prial_then_folds()
    for hand in (0, 1, 2):
        broken = copy.deepcopy(hist)
        broken[hand]["shuffled"] = not broken[hand]["shuffled"]
        with pytest.raises(ValueError, match=f"hand {hand}: shuffled is"):
            replay_session(broken, cfg)
    broken = copy.deepcopy(hist)
    broken[2]["stacked"] = True
    with pytest.raises(ValueError, match="opening deal can be stacked"):
        replay_session(broken, cfg)


def test_replay_session_follows_the_deck_order():
    """B18: without a shuffle, returned cards come back in the order they went under the deck.

    Heads-up hands won by folds: swapping the two seats' hands changes no result, so only the
    deck order can tell (once the cards never dealt since the shuffle have run out).
    """
    cfg = BragConfig(num_players=2, hands_per_session=14, blind_keep_hand=False)
    game = BragGame(cfg)
    game.new_session(np.random.default_rng(8))
    while not game.session_over:
        apply_names(game, ["fold"])  # B15: every hand ends at once
    hist = json.loads(json.dumps(game.history()))
    assert not any(h["shuffled"] for h in hist[1:])
    replay_session(hist, cfg)
    # Hand 7 deals cards 43..48 of the first order: still unknown, so any order is possible.
    early = copy.deepcopy(hist)
    early[7]["cards"] = early[7]["cards"][::-1]
    replay_session(early, cfg)
    # Hand 9 deals returned cards only (52 = 8 hands * 6 + 4): their order is known.
    late = copy.deepcopy(hist)
    late[9]["cards"] = late[9]["cards"][::-1]
    replay_hand(late[9], cfg)
    with pytest.raises(ValueError, match=r"hand 9: card 1 of the deal \(B18 deck order\) differs"):
        replay_session(late, cfg)
    # A card that went under the deck cannot come back while unseen cards lie above it.
    back = copy.deepcopy(hist)
    back[1]["cards"][0] = " ".join(
        hist[0]["cards"][0].split()[:1] + hist[1]["cards"][0].split()[1:]
    )
    with pytest.raises(ValueError, match=r"hand 1: \w+ cannot be card \d of the deal"):
        replay_session(back, cfg)
