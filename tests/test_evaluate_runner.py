"""Tournaments end to end: payoffs, seat rotation, duplicate deals, determinism, round robin."""

import io
import json
import math
import warnings
from collections import Counter

import numpy as np
import pytest
from scripted_hands import play_hands

from brag_env.evaluation import (
    FactoryAdapter,
    evaluate,
    get_adapter,
    round_robin,
    run_headsup,
    run_tournament,
)


def test_brag_tournament_payoffs_are_per_hand_in_antes_and_zero_sum():
    result = evaluate("brag", ["brag:tight", "random", "random", "random"], 190, seed=1)
    assert result.samples == 192 and result.episodes == 192  # 8 designs of 24 seatings
    assert [a.payoff.n for a in result.agents] == [192] * 4
    assert sum(a.payoff.mean for a in result.agents) == pytest.approx(0.0, abs=1e-9)
    assert result.payoff_unit == "antes/hand"
    behaviour = result.agents[0].behaviour
    assert behaviour["hands"] == 192
    assert behaviour["look_rate"] > 0.9  # tight looks at once
    table = behaviour["actions_by_decile"]
    assert len(table["counts"]) == 11 and table["rows"][-1] == "blind"
    assert sum(map(sum, table["counts"])) == behaviour["betting_decisions"]


@pytest.mark.parametrize(
    ("options", "unit", "label"),
    [
        ({"ante": 2, "min_stake": 4}, 2, "antes/hand"),  # the ante is the unit
        ({"ante_mode": "none", "min_stake": 4}, 4, "min-stakes/hand"),  # no ante: min_stake
        ({"ante": 0}, 2, "min-stakes/hand"),
    ],
)
def test_brag_payoff_times_its_unit_is_the_chips_won(options, unit, label):
    """Each agent's payoff * n * unit equals its chip changes in the hand histories."""
    history = io.StringIO()
    specs = ["brag:tight", "random", "brag:bluffer"]
    result = evaluate("brag", specs, 12, seed=2, options=options, history=history)
    assert result.payoff_unit == label
    chips = dict.fromkeys(specs, 0)
    for line in history.getvalue().splitlines():
        h = json.loads(line)
        for seat, spec in enumerate(h["seat_agents"]):
            chips[spec] += h["deltas"][seat]
    assert any(chips.values())
    for agent in result.agents:
        assert agent.payoff.mean * agent.payoff.n * unit == pytest.approx(chips[agent.spec])
    headsup = run_headsup("brag", "brag:tight", "random", 2, env_config=options)
    assert headsup["metric"] == f"payoff ({label})"


def test_brag_sessions_give_one_sample_per_hand_and_a_ci_over_sessions():
    """Hands of a session are not independent: the interval is a ratio estimate over sessions."""
    history = io.StringIO()
    specs = ["brag:tips", "random", "brag:bluffer"]
    options = {"hands_per_session": 5}
    result = evaluate("brag", specs, 40, seed=0, options=options, history=history)
    assert result.episodes == 12  # 8 sessions rounded up to whole designs of 3! seatings
    assert result.samples == result.agents[1].payoff.n >= 12  # sessions may end early (B17)
    assert "12 independent sessions" in result.ci_method
    # By hand, from the histories: per-session chip totals (in antes) and hand counts.
    totals = {a: [0.0] * 12 for a in specs}
    hands = {a: [0] * 12 for a in specs}
    for line in history.getvalue().splitlines():
        h = json.loads(line)
        for seat, label in enumerate(h["seat_agents"]):
            totals[label][h["episode"]] += h["deltas"][seat] / h["config"]["ante"]
            hands[label][h["episode"]] += 1
    for agent in result.agents:
        y, m = np.array(totals[agent.spec]), np.array(hands[agent.spec])
        mean = y.sum() / m.sum()
        se = math.sqrt(((y - mean * m) ** 2).sum() / 11 / 12) / m.mean()
        assert agent.payoff.units == 12 and agent.payoff.n == m.sum()
        assert agent.payoff.mean == pytest.approx(mean)
        assert agent.payoff.half_width == pytest.approx(1.959964 * se, rel=1e-6)


