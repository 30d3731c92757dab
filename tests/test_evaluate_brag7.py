"""The evaluator's Seven-card Brag collector (B24) on scripted, stacked deals, and a tiny run."""

from __future__ import annotations

import pytest

from brag_env.brag7.game import stacked_deck
from brag_env.brag7.rules import arrangement_id
from brag_env.cards import parse_cards
from brag_env.evaluation import episodes_for, evaluate, few_sessions_warning, get_adapter
from brag_env.evaluation.cli import main as evaluate_main
from brag_env.evaluation.schedule import Episode
from brag_env.training.evaluation import print_final

PRIAL = ("As Ah Ad Ks Kh 2c 5d", "As Ah Ad", "Ks Kh 5d")
QUEENS = ("Qs Qh Qd Js Jh 3c 6d", "Qs Qh Qd", "Js Jh 6d")
QUEENS_SWAPPED = ("Qs Qh Qd Js Jh 3c 6d", "Js Jh 6d", "Qs Qh Qd")
TIE0 = ("Ah Kd 9c Qs Qh 2c 4d", "Ah Kd 9c", "Qs Qh 4d")
TIE1 = ("As Kc 9d 8s 7h 3c 5d", "As Kc 9d", "8s 7h 5d")


def _action(hand: tuple[str, str, str]) -> int:
    cards, first, second = (parse_cards(x) for x in hand)
    return arrangement_id(first, second, cards)


def _play_session(decks, dealer, script, options):
    """One scripted session into a collector (agent i in seat i), rewards summed as the
    tournament runner sums them (every step's)."""
    adapter = get_adapter("brag7")
    env = adapter.make_env(2, options)
    collector = adapter.collector(env, 2)
    env.reset(seed=0, options={"deck": decks, "dealer": dealer})
    episode = Episode(0, 0, 0, 0, (0, 1))
    collector.start_episode(env, episode)
    rewards = [0.0, 0.0]
    for seat, action in script:
        assert env.agent_selection == f"player_{seat}"
        collector.before_action(env, seat, seat, action)
        env.step(action)
        collector.after_action(env, seat, seat, action)
        for s in range(2):
            rewards[s] += env.rewards[f"player_{s}"]
    collector.end_episode(env, episode, rewards)
    return [collector.behaviour(a) for a in range(2)], collector


def test_b24_collector_counts_scoops_carries_and_the_carried_pot():
    deals = [(TIE0, TIE1), (PRIAL, QUEENS_SWAPPED), (QUEENS, PRIAL)]
    decks = [stacked_deck([h[0] for h in deal], (1 + k) % 2) for k, deal in enumerate(deals)]
    script = []
    for k, deal in enumerate(deals):
        first = (1 + k + 1) % 2  # left of the dealer, who moves one seat a deal (B7)
        script += [(first, _action(deal[first])), (1 - first, _action(deal[1 - first]))]
    (b0, b1), collector = _play_session(decks, 1, script, {"hands_per_session": 3})
    assert b1["scoop_rate"] == pytest.approx(1 / 3) and b0["scoop_rate"] == 0.0
    assert b0["carried_rate"] == pytest.approx(2 / 3) and b0["longest_carry"] == 2
    assert b1["carried_pot_win_rate"] == 1.0 and b1["antes_per_scoop"] == 6.0
    assert b0["best_first_rate"] == pytest.approx(1 / 3) and b0["tied_best_rate"] == pytest.approx(
        1 / 3
    )
    assert b1["share_out_rate"] == 0.0
    assert collector.metrics.estimate("payoff", 1).mean == pytest.approx(1.0)  # +3 over 3 deals
    assert collector.metrics.estimate("scoop", 1).mean == pytest.approx(1 / 3)


def test_brag7_tournament_counts_deals_in_sessions():
    assert episodes_for("brag7", 25, {}) == 3  # 10 deals a session by default
    assert episodes_for("brag7", 25, {"hands_per_session": 5}) == 5
    result = evaluate("brag7", ["brag7:balanced", "random"], 40, seed=1)
    assert result.unit == "session" and result.samples == 40
    assert sum(a.payoff.mean for a in result.agents) == pytest.approx(0.0, abs=1e-9)
    assert result.agents[0].metrics["scoop"].n == 40


def test_brag7_few_sessions_warning_counts_sessions_not_deals():
    assert few_sessions_warning("brag7", 91, {}) is None  # 10 sessions, the last one cut short
    assert few_sessions_warning("brag", 1, {}) is None and few_sessions_warning("put", 1) is None
    note = few_sessions_warning("brag7", 90, {})
    assert note is not None and "on 9 session(s)" in note
    note = few_sessions_warning("brag7", 40, {"hands_per_session": 20})
    assert note is not None and "on 2 session(s)" in note and "at least 200 deals" in note
    assert few_sessions_warning("brag7", 10, {"hands_per_session": 1}) is None


def test_brag7_evaluate_warns_in_one_line_on_few_sessions(capsys):
    argv = ["--game", "brag7", "--agents", "random", "random", "--no-progress"]
    assert evaluate_main([*argv, "--hands", "20"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "warning: the 95% CIs rest on 2 session(s)" in err[0]
    assert evaluate_main([*argv, "--hands", "10", "--option", "hands_per_session=1"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_brag7_train_final_table_warns_on_few_sessions(capsys):
    row = {"opponent": "random", "mean": 0.1, "ci_low": -0.2, "ci_high": 0.4, "n": 20}
    print_final([row], "brag7", 0, 20, {"num_players": 2})
    captured = capsys.readouterr()
    assert "20 deals per opponent" in captured.out
    assert captured.err.strip() == (
        "warning: the 95% CIs rest on 2 session(s) of Seven-card Brag, fewer than 10: the "
        "intervals are taken over whole sessions, so ask for at least 100 deals"
    )
    print_final([row], "brag7", 0, 2000, {"num_players": 2})
    assert capsys.readouterr().err == ""
