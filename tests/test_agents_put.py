"""Put baselines and the Put hand-strength measure, on crafted observations (P1, P3, P4, P8)."""

import numpy as np
import pytest
from env_turns import live_turns

from agents import make_agent, table_info
from agents.put import card_percentile, live_strength
from brag_env.put.observation import observation_layout
from brag_env.put.rules import FOLD, NUM_ACTIONS, PASS, PLAY, PUT, RANK_NAMES, SEE

R = {name: i for i, name in enumerate(RANK_NAMES)}  # put rank: 0 = the 3 (best) ... 12 = the 4
PHASE = {"pass": 0, "play": 1, "answer": 2}


def craft(
    hand: list[str],
    players: int = 2,
    trick: int = 0,
    table: dict[int, str] | None = None,
    tricks_won: dict[int, int] | None = None,
    phase: str = "play",
    scores: dict[int, float] | None = None,
    caller: int | None = None,
    first_trick: dict[int, str] | None = None,
    first_winner: int | None = None,
) -> np.ndarray:
    """An observation: ``hand`` ranks held, ``table`` relative seat -> rank played this trick;
    ``scores`` relative seat -> score / target, ``caller`` the Put caller, ``first_trick`` and
    ``first_winner`` the cards and winner of a finished trick 1."""
    layout = observation_layout(players, players == 4)
    size = sum(int(np.prod(shape)) for _, shape in layout)
    buffer = np.zeros(size, dtype=np.float32)
    views, pos = {}, 0
    for name, shape in layout:
        n = int(np.prod(shape))
        views[name] = buffer[pos : pos + n].reshape(shape)
        pos += n
    for rank in hand:
        views["hand"][R[rank]] += 1
    for seat, rank in (table or {}).items():
        views["played"][trick, seat, R[rank]] = 1
    for seat, won in (tricks_won or {}).items():
        views["tricks_won"][seat] = won
    for seat, score in (scores or {}).items():
        views["scores"][seat] = score
    if caller is not None:
        views["put_caller"][caller] = 1
    for seat, rank in (first_trick or {}).items():
        views["played"][0, seat, R[rank]] = 1
    if first_winner is not None:
        views["trick_winner"][0, first_winner] = 1
    views["current_trick"][trick] = 1
    views["phase"][PHASE[phase]] = 1
    views["acting"][0] = 1
    return buffer


def play_mask(hand: list[str], put: bool = True) -> np.ndarray:
    m = np.zeros(NUM_ACTIONS, dtype=np.int8)
    for rank in hand:
        m[PLAY + R[rank]] = 1
    m[PUT] = int(put)
    return m


ANSWER = np.zeros(NUM_ACTIONS, dtype=np.int8)
ANSWER[[SEE, FOLD]] = 1


def agent(spec: str, players: int = 2):
    return make_agent(spec, table_info("put", num_players=players), seed=0)


def test_card_percentile_orders_hands_by_put_rank():
    assert card_percentile([R["4"], R["4"], R["4"]]) == 0.0
    best = card_percentile([R["3"], R["3"], R["3"]])
    assert best > card_percentile([R["3"], R["3"], R["2"]]) > card_percentile([R["A"]] * 3)
    assert 0.99 < best < 1.0
    assert card_percentile([R["3"]]) == pytest.approx(48 / 52)  # P1: only the 4 threes beat none
    with pytest.raises(ValueError, match="1 to 3 cards"):
        card_percentile([])


def test_live_strength_credits_tricks_ahead():
    cards = [R["9"], R["8"]]
    assert live_strength(cards, 1) == pytest.approx(card_percentile(cards) + 0.25)
    assert live_strength(cards, -1) == pytest.approx(max(0.0, card_percentile(cards) - 0.25))
    assert live_strength([R["3"], R["3"]], 2) == 1.0
    assert live_strength([], 0) == 0.0


def test_greedy_leads_high_wins_cheaply_else_dumps_low():
    greedy = agent("put:greedy")
    hand = ["3", "9", "4"]
    assert greedy.act(craft(hand), play_mask(hand)) == PLAY + R["3"]
    hand = ["A", "Q", "4"]
    led_king = craft(hand, table={1: "K"})
    assert greedy.act(led_king, play_mask(hand)) == PLAY + R["A"]  # cheapest winner (P3)
    hand = ["Q", "J", "4"]
    assert greedy.act(craft(hand, table={1: "K"}), play_mask(hand)) == PLAY + R["4"]


