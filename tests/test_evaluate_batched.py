"""Evaluation on the batched engines: run_headsup's numbers, all matches (Put) or hands (Brag)
at once."""

import contextlib
import io
import json

import numpy as np
import pytest

from agents.registry import parse_spec
from brag_env.cards import parse_card
from brag_env.evaluation import evaluate, run_headsup
from brag_env.evaluation.batched import (
    _put_tournament,
    run_headsup_batched,
    supports_batched,
    supports_headsup_batched,
)
from brag_env.put.batched import BatchedPut


def test_supported_for_heads_up_put_and_brag_sessions_with_batch_agents():
    assert supports_batched("put", ["put:caller", "put:bluffer"], {})
    assert supports_batched("put", ["random", "put:greedy"], {"target_points": 3})
    assert not supports_batched("put", ["put:caller", "put:caller"], {"num_players": 3})
    assert supports_headsup_batched("put", ["put:caller", "put:bluffer"], {})
    assert supports_headsup_batched("brag", ["brag:tight", "random"], {})
    assert supports_headsup_batched("brag", ["brag:tips", "brag:caller"], {"num_players": 8})
    assert supports_headsup_batched("brag", ["brag:tight", "random"], {"hands_per_session": 5})
    assert not supports_headsup_batched("brag", ["brag:tight", "random"], {"cards_dealt": 4})
    # evaluate.py's Brag tournaments: tests/test_evaluate_batched_brag.py
    assert supports_batched("brag", ["brag:tight", "random"], {"num_players": 2})


def test_brag_result_shape_count_and_reproducible():
    a = run_headsup_batched("brag:tight", "random", 101, 4, {"num_players": 3}, game="brag")
    b = run_headsup_batched("brag:tight", "random", 101, 4, {"num_players": 3}, game="brag")
    assert a == b
    assert a["metric"] == "payoff (antes/hand)"
    assert a["n"] == 102  # rounded up to whole seating designs (3 seats)
    assert a["ci_low"] < a["mean"] < a["ci_high"]


def test_B17_brag_sessions_count_hands_as_the_scalar_run_headsup():
    """``n`` is hands, as in ``run_headsup``: rounded up to whole sessions, then designs."""
    options = {"num_players": 2, "hands_per_session": 5}
    fast = run_headsup_batched("brag:tight", "brag:caller", 41, 2, options, game="brag")
    slow = run_headsup("brag", "brag:tight", "brag:caller", 41, seed=2, env_config=options)
    assert fast["metric"] == slow["metric"] == "payoff (antes/hand)"
    assert fast["n"] == slow["n"] == 50  # 9 sessions of 5 hands, then 10 (2 seatings)


@pytest.mark.parametrize(
    "pair,options",
    [
        (("brag:tight", "random"), {"num_players": 2}),
        (("brag:caller", "brag:bluffer"), {"num_players": 4}),
        (("random", "random"), {"num_players": 3, "starting_chips": 10}),
    ],
)
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_brag_batched_and_scalar_estimates_agree_within_their_intervals(pair, options):
    fast = run_headsup_batched(*pair, 2000, 1, options, game="brag")
    slow = run_headsup("brag", *pair, 2000, seed=1, env_config=options)
    assert fast["metric"] == slow["metric"] and fast["n"] == slow["n"]
    half = (fast["ci_high"] - fast["ci_low"] + slow["ci_high"] - slow["ci_low"]) / 2
    assert abs(fast["mean"] - slow["mean"]) < half


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_same_result_shape_and_count_and_reproducible():
    a = run_headsup_batched("put:caller", "put:greedy", 301, seed=4)
    b = run_headsup_batched("put:caller", "put:greedy", 301, seed=4)
    scalar = run_headsup("put", "put:caller", "put:greedy", 301, seed=4)
    assert a == b
    assert set(a) == set(scalar) and a["metric"] == scalar["metric"] == "match win rate"
    assert a["n"] == scalar["n"] == 302  # rounded up to whole seating designs (2 seats)
    assert a["ci_low"] < a["mean"] < a["ci_high"]


