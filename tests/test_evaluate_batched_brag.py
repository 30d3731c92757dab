"""evaluate.py's Brag tournaments on the batched engine (BatchedBrag, one-hand and multi-hand
sessions, 2-8 players): the scalar evaluator's report, every statistic included, on the same
deals."""

import contextlib
import io
import json
import subprocess
import sys

import numpy as np
import pytest
from mirrored_deals import mirrored
from unloadable_kernels import kernels_that_cannot_load

from agents.brag import BlindSpecialist, CallingStation
from agents.registry import _STYLES, parse_spec, styles
from brag_env.brag.batched import BatchedBrag
from brag_env.brag.rules import BragConfig
from brag_env.cards import NUM_CARDS, parse_card, parse_cards
from brag_env.evaluation import evaluate
from brag_env.evaluation.batched import _brag_tournament, supports_batched


def _deals_of(history_lines):
    """A ``BatchedBrag`` that deals what a scalar tournament dealt (its hand histories):
    each episode's dealer and every seat's three cards, in the B9 deal order (one card at a
    time from the dealer's left)."""
    hands, dealers = {}, {}
    for line in history_lines:
        record = json.loads(line)
        hands[record["episode"]] = [[parse_card(c) for c in h.split()] for h in record["cards"]]
        dealers[record["episode"]] = record["dealer"]

    def cards(engine, row):
        n, d = engine.num_players, dealers[row]
        return [hands[row][(d + 1 + j) % n][i] for i in range(3) for j in range(n)]

    return mirrored(BatchedBrag, dealers.__getitem__, cards)


# Deterministic styles (a zero blind_raise draws but never raises), so both runs decide alike.
_BLIND = "brag:blind:blind_raise=0"
_TIPS = "brag:tips:blind_raise=0"
_LOOSE = "brag:tight:play=0.05,raise_at=0.1,see_at=0.2"


@pytest.mark.parametrize(
    "specs, options, exercised",
    [
        # B10/B14: blind play, looks, sees (a blind seat may not see an open one)
        ([_BLIND, _LOOSE], {"blind_may_see_open": False}, ("looked_hands", "sees")),
        # B16 without covers: a seat short of the stay has only the fold (forced)
        (
            [_BLIND, _TIPS, _LOOSE],
            {"starting_chips": 14, "cover_pot": False},
            ("forced_decisions",),
        ),
        # B13/B16: two raise sizes, covers and side pots at four seats
        (
            [_BLIND, _LOOSE, _TIPS, "brag:caller"],
            {"starting_chips": 30, "raise_sizes": [2, 4], "max_stake": 64},
            ("covers", "cover_wins", "raises", "faced_raise"),
        ),
        # a shipped snapshot (its numpy actor on the batched side, as agents/model.py)
        (
            ["model:brag_headsup_selfplay:deterministic=true", "brag:tight"],
            {},
            ("looked_hands", "blind_play_hands", "raises"),
        ),
        # B20/B21: the prial bonus under lowball, covers at three seats
        (
            ["brag:never_look", "brag:caller", _LOOSE],
            {"starting_chips": 9, "prial_bonus": 2, "lowball": True},
            ("covers", "cover_decided_hands"),
        ),
    ],
)
@pytest.mark.slow  # the scalar half takes about a second
def test_B10_B16_batched_tournament_equals_the_scalar_one_on_the_same_deals(
    specs, options, exercised
):
    """Every sample, interval, per-seat payoff and behaviour statistic of the report is the
    scalar run's (only the engine label differs)."""
    history = io.StringIO()
    options = {"num_players": len(specs), **options}
    assert supports_batched("brag", specs, options)  # what evaluate.py would play batched
    scalar = evaluate("brag", specs, 48, seed=3, options=options, history=history)
    deals = _deals_of(history.getvalue().splitlines())
    parsed = [parse_spec(s, "brag") for s in specs]
    batched = _brag_tournament(parsed, 48, 3, dict(options), make_engine=deals)
    want, got = scalar.to_dict(), batched.to_dict()
    assert (want.pop("engine"), got.pop("engine")) == ("scalar", "batched")
    assert got == want
    assert [a.seat_estimates for a in batched.agents] == [a.seat_estimates for a in scalar.agents]
    counts = [a["behaviour"]["counts"] for a in got["agents"]]
    for name in exercised:  # the case reaches what it is there for
        assert sum(c[name] for c in counts) > 0, name