def test_greedy_never_puts_and_always_sees():
    greedy = agent("put:greedy")
    hand = ["3", "3", "2"]
    assert greedy.act(craft(hand), play_mask(hand)) != PUT
    weak = ["4", "5", "6"]
    assert greedy.act(craft(weak, phase="answer"), ANSWER) == SEE


def test_greedy_lets_the_partner_hold_the_trick():
    """P8: when the partner (relative seat 2) holds the best card, dump the lowest."""
    greedy = agent("put:greedy", players=4)
    hand = ["2", "9", "5"]
    partner_winning = craft(hand, players=4, table={1: "8", 2: "A"})
    assert greedy.act(partner_winning, play_mask(hand, put=False)) == PLAY + R["5"]
    opponent_winning = craft(hand, players=4, table={1: "A", 2: "8"})
    assert greedy.act(opponent_winning, play_mask(hand, put=False)) == PLAY + R["2"]


def test_greedy_passes_its_best_card_to_the_partner():
    greedy = agent("put:greedy", players=4)
    hand = ["K", "2", "7"]
    m = np.zeros(NUM_ACTIONS, dtype=np.int8)
    for rank in hand:
        m[PASS + R[rank]] = 1
    assert greedy.act(craft(hand, players=4, phase="pass"), m) == PASS + R["2"]


def test_caller_puts_strong_hands_and_folds_weak_ones():
    caller = agent("put:caller")
    strong, weak = ["3", "2", "A"], ["4", "5", "6"]
    assert caller.act(craft(strong), play_mask(strong)) == PUT
    assert caller.act(craft(weak), play_mask(weak)) == PLAY + R["6"]
    assert caller.act(craft(weak, phase="answer"), ANSWER) == FOLD
    assert caller.act(craft(strong, phase="answer"), ANSWER) == SEE


def test_caller_counts_its_card_on_the_table_and_the_tricks_won():
    caller = agent("put:caller")
    # It led a 3 that the opponent has not answered: with 9 and 8 left it still sees a Put.
    low = ["9", "8"]
    assert caller.act(craft(low, table={0: "3"}, phase="answer"), ANSWER) == SEE
    assert caller.act(craft(low, phase="answer"), ANSWER) == FOLD
    # One trick up with two middling cards is worth a Put.
    mid = ["Q", "10"]
    assert caller.act(craft(mid, trick=1, tricks_won={0: 1}), play_mask(mid)) == PUT


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_bluffer_puts_weak_hands_at_its_rate_and_sees_mid_hands():
    weak, mid = ["4", "5", "6"], ["J", "10", "8"]
    always, never = agent("put:bluffer:bluff=1"), agent("put:bluffer:bluff=0")
    assert always.act(craft(weak), play_mask(weak)) == PUT
    assert never.act(craft(weak), play_mask(weak)) != PUT
    assert live_strength([R[r] for r in mid], 0) < 0.5
    assert live_strength([R[r] for r in mid], 0) >= 0.35
    assert never.act(craft(mid, phase="answer"), ANSWER) == SEE
    assert agent("put:caller").act(craft(mid, phase="answer"), ANSWER) == FOLD
    bluffer = agent("put:bluffer:bluff=0.3")
    puts = sum(bluffer.act(craft(weak), play_mask(weak)) == PUT for _ in range(2000))
    assert 0.25 < puts / 2000 < 0.35


# ------------------------------------------------------------------ put:tips
def test_tips_puts_a_three_and_a_two_at_once_and_always_sees_with_a_three():
    tips = agent("put:tips")
    assert tips.act(craft(["3", "2", "4"]), play_mask(["3", "2", "4"])) == PUT  # tip 1
    assert tips.act(craft(["3", "5", "4"], phase="answer", caller=1), ANSWER) == SEE
    assert tips.act(craft(["6", "5", "4"], phase="answer", caller=1), ANSWER) == FOLD