def test_seats_rotate_and_duplicate_replays_the_same_deals():
    history = io.StringIO()
    specs = ["brag:tight", "brag:caller", "random"]
    result = evaluate("brag", specs, 30, seed=3, duplicate=True, history=history)
    assert result.groups == 5 and result.agents[0].payoff.n == 30
    assert result.agents[0].payoff.units == 5  # the interval is over deal groups
    hands = [json.loads(line) for line in history.getvalue().splitlines()]
    assert len(hands) == 30
    assert hands[0]["config"]["num_players"] == 3 and hands[0]["config"]["ante"] == 1
    seats = Counter((h["seat_agents"][s], s) for h in hands for s in range(3))
    assert set(seats.values()) == {10}
    by_group: dict[int, list] = {}
    for h in hands:
        by_group.setdefault(h["deal_group"], []).append(h)
    for group in by_group.values():
        assert len(group) == 6
        assert len({json.dumps(h["cards"]) for h in group}) == 1  # same deal
        assert len({h["dealer"] for h in group}) == 1
        assert len({tuple(h["seat_agents"]) for h in group}) == 6  # every seating of 3 agents


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_same_seed_same_results_to_the_last_digit():
    specs = ["brag:bluffer", "brag:blind", "random", "brag:tips"]
    a = evaluate("brag", specs, 120, seed=5).to_dict()
    b = evaluate("brag", specs, 120, seed=5).to_dict()
    c = evaluate("brag", specs, 120, seed=6).to_dict()
    assert json.dumps(a) == json.dumps(b)
    assert json.dumps(a) != json.dumps(c)
    p = evaluate("put", ["put:bluffer", "random"], 20, seed=5).to_dict()
    q = evaluate("put", ["put:bluffer", "random"], 20, seed=5).to_dict()
    assert json.dumps(p) == json.dumps(q)


def test_put_tournament_reports_matches_points_and_behaviour():
    history = io.StringIO()
    result = evaluate("put", ["put:greedy", "put:caller"], 40, seed=2, history=history)
    greedy, caller = result.agents
    assert result.sample_unit == "match" and greedy.payoff.n == 40
    assert greedy.metrics["match_win"].mean + caller.metrics["match_win"].mean == pytest.approx(1)
    assert greedy.payoff.mean == pytest.approx(2 * greedy.metrics["match_win"].mean - 1)
    assert greedy.behaviour["put_rate"] == 0.0 and greedy.behaviour["fold_to_put"] in (0.0, None)
    assert caller.behaviour["put_rate"] > 0.0
    lines = [json.loads(x) for x in history.getvalue().splitlines()]
    assert lines and all(x["game"] == "put" and "tricks" in x for x in lines)
    assert {x["episode"] for x in lines} == set(range(40))


def test_put_three_and_four_players():
    three = evaluate("put", ["put:greedy", "random", "random"], 9, seed=0)
    assert sum(a.metrics["match_win"].mean for a in three.agents) == pytest.approx(1.0)
    four = evaluate("put", ["put:greedy", "random", "put:caller", "random"], 8, seed=0)
    wins = [a.metrics["match_win"].mean for a in four.agents]
    assert sum(wins) == pytest.approx(2.0)  # partners win together (P8)


def test_any_aec_env_can_be_evaluated():
    from pettingzoo.classic.tictactoe import tictactoe

    adapter = FactoryAdapter("tictactoe", tictactoe.raw_env)
    result = run_tournament(adapter, ["random", "random"], 50, seed=0)
    assert result.samples == 50
    assert sum(a.payoff.mean for a in result.agents) == pytest.approx(0.0)
    with pytest.raises(ValueError, match="seats 2 agents, got 3"):
        run_tournament(adapter, ["random"] * 3, 3, seed=0)


def test_agent_counts_and_games_are_checked():
    with pytest.raises(ValueError, match="brag needs 2 to 8 agents"):
        evaluate("brag", ["random"], 10)
    with pytest.raises(ValueError, match="put needs 2 to 4 agents"):
        evaluate("put", ["random"] * 5, 10)
    with pytest.raises(ValueError, match="num_players=4"):
        evaluate("brag", ["random"] * 3, 10, options={"num_players": 4})
    with pytest.raises(ValueError, match="unknown game 'poker'"):
        get_adapter("poker")
    with pytest.raises(ValueError, match="unknown Brag option"):
        evaluate("brag", ["random"] * 2, 10, options={"antes": 1})
    with pytest.raises(ValueError, match="seed must be a whole number >= 0, got -3"):
        evaluate("brag", ["random"] * 2, 10, seed=-3)
    with pytest.raises(ValueError, match="at least 2 seats, got table_size=1"):
        round_robin("brag", ["random", "brag:tight"], 4, table_size=1)


def test_round_robin_heads_up_matrix_is_antisymmetric():
    pool = ["random", "put:greedy", "put:caller"]
    result = round_robin("put", pool, 10, seed=0)
    assert result.table_size == 2 and len(result.matches) == 3
    for i in range(3):
        assert result.matrix[i][i] is None
        for j in range(3):
            if i != j:
                assert result.matrix[i][j].mean == pytest.approx(-result.matrix[j][i].mean)
    d = result.to_dict()
    assert len(d["matrix"]) == 3 and d["mean_vs_pool"][0] is not None


