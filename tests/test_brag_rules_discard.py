"""Four- and Five-card Brag (B22): the option, the discard phase, ties broken by the discards,
the B18 return of the discards, privacy, replay, the env, baselines and statistics. Stacked
decks, scripted actions and exact chips."""

import json

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from agents import make_agent, table_info
from brag_env import brag_v0, brag_v1
from brag_env.brag.game import BragGame
from brag_env.brag.observation import BragObserver, decode_observation
from brag_env.brag.replay import replay_hand, replay_session
from brag_env.brag.rules import BragConfig, discard_choices
from brag_env.brag.scenario import apply_names, legal_names, stack_deck
from brag_env.cards import format_cards, parse_cards
from tests.stacked_brag import start as stacked_start


def start(hands, dealer=0, seed=0, **options) -> BragGame:
    options = {"allow_blind": False, "cards_dealt": len(parse_cards(hands[0])), **options}
    return stacked_start(hands, dealer, seed=seed, **options)


# Seat 0 deals, seat 1 discards and bets first. Both keep a pair of sevens with a 2 (suits never
# rank, B6: equal hands), so the discards decide.
SEAT0_NINE = "7d 7c 2d 9s"  # keeps 7 7 2, discards the 9 (position 4 by card id)
SEAT1_KING = "7s 7h 2c Kd"  # keeps 7 7 2, discards the king (position 4)
SEAT0_KING = "7d 7c 2d Kc"


# ------------------------------------------------------------------------- the option
@pytest.mark.parametrize("dealt", [4, 5])
def test_B22_blind_play_is_refused_in_one_line(dealt):
    with pytest.raises(ValueError, match=f"^cards_dealt={dealt} needs allow_blind=false") as info:
        BragConfig(cards_dealt=dealt)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("bad", [2, 6, "4", 4.0, True])
def test_B22_cards_dealt_must_be_3_4_or_5(bad):
    with pytest.raises(ValueError, match="cards_dealt must be 3, 4 or 5"):
        BragConfig(cards_dealt=bad, allow_blind=False)


def test_B22_actions_are_appended_and_three_cards_unchanged():
    three = BragConfig()
    assert three.num_actions == 8 and three.action_names[-1] == "cover"
    four = BragConfig(cards_dealt=4, allow_blind=False)
    assert four.action_names[8:] == ["discard_1", "discard_2", "discard_3", "discard_4"]
    five = BragConfig(cards_dealt=5, allow_blind=False)
    assert five.num_actions == 18 and five.action_names[8] == "discard_1_2"
    assert five.action_names[-1] == "discard_4_5" and len(discard_choices(5)) == 10
    with pytest.raises(ValueError, match="cards_dealt: brag_v0 has the original rules only"):
        brag_v0.raw_env(cards_dealt=4, allow_blind=False)


# ------------------------------------------------------------------------- discard phase
def test_B22_everyone_discards_in_turn_from_the_dealers_left_before_the_betting():
    game = start(["2s 3h 9d Jc", "4s 6h 8d Tc", "5s 7h Kd Ac"], dealer=2)
    assert game.discarding and game.current_player == 0
    assert legal_names(game) == ["discard_1", "discard_2", "discard_3", "discard_4"]
    apply_names(game, ["discard_1"])  # seat 0 puts its 2 aside
    assert game.current_player == 1 and game.discarding and game.betting == []
    apply_names(game, ["discard_4", "discard_2"])  # seat 1 its 10, seat 2 its 7
    assert not game.discarding and game.current_player == 0
    assert "stay" in legal_names(game) and "look" not in legal_names(game)
    assert [sorted(h) for h in game.hands] == [
        sorted(parse_cards(h)) for h in ("3h 9d Jc", "4s 6h 8d", "5s Kd Ac")
    ]
    assert game.discards == [parse_cards("2s"), parse_cards("Tc"), parse_cards("7h")]
    assert game.betting == [], "discards are private: not public betting events"


def test_B22_tie_decided_by_the_discards():
    """Equal kept hands; seat 1 discarded a king, seat 0 a nine: seat 1 wins the see."""
    game = start([SEAT0_NINE, SEAT1_KING])
    (result,) = apply_names(game, ["discard_4", "discard_4", "stay", "see"])
    assert result.by_see and result.seer == 0 and result.winner == 1
    assert result.pot == 8 and result.deltas == [-5, 5] and result.chips == [195, 205]
    assert result.shown == {0: parse_cards("7d 7c 2d"), 1: parse_cards("7s 7h 2c")}


def test_B22_still_tied_after_the_discards_the_seen_player_wins():
    """Both discarded a king: still equal, so the seen player (seat 0) wins (B14)."""
    game = start([SEAT0_KING, SEAT1_KING])
    (result,) = apply_names(game, ["discard_4", "discard_4", "see"])
    assert result.seer == 1 and result.seen == 0 and result.winner == 0
    assert result.pot == 6 and result.deltas == [5, -5] and result.chips == [205, 195]