def test_tips_no_put_at_the_first_trick_without_strong_cards():
    tips = agent("put:tips")
    middling = ["A", "9", "8"]  # no 3; between mid_at and strong_at
    from agents.put import card_percentile as pct

    assert 0.4 <= pct([R[r] for r in middling]) < 0.75
    ahead = {0: 0.4, 1: 0.2}  # 2 points to 1 with a target of 5
    assert tips.act(craft(middling, scores=ahead), play_mask(middling)) != PUT  # tip 3
    assert tips.act(craft(["3", "9", "8"]), play_mask(["3", "9", "8"])) == PUT  # a 3 is strong


def test_tips_puts_middling_hands_when_ahead_or_when_a_seen_put_decides():
    tips = agent("put:tips")
    hand = ["A", "9"]  # trick 2, one card played each in a tied trick 1
    tied = {0: "K", 1: "K"}
    mask = play_mask(hand)
    level = craft(hand, trick=1, first_trick=tied, scores={0: 0.2, 1: 0.2})
    assert tips.act(level, mask) != PUT
    ahead = craft(hand, trick=1, first_trick=tied, scores={0: 0.4, 1: 0.2})
    assert tips.act(ahead, mask) == PUT  # tip 2
    # tip 4: 3 points of 5, a seen Put's 2 would end the match, even when behind
    decides = craft(hand, trick=1, first_trick=tied, scores={0: 0.6, 1: 0.8})
    assert tips.act(decides, mask) == PUT


def test_tips_seen_put_decides_reads_whole_points_at_any_target():
    """Tip 4 at target 11: 9 points + a seen Put's 2 reach 11, but float32(9/11) * 11 is
    8.99999994; the score must be read back as whole points (a miss before the fix)."""
    tips = make_agent("put:tips", table_info("put", target_points=11), seed=0)
    hand = ["A", "9"]
    tied = {0: "K", 1: "K"}
    mask = play_mask(hand)
    decides = craft(hand, trick=1, first_trick=tied, scores={0: 9 / 11, 1: 10 / 11})
    assert tips.act(decides, mask) == PUT
    short = craft(hand, trick=1, first_trick=tied, scores={0: 8 / 11, 1: 10 / 11})
    assert tips.act(short, mask) != PUT  # 8 + 2 < 11, and behind
    # target 5: 2 points + 2 do not reach 5 (tip 4 is not "any score >= 1")
    level = craft(hand, trick=1, first_trick=tied, scores={0: 0.4, 1: 0.6})
    assert agent("put:tips").act(level, mask) != PUT


def test_tips_never_folds_the_match_away():
    tips = agent("put:tips")
    weak = craft(["6", "5", "4"], phase="answer", caller=1, scores={1: 0.8})  # caller has 4 of 5
    assert tips.act(weak, ANSWER) == SEE  # tip 4
    weak_early = craft(["6", "5", "4"], phase="answer", caller=1, scores={1: 0.6})
    assert tips.act(weak_early, ANSWER) == FOLD


def test_tips_puts_after_taking_trick_one_with_a_mid_card_at_its_rate():
    hand = ["7", "6"]  # weak: only the bluff of tip 5 calls
    mask = play_mask(hand)
    won_with_mid = craft(hand, trick=1, first_trick={0: "J", 1: "9"}, first_winner=0)
    won_with_top = craft(hand, trick=1, first_trick={0: "A", 1: "9"}, first_winner=0)
    lost = craft(hand, trick=1, first_trick={0: "9", 1: "J"}, first_winner=1, table={1: "5"})
    for spec, rate in (("put:tips:after_win=1.0", 1), ("put:tips:after_win=0.0", 0)):
        tips = agent(spec)
        assert (tips.act(won_with_mid, mask) == PUT) == bool(rate)
        assert tips.act(won_with_top, mask) != PUT
        assert tips.act(lost, mask) != PUT
    tips = agent("put:tips")
    calls = sum(tips.act(won_with_mid, mask) == PUT for _ in range(400))
    assert 140 < calls < 260  # after_win = 0.5


@pytest.mark.parametrize("players", [2, 3, 4])
def test_tips_plays_whole_matches_legally(players):
    from brag_env import put_v1

    env = put_v1.env(num_players=players)
    info = table_info("put", num_players=players)
    bots = [make_agent("put:tips", info, seed=s) for s in range(players)]
    for seat, observation, mask in live_turns(env, range(5)):
        action = bots[seat].act(observation, mask)
        assert mask[action] == 1
        env.step(action)