@pytest.mark.parametrize(
    "pair", [("put:caller", "put:greedy"), ("random", "put:bluffer"), ("random", "random")]
)
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_batched_and_scalar_estimates_agree_within_their_intervals(pair):
    fast = run_headsup_batched(*pair, 1000, seed=1)
    slow = run_headsup("put", *pair, 1000, seed=1)
    half = (fast["ci_high"] - fast["ci_low"] + slow["ci_high"] - slow["ci_low"]) / 2
    assert abs(fast["mean"] - slow["mean"]) < half


def test_put_tips_has_no_vector_rules_so_it_plays_one_agent_per_table():
    """put:tips overrides the one-table Put rules only: the batched paths must not run the
    inherited (greedy) vector hooks under its name."""
    from agents import table_info
    from agents.batch import PerTableAgents, batch_agent
    from brag_env.evaluation.batched import supports_batched

    assert not supports_batched("put", ["random", "put:tips"], {})
    assert isinstance(batch_agent("put:tips", table_info("put"), 0), PerTableAgents)
    assert supports_batched("put", ["random", "put:caller"], {})


def _deals_of(history_lines):
    """A ``BatchedPut`` that deals what a scalar tournament dealt (its hand histories): each
    episode's first dealer and every hand's deck. The evaluator resets a whole block of
    tables at once: block ``b``'s table ``r`` is episode ``b * tables + r`` (the last block's
    spare tables, dealt but never played, repeat the last episode)."""
    decks, dealers = {}, {}
    for line in history_lines:
        record = json.loads(line)
        episode, hand = record["episode"], record["hand"]
        decks[episode, hand] = [parse_card(c) for c in record["deck"]]
        if hand == 1:
            dealers[episode] = record["dealer"]
    last = max(dealers)

    class Blocks(BatchedPut):
        block = -1

        def new_session(self, rows=None):
            self.block += rows is None  # a new block of matches
            super().new_session(rows)

        def _episode(self, row):
            return min(self.block * self.n + int(row), last)

        def _draw_dealers(self, rows):
            return np.array([dealers[self._episode(r)] for r in rows])

        def _draw_deals(self, rows):  # the hand about to be dealt: one after those played
            deals = [decks[self._episode(r), int(self.hands_played[r]) + 1] for r in rows]
            return np.array(deals, np.int64)

    return lambda tables, config, seed: Blocks(tables, config, seed)


@pytest.mark.parametrize(
    "specs, options",
    [
        (["put:caller", "put:greedy"], {}),
        (["put:greedy", "put:caller:put_at=0.5,see_at=0.3"], {"target_points": 3}),
        (["put:caller", "put:caller:see_at=0.2"], {"reward": "points", "seen_put_points": "game"}),
    ],
)
def test_batched_tournament_equals_the_scalar_one_on_the_same_deals_P1_P6(specs, options):
    """Deterministic agents on the scalar run's deals: every sample, statistic and interval of
    the report is the same (only the engine label differs)."""
    history = io.StringIO()
    scalar = evaluate("put", specs, 40, seed=3, options=options, history=history)
    deals = _deals_of(history.getvalue().splitlines())
    batched = _put_tournament(
        [parse_spec(s, "put") for s in specs], 40, 3, dict(options), make_engine=deals
    )
    want, got = scalar.to_dict(), batched.to_dict()
    assert (want.pop("engine"), got.pop("engine")) == ("scalar", "batched")
    assert got == want
    assert got["agents"][0]["behaviour"]["counts"]["hands"] > 40
    assert batched.agents[0].seat_estimates == scalar.agents[0].seat_estimates