@pytest.mark.slow  # the scalar half takes about a second
def test_a_long_run_plays_in_blocks_of_tables_with_the_same_report(monkeypatch):
    """More episodes than ``_BRAG_CHUNK`` are played block after block (flat memory): on the
    same deals, the report is still the scalar run's."""
    from brag_env.evaluation import batched as batched_module

    monkeypatch.setattr(batched_module, "_BRAG_CHUNK", 7)  # 48 episodes: 7 blocks
    specs, options = [_BLIND, _LOOSE, _TIPS], {"num_players": 3, "starting_chips": 30}
    history = io.StringIO()
    scalar = evaluate("brag", specs, 48, seed=3, options=options, history=history)
    config = BragConfig.from_dict(options)
    by_episode = _deals_of(history.getvalue().splitlines())(48, config, None)  # by episode

    def episodes(block, rows):  # the last block's spare table is dealt but never played
        return np.minimum(rows + 7 * block, 47)

    class Blocks(BatchedBrag):
        block = -1

        def new_session(self, rows=None, decks=None, dealers=None):
            self.block += rows is None  # a new block of tables: the next 7 episodes
            super().new_session(rows, decks, dealers)

        def _draw_dealers(self, rows):
            return by_episode._draw_dealers(episodes(self.block, rows))

        def _draw_deals(self, rows):
            return by_episode._draw_deals(episodes(self.block, rows))

    parsed = [parse_spec(spec, "brag") for spec in specs]
    batched = _brag_tournament(
        parsed, 48, 3, dict(options), make_engine=lambda t, c, s: Blocks(t, c, s)
    )
    want, got = scalar.to_dict(), batched.to_dict()
    assert (want.pop("engine"), got.pop("engine")) == ("scalar", "batched")
    assert got == want


def _session_deals_of(history_lines):
    """A ``BatchedBrag`` whose sessions deal what a scalar tournament's sessions dealt (its
    hand histories): each session's first dealer and first deal stacked by ``new_session(decks=...,
    dealers=...)``, and each later hand's cards put on top of the table's deck just before it
    is dealt (so the B18 shuffles need not be mirrored). The dealer (B7, B16: the button skips
    seats sitting out) and the seats dealt in are the engine's own, and must be the scalar
    run's. The evaluator resets a whole block of tables at once: block ``b``'s table ``r`` is
    episode ``b * tables + r`` (the last block's spare tables, never played, repeat the last)."""
    deals, dealer_of, orders = {}, {}, {}
    for line in history_lines:
        record = json.loads(line)
        key = record["episode"], record["hand_number"]
        order = record["deal_order"]
        hands = {s: parse_cards(record["cards"][s]) for s in order}
        deals[key] = [hands[s][i] for i in range(3) for s in order]  # B9: one card a turn
        dealer_of[key], orders[key] = record["dealer"], order
    last = max(e for e, _ in deals)

    class Mirrored(BatchedBrag):
        block = -1

        def _episode(self, row):
            return min(self.block * self.n + int(row), last)

        def new_session(self, rows=None, decks=None, dealers=None):
            assert rows is None and decks is None  # a new block of sessions
            self.block += 1
            firsts = [deals[self._episode(r), 0] for r in range(self.n)]
            decks = [top + sorted(set(range(NUM_CARDS)) - set(top)) for top in firsts]
            dealers = [dealer_of[self._episode(r), 0] for r in range(self.n)]
            super().new_session(None, decks, dealers)

        def _shuffle(self, rows):
            pass  # B18: the next hand's cards are put on top below, whatever the order

        def _start_hands(self, rows, dealer):
            later = rows[self.hand_number[rows] >= 0]
            for r in later.tolist():
                top = deals[self._episode(r), int(self.hand_number[r]) + 1]
                at = (self.deck_head[r] + np.arange(len(top))) % NUM_CARDS
                self.deck[r, at] = top
            super()._start_hands(rows, dealer)
            for r in rows.tolist():
                key = self._episode(r), int(self.hand_number[r])
                assert self.dealer[r] == dealer_of[key], key
                assert self.order[r, : self.in_hand[r]].tolist() == orders[key], key

    return lambda tables, config, seed: Mirrored(tables, config, seed)