def test_B22_five_cards_the_highest_discard_first_then_the_next():
    """Both discard a king; seat 0's other discard (9) beats seat 1's (3)."""
    game = start(["7d 7c 2d Kc 9s", "7s 7h 2c Kd 3s"])
    (result,) = apply_names(game, ["discard_2_5", "discard_4_5", "stay", "see"])
    assert sorted(game.hand_results[0].shown[0]) == sorted(parse_cards("7d 7c 2d"))
    assert result.seer == 0 and result.winner == 0
    assert result.deltas == [3, -3] and result.chips == [203, 197]


def test_B22_lowball_the_lower_discards_win_a_tie():
    game = start([SEAT0_NINE, SEAT1_KING], lowball=True)
    (result,) = apply_names(game, ["discard_4", "discard_4", "stay", "see"])
    assert result.seer == 0 and result.winner == 0 and result.chips == [203, 197]


def test_B22_a_tie_for_a_covered_pot_is_decided_by_the_discards_first():
    """B16 with B22: the coverer's equal hand but higher discard takes the covered pot."""
    game = start([SEAT0_NINE, SEAT1_KING], starting_chips=10)
    (result,) = apply_names(game, ["discard_4", "discard_4", "raise_2x", "raise_2x", "cover"])
    assert result.covers == [(1, 19)] and result.winner == 1
    assert result.deltas == [-9, 9] and result.chips == [1, 19]


def test_B22_B18_discards_go_under_the_deck_with_their_hand_in_deal_order():
    hands = ["7d 7c 2d 9s", "7s 7h 2c Kd"]
    game = start(hands, hands_per_session=2)
    dealt = parse_cards(stack_deck(hands, 0))
    apply_names(game, ["discard_4", "discard_4", "fold"])  # no see: no shuffle (B18)
    # the next hand was dealt from the top; the finished one, discards too, lies at the bottom
    assert game.hand_number == 1 and game.deck_cards[-8:] == dealt
    apply_names(game, ["discard_1", "discard_1", "fold"])
    history = game.history()
    assert [h["shuffled"] for h in history] == [False, False]
    replay_session(history)  # follows the returned cards through the deck


# ------------------------------------------------------------------------- privacy, replay
def test_B22_a_discard_is_seen_by_its_maker_only():
    config = BragConfig(num_players=3, cards_dealt=5, allow_blind=False)
    observer = BragObserver(config)
    views = {}
    for choice in ("discard_1_2", "discard_4_5"):
        game = start(["2s 3h 9d Jc Ks", "4s 6h 8d Tc Qd", "5s 7h Kd Ac 3c"], dealer=2)
        apply_names(game, [choice])
        views[choice] = [observer.set_from(game, s).copy() for s in range(3)]
        mine = decode_observation(views[choice][0], config)
        assert mine["own_discards"] is not None and mine["discard_pending"]
    for seat in (1, 2):  # the others see the same whatever seat 0 threw away
        np.testing.assert_array_equal(views["discard_1_2"][seat], views["discard_4_5"][seat])
    assert decode_observation(views["discard_1_2"][1], config)["own_discards"] is None


def test_B22_observation_shows_the_deal_then_the_kept_three():
    config = BragConfig(num_players=2, cards_dealt=4, allow_blind=False)
    observer = BragObserver(config)
    game = start([SEAT0_NINE, SEAT1_KING])
    before = decode_observation(observer.set_from(game, 1), config)
    assert len(before["own_cards"].split()) == 4 and before["own_category"] is None
    apply_names(game, ["discard_4"])
    after = decode_observation(observer.set_from(game, 1), config)
    assert len(after["own_cards"].split()) == 3 and after["own_category"] == "pair"
    assert after["own_discards"] is not None


def test_B22_history_records_the_discards_and_replays():
    game = start([SEAT0_NINE, SEAT1_KING])
    apply_names(game, ["discard_4", "discard_4", "stay", "see"])
    (record,) = game.history()
    assert record["cards"] == ["7d 7c 2d 9s", "7s 7h 2c Kd"]
    assert record["discards"] == [
        {"seat": 1, "action": "discard_4", "cards": "Kd"},
        {"seat": 0, "action": "discard_4", "cards": "9s"},
    ]
    assert record["see"]["hands"] == {"0": "7d 7c 2d", "1": "7s 7h 2c"}
    assert replay_hand(record).winner == 1
    wrong = {
        **record,
        "discards": [{**record["discards"][0], "cards": "7s"}, record["discards"][1]],
    }
    with pytest.raises(ValueError, match="cards of discard 0"):
        replay_hand(wrong)