def test_a_long_put_run_plays_in_blocks_of_matches_with_the_same_report(monkeypatch):
    """More matches than ``_PUT_CHUNK`` are played block after block (flat memory): on the
    same deals, the report is still the scalar run's."""
    from brag_env.evaluation import batched as batched_module

    monkeypatch.setattr(batched_module, "_PUT_CHUNK", 7)  # 40 matches: 6 blocks
    specs = ["put:caller", "put:greedy"]
    history = io.StringIO()
    scalar = evaluate("put", specs, 40, seed=3, history=history)
    deals = _deals_of(history.getvalue().splitlines())
    batched = _put_tournament([parse_spec(s, "put") for s in specs], 40, 3, {}, deals)
    want, got = scalar.to_dict(), batched.to_dict()
    assert (want.pop("engine"), got.pop("engine")) == ("scalar", "batched")
    assert got == want
    assert got["agents"][0]["behaviour"]["counts"]["hands"] > 40
    assert batched.agents[0].seat_estimates == scalar.agents[0].seat_estimates


def _cli(tmp_path, *args):
    """evaluate.py in this process; returns (stdout, the --json report)."""
    from brag_env.evaluation.cli import main

    out = tmp_path / "report.json"
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main([*args, "--json", str(out), "--force", "--no-progress"]) == 0
    return buffer.getvalue(), json.loads(out.read_text())


@pytest.mark.parametrize(
    "extra, engine",
    [
        ([], "batched"),
        (["--no-batched"], "scalar"),
        (["--duplicate"], "scalar"),  # duplicate deals: the scalar env replays them
    ],
)
def test_evaluate_cli_runs_heads_up_put_batched_unless_told_or_unable(tmp_path, extra, engine):
    text, report = _cli(tmp_path, "--game", "put", "--agents", "put:caller", "random", *extra)
    assert report["engine"] == engine
    assert f"{engine} engine" in " ".join(text.split())
    assert report["samples_per_agent"] == 1000  # the default count, either way
    assert set(report["agents"][0]["metrics"]) == {"match_win", "points_per_hand"}


def test_evaluate_cli_keeps_the_scalar_env_for_histories_and_other_tables(tmp_path):
    history = tmp_path / "h.jsonl"
    _, report = _cli(
        tmp_path,
        "--game",
        "put",
        "--agents",
        "put:caller",
        "random",
        "--matches",
        "4",
        "--history",
        str(history),
    )
    assert report["engine"] == "scalar" and history.read_text().count("\n") >= 4
    _, report = _cli(
        tmp_path, "--game", "put", "--agents", "random", "random", "random", "--matches", "6"
    )
    assert report["engine"] == "scalar"  # three players: no batched engine
    _, report = _cli(
        tmp_path,
        "--game",
        "brag",
        "--agents",
        "random",
        "random",
        "--hands",
        "20",
        "--history",
        str(tmp_path / "b.jsonl"),
    )
    assert report["engine"] == "scalar"  # histories: the scalar env, Brag too
    _, report = _cli(tmp_path, "--game", "put", "--agents", "put:tips", "random", "--matches", "4")
    assert report["engine"] == "scalar"  # put:tips has no vector rules


def test_evaluate_cli_round_robin_plays_every_table_batched(tmp_path):
    text, report = _cli(
        tmp_path,
        "--game",
        "put",
        "--round-robin",
        "random",
        "put:greedy",
        "put:caller",
        "--matches",
        "50",
    )
    assert [t["engine"] for t in report["tournaments"]] == ["batched"] * 3
    assert "batched engine" in " ".join(text.split())
    assert report["matrix"][1][2]["n"] == 50


def test_batched_evaluate_refuses_histories_and_duplicates():
    with pytest.raises(ValueError, match="no hand histories"):
        evaluate("put", ["random", "random"], 4, history=io.StringIO(), batched=True)
    with pytest.raises(ValueError, match="duplicates"):
        evaluate("put", ["random", "random"], 4, duplicate=True, batched=True)