class _Keeper(BlindSpecialist):
    """A blind specialist that keeps its old blind hand when B19 offers the choice (the
    baselines take the new one): the kept hand is the one whose strength counts."""

    def bind(self, table):
        super().bind(table)
        self.keep_id, self.take_id = self.take_id, self.keep_id


_KEEPER = "brag:keeper:blind_raise=0"
_SHORT = {"ante": 1, "min_stake": 2, "max_stake": 32, "raise_sizes": [2]}


def _history_counts(lines):
    """What the scalar hand histories show happened: B19 choices kept and taken, carried pots
    (B15), hands a seat sat out (B16) and sessions that ended early (B17)."""
    records = [json.loads(line) for line in lines]
    per_session = {}
    for r in records:
        per_session[r["episode"]] = r["hand_number"] + 1
    hands = records[0]["config"]["hands_per_session"]
    keeps = [r["keep"]["choice"] for r in records if r["keep"]]
    return {
        "kept": keeps.count("keep_old_hand"),
        "taken": keeps.count("take_new_hand"),
        "carried": sum(r["carried"] > 0 for r in records),
        "sat_out": sum(len(r["sitting_out"]) for r in records),
        "early_ends": sum(h < hands for h in per_session.values()),
    }


def _both_engines(specs, options, sessions, seed):
    """The scalar evaluation of ``sessions`` sessions and the batched one on its deals (with
    their hand-history lines), checked to give the same report."""
    assert supports_batched("brag", specs, options)  # what evaluate.py would play batched
    history = io.StringIO()
    hands = sessions * options["hands_per_session"]
    scalar = evaluate("brag", specs, hands, seed=seed, options=options, history=history)
    lines = history.getvalue().splitlines()
    parsed = [parse_spec(s, "brag") for s in specs]
    batched = _brag_tournament(
        parsed, sessions, seed, dict(options), make_engine=_session_deals_of(lines)
    )
    want, got = scalar.to_dict(), batched.to_dict()
    assert (want.pop("engine"), got.pop("engine")) == ("scalar", "batched")
    assert got == want
    return scalar, batched, lines


@pytest.mark.parametrize(
    "specs, options, sessions, exercised",
    [
        # B17/B19 with the default session options, heads-up: a blind seat left alone keeps
        # or takes (the keeper keeps, the baselines take)
        (
            [_KEEPER, _LOOSE],
            {"hands_per_session": 10},
            240,
            ("kept", "looked_hands", "sees"),
        ),
        # B15: a blind player left alone carries the pot; B19 choices; four seats
        (
            [_BLIND, _LOOSE, _KEEPER, "brag:caller"],
            {"hands_per_session": 5, "blind_alone": "carries"},
            240,
            ("carried", "carried_hands", "kept", "taken", "raises", "faced_raise"),
        ),
        # B15: a pot nobody paid a stake into carries (everyone folds to it), heads-up
        (
            ["brag:tight", _LOOSE],
            {"hands_per_session": 10, "unopened_pot": "carries", "allow_blind": False},
            240,
            ("carried", "carried_hands", "sees"),
        ),
        # B16/B17: short stacks: covers, seats sitting out, sessions ending early (two raise
        # sizes, the B18 cycle shuffle, a carry option), four seats, played in blocks
        (
            [_BLIND, _LOOSE, _TIPS, "brag:caller"],
            {
                **_SHORT,
                "starting_chips": 14,
                "hands_per_session": 10,
                "raise_sizes": [2, 4],
                "max_stake": 64,
                "shuffle": "after_prial_or_cycle",
                "unopened_pot": "carries",
                "chunk": 7,
            },
            240,
            ("covers", "cover_wins", "cover_decided_hands", "sat_out", "early_ends", "taken"),
        ),
        # B16 without covers (a short seat must fold: forced), no ante (min-stakes), B20/B21,
        # a shuffle every hand, three seats
        (
            [_KEEPER, _TIPS, _LOOSE],
            {
                **_SHORT,
                "starting_chips": 16,
                "hands_per_session": 6,
                "cover_pot": False,
                "ante_mode": "none",
                "lowball": True,
                "prial_bonus": 2,
                "shuffle": "every_hand",
            },
            240,
            ("forced_decisions", "sat_out", "early_ends", "kept"),
        ),
    ],
    ids=["2p_default", "4p_blind_carries", "2p_unopened_carries", "4p_covers_blocks", "3p_no_ante"],
)
@pytest.mark.slow  # the scalar half takes several seconds
def test_B15_B19_batched_session_tournament_equals_the_scalar_one_on_the_same_deals(
    monkeypatch, specs, options, sessions, exercised
):
    """Sessions (B17) on the scalar run's deals: every per-hand payoff sample and its session
    unit, every interval, per-seat payoff and behaviour statistic (B15 carried pots, B16
    covers and seats sitting out, B19 kept hands) is the scalar run's."""
    from brag_env.evaluation import batched as batched_module

    styles("brag")
    monkeypatch.setitem(_STYLES["brag"], "keeper", _Keeper)
    options = {"num_players": len(specs), **options}
    chunk = options.pop("chunk", None)
    if chunk:
        monkeypatch.setattr(batched_module, "_BRAG_CHUNK", chunk)
    scalar, batched, lines = _both_engines(specs, options, sessions, seed=3)
    got = batched.to_dict()
    assert [a.seat_estimates for a in batched.agents] == [a.seat_estimates for a in scalar.agents]
    assert got["episodes"] == sessions and got["samples_per_agent"] == len(lines)
    counts = [a["behaviour"]["counts"] for a in got["agents"]]
    happened = _history_counts(lines)
    for name in exercised:  # the case reaches what it is there for
        total = happened[name] if name in happened else sum(c[name] for c in counts)
        assert total > 0, name