def test_round_robin_at_a_bigger_table_plays_ordered_pairs():
    history = io.StringIO()
    pool = ["random", "brag:tight"]
    result = round_robin("brag", pool, 12, seed=0, table_size=3, history=history)
    assert len(result.matches) == 2
    assert result.matches[0].specs == ["random", "brag:tight", "brag:tight"]
    assert result.matrix[1][0].mean > result.matrix[0][1].mean
    # Both tables seat the same two specs: only the table number tells their hands apart.
    lines = [json.loads(x) for x in history.getvalue().splitlines()]
    assert [x["table"] for x in lines] == [0] * 12 + [1] * 12
    for x in lines:
        assert sorted(x["seat_agents"]) == sorted(result.matches[x["table"]].specs)


def test_run_headsup_summarises_one_number():
    out = run_headsup("put", "put:greedy", "random", 30, seed=0)
    assert out["metric"] == "match win rate" and out["n"] == 30
    assert out["ci_low"] < out["mean"] < out["ci_high"]
    brag = run_headsup("brag", "brag:tight", "random", 20, env_config={"num_players": 3})
    assert brag["metric"] == "payoff (antes/hand)" and brag["n"] == 24  # whole designs


def _play_scripted(game, deck, dealer, script, num_players=2, options=None):
    """One scripted hand into a fresh collector; returns each agent's behaviour and it."""
    return play_hands(game, [(deck, dealer, script)], num_players, options)


def test_brag_statistics_of_a_scripted_hand():
    """Seat 0 stays blind, seat 1 raises blind, seat 0 looks at a weak hand and folds."""
    from brag_env.brag.hands import hand_strength, strength_percentile
    from brag_env.evaluation.brag_stats import BLIND_ROW, decile

    # Dealer 1: seat 0 is dealt first (B9): cards 1, 3, 5 to seat 0, cards 2, 4, 6 to seat 1.
    deck = "2s Ks 5h Kh 9d Kd"
    script = [(0, "stay"), (1, "raise_2x"), (0, "look"), (0, "fold")]
    (zero, one), collector = _play_scripted("brag", deck, 1, script)
    assert zero["blind_play_rate"] == 1.0 and zero["look_rate"] == 1.0
    assert zero["turns_before_look"] == 1.0
    assert zero["blind_to_end_rate"] == 0.0 and one["blind_to_end_rate"] == 1.0
    assert zero["fold_to_raise"] == 1.0  # the raise before its look still counts
    assert zero["bluff_rate"] is None  # no open raise or see
    weak = decile(strength_percentile(hand_strength("2s 5h 9d")))
    counts = zero["actions_by_decile"]["counts"]
    assert counts[BLIND_ROW] == [0, 1, 0, 0] and counts[weak] == [1, 0, 0, 0]
    assert one["actions_by_decile"]["counts"][BLIND_ROW] == [0, 0, 1, 0]
    assert one["hand_win_rate"] == 1.0 and one["look_rate"] == 0.0
    payoffs = [collector.metrics.values("payoff", a).tolist() for a in range(2)]
    assert payoffs == [[-2.0], [2.0]]  # ante 1 + blind stay 1 lost, in antes


def test_brag_bluff_statistics_of_a_scripted_hand():
    """Seat 0 looks at a weak hand and raises open; seat 1 looks at a prial and folds to it."""
    deck = "2s Ks 5h Kh 9d Kd"
    script = [(0, "look"), (0, "raise_2x"), (1, "look"), (1, "fold")]
    (zero, one), _ = _play_scripted("brag", deck, 1, script)
    assert zero["bluff_raise_rate"] == 1.0 and zero["bluff_success"] == 1.0
    assert zero["light_see_rate"] is None and zero["bluff_rate"] == 1.0
    assert zero["blind_play_rate"] == 0.0 and zero["turns_before_look"] == 0.0
    assert one["fold_to_raise"] == 1.0
    assert one["actions_by_decile"]["counts"][9] == [1, 0, 0, 0]  # folded a prial: top decile


def test_brag_forced_folds_are_not_style():
    """Seat 0 (3 chips) stays blind, seat 1 raises blind: seat 0 cannot pay and must fold (B16,
    the original ruling)."""
    deck = "2s Ks 5h Kh 9d Kd"
    script = [(0, "stay"), (1, "raise_2x"), (0, "fold")]
    options = {"starting_chips": 3, "cover_pot": False}
    (zero, one), _ = _play_scripted("brag", deck, 1, script, options=options)
    assert zero["forced_decisions"] == 1 and zero["betting_decisions"] == 1
    assert zero["fold_rate"] == 0.0 and zero["fold_to_raise"] is None
    assert zero["actions_by_decile"]["counts"][-1] == [0, 1, 0, 0]  # only the blind stay
    assert zero["blind_to_end_rate"] == 1.0 and zero["turns_before_look"] is None
    assert one["forced_decisions"] == 0 and one["blind_to_end_rate"] == 1.0