@pytest.mark.parametrize("dealt", [4, 5])
def test_B22_random_sessions_zero_sum_replayable_masks_never_empty(dealt):
    config = BragConfig(num_players=4, cards_dealt=dealt, allow_blind=False, hands_per_session=6)
    game = BragGame(config)
    pick = np.random.default_rng(dealt)
    hands = 0
    for session in range(150):
        game.new_session(session)
        while not game.session_over:
            legal = game.legal_actions()
            assert legal, "the seat to act always has a move"
            game.apply(int(legal[int(pick.integers(len(legal)))]))
        history = game.history()
        for record in history:
            assert sum(record["deltas"]) == record["carried_in"] - record["carried"]
            kept = {d["seat"]: d["cards"] for d in record["discards"]}
            assert len(kept) == len(record["deal_order"])
        replay_session(history)
        hands += len(history)
    assert hands >= 500


# ------------------------------------------------------------------------- env, agents, stats
@pytest.mark.parametrize("dealt", [4, 5])
def test_B22_api_and_seed_tests(dealt):
    options = {"num_players": 3, "cards_dealt": dealt, "allow_blind": False}
    api_test(brag_v1.env(**options), num_cycles=300)
    seed_test(lambda: brag_v1.env(**options), num_cycles=300)


def test_B22_baselines_keep_their_best_three():
    info = table_info("brag", num_players=2, cards_dealt=5, allow_blind=False)
    config = info.config
    observer = BragObserver(config)
    # a run (Q K A) beats the pair of aces; the discards are then the 8 and the other ace
    game = start(["2s 3h 9d Jc 4c", "8s Qd Kh As Ad"])
    obs = observer.set_from(game, 1)
    for spec in ("brag:tips", "brag:caller", "brag:tight", "brag:bluffer", "brag:blind"):
        agent = make_agent(spec, info, seed=0)
        mask = np.array(game.legal_mask(), dtype=np.int8)
        action = agent.act(obs, mask)
        assert config.action_names[action] in ("discard_1_4", "discard_1_5"), spec


def test_B22_statistics_count_the_best_discards():
    from brag_env.evaluation import evaluate

    result = evaluate(
        "brag",
        ["brag:tips", "random"],
        40,
        seed=1,
        options={"cards_dealt": 4, "allow_blind": False, "num_players": 2},
    )
    rates = [a.behaviour["best_discard_rate"] for a in result.agents]
    assert rates[0] == 1.0 and rates[1] < 1.0


# ------------------------------------------------------------------------- play, replay, render
def test_B22_play_and_replay_show_the_discards_to_the_discarder_only(tmp_path):
    import io

    from brag_env.play import main as play_main
    from brag_env.replay import main as replay_main

    history = tmp_path / "five.jsonl"
    argv = ["brag", "--opponents", "brag:tips", "brag:caller", "--seed", "3", "--hands", "2"]
    argv += ["--option", "cards_dealt=5", "--option", "allow_blind=false"]
    out = io.StringIO()
    code = play_main([*argv, "--history", str(history)], stdin=io.StringIO("1\n" * 60), stdout=out)
    text = out.getvalue()
    assert code == 0 and text.startswith("Five-Card Brag: 3 players")
    assert "1) discard 6♠ 3♥ face down, keep Q♥ 7♦ 7♣  [discard 1 2]" in text
    assert "You: discard 3♥ 6♠ face down" in text
    assert (
        "seat 1: discard 2 cards face down" in text and "seat 2: discard 2 cards face down" in text
    )
    records = [json.loads(line) for line in history.read_text().splitlines()]
    seat1 = next(d["cards"] for d in records[0]["discards"] if d["seat"] == 1)
    shown = format_cards(parse_cards(seat1))
    assert f"seat 1: discard {shown}" not in text  # the others' discards stay face down
    out = io.StringIO()
    assert replay_main([str(history)], stdin=io.StringIO(""), stdout=out) == 0
    replayed = out.getvalue()
    assert "discarded: " in replayed and "▶ seat 1 chose: discard_" in replayed


def test_B22_render_hides_discards_unless_revealed():
    env = brag_v1.raw_env(num_players=2, cards_dealt=4, allow_blind=False, render_mode="ansi")
    env.reset(seed=0, options={"deck": stack_deck([SEAT0_NINE, SEAT1_KING], 0), "dealer": 0})
    assert "player_1 discards 1 card face down (B22)" in env.render()
    env.step(env.unwrapped.config.action_names.index("discard_4"))
    assert "discarded" not in env.render() and "K" not in env.render()
    shown = brag_v1.raw_env(
        num_players=2, cards_dealt=4, allow_blind=False, render_mode="ansi", reveal_cards=True
    )
    shown.reset(seed=0, options={"deck": stack_deck([SEAT0_NINE, SEAT1_KING], 0), "dealer": 0})
    shown.step(shown.unwrapped.config.action_names.index("discard_4"))
    assert "discarded K♦" in shown.render()