def test_B17_batched_session_payoffs_are_per_hand_samples_with_the_session_as_unit():
    """Payoff samples: one per hand per agent; the interval's unit: the session."""
    result = evaluate(
        "brag",
        ["brag:tight", "random"],
        40,
        seed=2,
        options={"hands_per_session": 4},
        batched=True,
    )
    assert result.engine == "batched" and result.episodes == 10
    assert result.unit == "session" and result.groups == 10
    assert result.samples == result.agents[0].behaviour["hands"] == 40  # 200 chips: no one broke
    assert result.agents[0].payoff.n == 40


def test_supported_for_brag_sessions_at_2_to_8_seats_with_batch_agents():
    assert supports_batched("brag", ["brag:tight", "random"], {"num_players": 2})
    assert supports_batched("brag", ["brag:tips"] * 8, {"cover_pot": False})
    assert supports_batched("brag", ["brag:tight", "random"], {"hands_per_session": 3})
    assert not supports_batched("brag", ["brag:tight", "random"], {"cards_dealt": 4})
    assert not supports_batched("brag", ["brag:tight", "random"], {"num_players": 3})


def _cli(tmp_path, *args):
    """evaluate.py in this process; returns (stdout, the --json report)."""
    from brag_env.evaluation.cli import main

    out = tmp_path / "report.json"
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main([*args, "--json", str(out), "--force", "--no-progress"]) == 0
    return " ".join(buffer.getvalue().split()), json.loads(out.read_text())


@pytest.mark.parametrize(
    "extra, engine",
    [
        ([], "batched"),
        (["--no-batched"], "scalar"),
        (["--option", "hands_per_session=2"], "batched"),  # sessions too (B17)
        (["--option", "hands_per_session=2", "--no-batched"], "scalar"),
    ],
)
def test_evaluate_cli_runs_brag_batched_unless_told_or_unable(tmp_path, extra, engine):
    args = ["--game", "brag", "--agents", "brag:tight", "random", "random", "--hands", "12"]
    hands = 12  # whole designs of 3 seats: 12 one-hand sessions, or 6 of two hands (200 chips
    # each: nobody goes broke in two hands, so both run 12)
    text, report = _cli(tmp_path, *args, *extra)
    assert report["engine"] == engine
    assert f"{engine} engine" in text
    assert report["samples_per_agent"] == hands
    behaviour = report["agents"][0]["behaviour"]
    counts = behaviour["counts"]
    assert behaviour["hands"] == hands
    assert behaviour["look_rate"] == counts["looked_hands"] / hands > 0.5  # tight looks first
    assert len(behaviour["hands_by_decile"]["counts"]) == 10  # the table --plot draws