def test_B16_covers_are_counted_apart():
    """Seat 0 (3 chips) stays blind, seat 1 raises blind: seat 0 covers blind (B16) and wins."""
    deck = "Ks Kh 5h 2s 9d 3d"
    script = [(0, "stay"), (1, "raise_2x"), (0, "cover")]
    (zero, one), _ = _play_scripted("brag", deck, 1, script, options={"starting_chips": 3})
    assert zero["cover_rate"] == 1.0 and zero["cover_win_rate"] == 1.0
    assert zero["cover_decided_rate"] == 1.0 and one["cover_decided_rate"] == 1.0
    assert one["cover_rate"] == 0.0 and one["cover_win_rate"] is None
    assert zero["betting_decisions"] == 1 and zero["counts"]["covers"] == 1


def test_brag_light_see_is_not_a_bluff_raise():
    """Seat 0 sees a prial with a weak hand: a light see, not a bluff raise."""
    deck = "2s Ks 5h Kh 9d Kd"
    script = [(0, "look"), (0, "stay"), (1, "look"), (1, "stay"), (0, "see")]
    (zero, one), _ = _play_scripted("brag", deck, 1, script)
    assert zero["light_see_rate"] == 1.0 and zero["bluff_raise_rate"] is None
    assert zero["bluff_rate"] == 1.0 and zero["bluff_success"] is None
    assert one["light_see_rate"] is None and one["bluff_rate"] is None
    assert zero["showdown_win_rate"] == 0.0 and one["showdown_win_rate"] == 1.0


def test_put_statistics_of_a_scripted_hand():
    """Seat 1 (non-dealer) calls Put with a weak hand and seat 0 folds: a successful bluff."""
    # Dealer 0: the non-dealer (seat 1) is dealt first (P2).
    deck = "4s 3s 5h 3h 6d 2d"
    (zero, one), collector = _play_scripted("put", deck, 0, [(1, "put"), (0, "fold")])
    assert one["put_rate"] == 1.0 and one["put_success"] == 1.0
    assert one["bluff_put_rate"] == 1.0 and one["bluff_success"] == 1.0
    assert one["bluff_rate"] == 1.0 and one["light_see_rate"] is None
    assert zero["fold_to_put"] == 1.0 and zero["see_frequency"] == 0.0
    assert zero["actions_by_decile"]["counts"][9][3] == 1  # folded a top hand
    points = [collector.metrics.values("points_per_hand", a).tolist() for a in range(2)]
    assert points == [[-1.0], [1.0]]


def test_duplicate_sessions_warn_that_only_first_hands_replay():
    """B16/B18/B19 make a session's later deals depend on play: duplicate says so."""
    from brag_env.evaluation import DuplicateWarning

    history = io.StringIO()
    options = {"hands_per_session": 3}
    with pytest.warns(DuplicateWarning, match="only the first hand of each session"):
        evaluate("brag", ["brag:tips", "random"], 24, 0, True, options, history=history)
    hands = [json.loads(line) for line in history.getvalue().splitlines()]
    by_group: dict[int, dict[int, list]] = {}
    for h in hands:
        by_group.setdefault(h["deal_group"], {}).setdefault(h["episode"], []).append(h["cards"])
    firsts = [len({json.dumps(e[0]) for e in g.values()}) for g in by_group.values()]
    assert firsts == [1] * len(by_group)  # the first hand of every session is the same deal
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate("brag", ["brag:tips", "random"], 4, 0, True)  # one hand a session: exact
        evaluate("brag", ["brag:tips", "random"], 4, 0, False, options)


def test_put_light_see_of_a_strong_put():
    """Seat 1 Puts with the best cards; seat 0 sees with the weakest: a light see, no bluff."""
    deck = "3s 4s 3h 5h 2d 6d"  # seat 1 (dealt first, P2): 3s 3h 2d; seat 0: 4s 5h 6d
    (zero, one), _ = _play_scripted("put", deck, 0, [(1, "put"), (0, "see")])
    assert one["bluff_put_rate"] == 0.0 and one["light_see_rate"] is None
    assert zero["light_see_rate"] == 1.0 and zero["bluff_put_rate"] is None
    assert zero["bluff_rate"] == 1.0 and zero["see_frequency"] == 1.0


@pytest.mark.parametrize("value", ["x", 2.5, True])
def test_a_num_players_option_that_is_not_a_whole_number_is_named(value):
    from brag_env.evaluation.games import get_adapter

    with pytest.raises(ValueError, match="the option num_players must be a whole number"):
        get_adapter("brag").num_players(2, {"num_players": value})