def test_an_agent_without_batch_support_falls_back_to_the_scalar_env(tmp_path, monkeypatch):
    class ScalarCaller(CallingStation):
        batched = False  # opts out of act_batch, as put:tips does

    styles("brag")
    monkeypatch.setitem(_STYLES["brag"], "scalar_caller", ScalarCaller)
    assert not supports_batched("brag", ["brag:tight", "brag:scalar_caller"], {})
    text, report = _cli(
        tmp_path, "--game", "brag", "--agents", "brag:tight", "brag:scalar_caller", "--hands", "4"
    )
    assert report["engine"] == "scalar" and "scalar engine" in text


@pytest.mark.slow  # about 3 s: the scalar half
def test_random_styles_agree_within_their_intervals():
    """Stochastic agents draw in another order on the batched engine (and its deals are its
    own): the estimates are another sample of the same quantities."""
    specs = ["brag:bluffer", "random", "brag:blind"]
    fast = evaluate("brag", specs, 600, seed=5, batched=True)
    slow = evaluate("brag", specs, 600, seed=5)
    assert (fast.engine, slow.engine, fast.samples) == ("batched", "scalar", slow.samples)
    for a, b in zip(fast.agents, slow.agents, strict=True):
        half = (a.payoff.high - a.payoff.low + b.payoff.high - b.payoff.low) / 2
        assert abs(a.payoff.mean - b.payoff.mean) < half
        rates = a.behaviour["look_rate"], b.behaviour["look_rate"]
        assert abs(rates[0] - rates[1]) < 0.1


@pytest.mark.parametrize("batched", [False, True])
def test_records_counted_in_chunks_give_the_same_report(monkeypatch, batched):
    """Long runs count their records every ``_PENDING`` rows (memory stays flat): the counts
    do not depend on when that happens."""
    from brag_env.evaluation import brag_stats

    specs, options = ["brag:bluffer", "random", "brag:blind"], {"starting_chips": 20}
    whole = evaluate("brag", specs, 24, seed=1, options=options, batched=batched).to_dict()
    monkeypatch.setattr(brag_stats, "_PENDING", 5)
    chunked = evaluate("brag", specs, 24, seed=1, options=options, batched=batched).to_dict()
    assert chunked == whole
    assert whole["agents"][0]["behaviour"]["counts"]["hands"] == 24


def test_B15_a_carried_pot_of_no_chips_has_no_winner_in_both_engines():
    """B8/B15: with the ante only after a prial, a blind player left alone may carry a pot of
    no chips; game.py's hand then has no winner and no carried chips, and the batched
    evaluator reads the same from the engine (it once counted the blind player as winning)."""
    specs = [_BLIND, _LOOSE, "brag:caller", _TIPS]
    options = {
        "num_players": 4,
        "hands_per_session": 6,
        "pot_limit": True,
        "raise_sizes": [2, 3],
        "max_stake": 48,
        "blind_may_see_open": False,
        "lowball": True,
        "prial_bonus": 1,
        "ante_mode": "after_prial",
        "starting_chips": 25,
        "shuffle": "every_hand",
        "blind_alone": "carries",
    }
    _, _, lines = _both_engines(specs, options, sessions=2, seed=4)
    records = [json.loads(line) for line in lines]
    assert any(r["winner"] == -1 and r["carried"] == 0 for r in records)  # the case is reached


def test_checking_the_batched_options_does_not_import_numba():
    """evaluate.py and train.py check the options before choosing the batched engine: a
    check that imported the kernels cost most of a second and, with no writable Numba cache,
    failed with a traceback (checked in a fresh interpreter)."""
    script = (
        "import sys\n"
        "from brag_env.evaluation.batched import _brag_options_supported\n"
        "from brag_env.training.config import config_from_dict\n"
        "assert _brag_options_supported({'num_players': 2})\n"
        "config_from_dict({'name': 'x', 'game': 'brag', 'vec_env': 'batched'})\n"
        "assert 'numba' not in sys.modules, sorted(m for m in sys.modules if 'batched' in m)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_kernels_that_cannot_load_are_a_one_line_note_and_the_scalar_env(monkeypatch, capsys):
    specs = ["brag:caller", "brag:caller"]
    with kernels_that_cannot_load(monkeypatch):
        assert not supports_batched("brag", specs, {})  # evaluate.py's automatic choice
        assert not supports_batched("brag", specs, {"hands_per_session": 2})
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("note: the batched Brag engine cannot load (")
    assert err[0].endswith(
        "NUMBA_CACHE_DIR to a writable directory (docs/performance.md); playing on the scalar env"
    )
