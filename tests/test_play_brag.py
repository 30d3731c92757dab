"""``python -m brag_env.play brag``: scripted sessions through injected stdin/stdout.

The opponents are calling stations (``brag:caller``): they look at once, never fold while they
can pay and see whenever a see is legal, so the human always gets a decision before a hand can
end (with 3+ players only folds end a hand, B15) and every session is short and deterministic.
"""

from __future__ import annotations

import copy
import io
import itertools
import subprocess
import sys

import numpy as np
import pytest

from brag_env import brag_v0
from brag_env.brag.game import BragGame
from brag_env.brag.replay import replay_session
from brag_env.brag.rules import BragConfig
from brag_env.cards import format_cards, parse_cards
from brag_env.ui.brag_view import action_options
from brag_env.ui.terminal import hand_text
from tests.play_cli import play, read_history

CALLERS = ["--opponents", "brag:caller", "brag:caller"]


def assert_hidden(cards: str, out: str) -> None:
    """No order of these three cards is on screen (in any order, B10/B15)."""
    for order in itertools.permutations(parse_cards(cards)):
        assert format_cards(list(order)) not in out, cards


def test_session_reasks_wrong_input_and_keeps_running_totals(tmp_path):
    """B17: three hands with stacks carried over; bad answers are asked again, never fatal."""
    history = tmp_path / "session.jsonl"
    # Not numbers: a superscript two, a full-width one (int() would read them).
    answers = "abc\n0\n9\n\n²\n１\n" + "1\n" * 60  # then fold (choice 1) every time
    code, out = play(
        ["brag", *CALLERS, "--seed", "5", "--hands", "3", "--history", str(history)], answers
    )
    assert code == 0
    for bad in ("'abc'", "'0'", "'9'", "An empty line", "'²'", "'１'"):
        assert f"{bad} is not one of the choices" in out
    for k in (1, 2, 3):
        assert f"Hand {k} of 3" in out
    records = read_history(history)
    assert [r["hand_number"] for r in records] == [0, 1, 2]
    # Folding blind at the first decision costs only the ante (B8, B10).
    assert [r["deltas"][0] for r in records] == [-1, -1, -1]
    assert "Chips after hand 1 of 3" in out and "Chips after hand 2 of 3" in out
    assert "Final chips after 3 hands" in out
    assert "Your result: -3 chips." in out
    final = records[-1]["chips_after"]
    top = max(final)
    assert f"with {top}." in out
    # The saved session is the engine's own record: it replays exactly (B17 links included).
    assert all(r["seat_agents"] == ["human", "brag:caller", "brag:caller"] for r in records)
    config = BragConfig.from_dict(records[0]["config"])
    replay_session(records, config)


def test_human_sees_only_what_the_seat_knows(tmp_path):
    """B10/B14/B15: a blind human's cards never appear; hands shown at sees are revealed."""
    history = tmp_path / "h.jsonl"
    # A random player folds to a caller in some hands and sees it in others.
    code, out = play(
        [
            "brag",
            "--opponents",
            "random",
            "brag:caller",
            "--seed",
            "0",
            "--hands",
            "4",
            "--history",
            str(history),
        ],
        "1\n" * 60,
    )
    assert code == 0
    assert out.count("Your cards: ▮ ▮ ▮  blind: not looked at yet") == 4
    records = read_history(history)
    for record in records:
        assert_hidden(record["cards"][0], out)  # folded blind: never looked (B10)
        see = record["see"]
        if see is None:
            for seat in (1, 2):  # won by folds: nothing is shown (B15)
                assert_hidden(record["cards"][seat], out)
        else:
            for seat, cards in see["hands"].items():  # B14: both hands are shown
                assert f"seat {seat} shows {hand_text(cards)}" in out
    # This seed has hands of both kinds, so both checks above ran.
    assert [r["see"] is None for r in records] == [True, True, False, True]


def test_look_then_stay_by_action_names(tmp_path):
    """B10/B11: after LOOK the human sees its cards and stays open for S."""
    history = tmp_path / "h.jsonl"
    code, out = play(
        ["brag", *CALLERS, "--seed", "2", "--hands", "1", "--history", str(history)],
        "look\nstay\n" + "1\n" * 20,
    )
    assert code == 0
    record = read_history(history)[0]
    mine = [a["action"] for a in record["actions"] if a["seat"] == 0]
    assert mine[:2] == ["look", "stay"]
    cards = hand_text(record["cards"][0])  # every screen's order: highest rank first
    assert f"Your cards: {cards}" in out
    assert "You: look at the cards" in out
    assert "You: stay (paid 2)" in out  # open, at the opening stake (B11)
    assert "stay: pay 2" in out  # the open menu after looking


def test_keeping_a_blind_hand_is_offered(tmp_path):
    """B19: after winning blind by folds the human chooses, unseen, between the two hands."""
    history = str(tmp_path / "h.jsonl")
    # "2" is "stay blind" while betting and "take the new hand" at a B19 choice.
    code, out = play(
        ["brag", "--opponents", "random", "--seed", "1", "--hands", "4", "--history", history],
        "2\n" * 60,
    )
    assert code == 0
    assert "You win the pot of 2: everyone else folded, no cards are shown." in out
    assert (
        "You choose at the next deal between these unseen cards and a fresh hand, as the pot "
        "was won without looking." in out
    )
    assert (
        "  1) keep your old blind hand (unseen)  [keep old hand]\n"
        "  2) take the newly dealt hand (unseen)  [take new hand]" in out
    )
    assert "You: take the new hand" in out
    records = read_history(tmp_path / "h.jsonl")
    keeps = [r["keep"] for r in records if r["keep"]]
    assert keeps and all(k["seat"] == 0 and k["choice"] == "take_new_hand" for k in keeps)
    for record in records:  # never looked: the human's cards appear only when shown (B14)
        if record["see"] is None:
            assert_hidden(record["cards"][0], out)
        else:
            assert f"You show {hand_text(record['cards'][0])}" in out
        if record["keep"]:  # a hand won by folds, never shown (B15)
            assert_hidden(record["keep"]["old_hand"], out)
    assert {r["see"] is None for r in records} == {True, False}


def test_quit_leaves_cleanly(tmp_path):
    history = tmp_path / "h.jsonl"
    code, out = play(["brag", *CALLERS, "--seed", "1", "--history", str(history)], "q\n")
    assert code == 0
    assert "You left the table" in out
    assert "Your result: +0 chips." in out
    assert not history.exists()  # no finished hand, no file (a 0-byte one would block a rerun)


def test_seat_option_puts_the_human_elsewhere():
    code, out = play(["brag", *CALLERS, "--seed", "4", "--hands", "1", "--seat", "2"], "1\n" * 9)
    assert code == 0
    assert "seat 0: brag:caller · seat 1: brag:caller · You: seat 2" in out


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_end_of_input_is_a_clean_exit():
    """Run as a module: EOF on stdin ends the session with a message and exit code 0."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "brag_env.play",
            "brag",
            "--opponents",
            "brag:caller",
            "--seed",
            "1",
            "--hands",
            "2",
        ],
        input="nonsense\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "'nonsense' is not one of the choices" in result.stdout
    assert "End of input: you left the table" in result.stdout
    assert result.stderr == ""


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["brag", "--opponents", "brag:nosuch"], "unknown brag style 'nosuch'"),
        (["brag", "--opponents", "put:caller"], "is a put agent"),
        (["brag", "--opponents", "random", "--seat", "5"], "--seat must be a seat number 0..1"),
        (["brag", "--option", "ante=-1"], "ante must be >= 0"),
        (["brag", "--option", "colour=red"], "unknown Brag option(s): colour"),
        (["brag", "--option", "num_players=3"], "--option num_players=3 but the table has 4"),
        (["brag", "--hands", "0"], "hands_per_session must be >= 1"),
        (["brag", "--option", "nonsense"], "bad --option 'nonsense'"),
        (["brag", "--option", "wild_cards=jokers"], "wild_cards must be one of none, braggers"),
    ],
)
def test_bad_command_lines_give_one_line_errors(argv, message, capsys):
    code, _ = play(argv, "")
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_menu_costs_match_the_engine():
    """B11/B13/B14: every menu entry's price is what the engine charges for that action."""
    config = BragConfig(num_players=3, raise_sizes=(2, 3), max_stake=64, hands_per_session=40)
    game = BragGame(config)
    game.new_session(np.random.default_rng(3))
    rng = np.random.default_rng(4)
    names = config.action_names
    checked = 0
    kinds = set()
    while not game.session_over and checked < 150:
        seat = game.current_player
        env_view = _view_of(game, seat, config)
        legal = [names[a] for a in game.legal_actions()]
        for name, text in action_options(env_view, legal):
            if ": pay " not in text:
                continue
            trial = copy.deepcopy(game)
            if trial.apply(names.index(name)) is None:
                paid = trial.betting[-1][2]
            else:  # a see ends the hand: read the cost from its history
                paid = trial.history()[-1]["actions"][-1]["cost"]
            assert text.split(": pay ")[1].split(",")[0] == str(paid), (name, text)
            kinds.add((name, env_view["seats"][0]["status"]))
            checked += 1
        game.apply(int(rng.choice(game.legal_actions())))
    assert checked >= 150
    for status in ("blind", "open"):
        for name in ("stay", "raise_2x", "raise_3x", "see"):
            assert (name, status) in kinds


def _view_of(game: BragGame, seat: int, config: BragConfig) -> dict:
    from brag_env.brag.observation import BragObserver

    return brag_v0.decode_observation(BragObserver(config).set_from(game, seat), config)


def test_an_error_during_the_game_is_not_turned_into_a_usage_error(monkeypatch):
    """Only a bad setup exits with status 2; a ValueError in play is a bug and must surface."""
    from brag_env.ui.brag_play import BragSession

    def broken(self, obs):
        raise ValueError("a bug in the table")

    monkeypatch.setattr(BragSession, "_ask_human", broken)
    with pytest.raises(ValueError, match="a bug in the table"):
        play(["brag", *CALLERS, "--seed", "1", "--hands", "1"], "1\n")


def test_history_file_is_only_written_for_a_valid_table(tmp_path, capsys):
    """A bad option or an existing file leaves the file as it was; --force overwrites it."""
    history = tmp_path / "precious.jsonl"
    history.write_text("keep me\n")
    base = ["brag", *CALLERS, "--seed", "1", "--hands", "1", "--history", str(history)]
    code, _ = play([*base, "--option", "ante=-1"], "")
    assert code == 2 and "ante must be >= 0" in capsys.readouterr().err
    code, out = play(base, "1\n" * 10)
    err = capsys.readouterr().err
    assert code == 2 and out == ""
    assert f"--history {history} already exists" in err and "--force" in err
    assert history.read_text() == "keep me\n"
    code, _ = play([*base, "--force"], "1\n" * 10)
    assert code == 0
    assert [r["hand_number"] for r in read_history(history)] == [0]


def test_unwritable_history_is_a_plain_one_line_error(tmp_path, capsys):
    code, _ = play(["brag", "--history", str(tmp_path / "no" / "dir.jsonl")], "")
    err = capsys.readouterr().err
    assert code == 2 and "cannot write --history" in err and "No such file or directory" in err
    assert "Errno" not in err and err.count("\n") == 1


def short_stacks(opponents: int, chips: int) -> list[str]:
    """The argv of 12 hands against random opponents, everyone starting with ``chips`` and no
    cover (B16): a session where seats run out of chips."""
    table = ["brag", "--opponents", *["random"] * opponents, "--seed", "3", "--hands", "12"]
    return [*table, "--option", f"starting_chips={chips}", "--option", "cover_pot=false"]


def test_forced_fold_and_sitting_out_are_explained():
    """B16: with no chips to stay the only move is explained; out of chips, the human sits out
    and the table closes for them without calling the session over."""
    code, out = play(short_stacks(3, chips=3), "1\n" * 60)
    assert code == 0
    assert "You hold 0 chips and staying blind costs 1: folding is your only move." in out
    assert "Your choice [1 or Enter, q quits]" in out
    assert "You have no chips left: you sit out the rest of the session." in out
    assert "You sit out: you leave the table, the others play on" in out
    assert "Session over" not in out and "Most chips:" not in out
    assert "Chips when you left after 3 hands" in out


def test_sessions_say_why_they_ended(tmp_path):
    """B17: a session cut short names who can still pay; a full one says all hands were played."""
    code, out = play(short_stacks(2, chips=6), "2\n" * 100)
    assert code == 0
    assert "Session over after 2 of 12 hands: only You can still pay the ante" in out
    code, out = play(["brag", *CALLERS, "--seed", "5", "--hands", "2"], "1\n" * 20)
    assert code == 0 and "Session over: all 2 hands played" in out


def test_B16_a_cover_is_explained_when_offered():
    """With too few chips to stay, the screen says what covering the pot means; the end of the
    hand shows the compared hands and who took which pot."""
    code, out = play(
        ["brag", *CALLERS, "--seed", "3", "--hands", "6", "--option", "starting_chips=3"],
        "stay\n" * 80,
    )
    assert code == 0
    assert "so you may COVER THE POT:" in out
    assert "cover the pot: put in your last 0 chips and stop betting" in out
    assert "seat 1: cover the pot (paid 0)" in out
    assert "The pot of 8 covered by seat 1 goes to seat 2." in out


def test_answers_by_name_and_ambiguous_ones():
    """The menu shows names that are not in the text; an answer fitting two choices is re-asked
    naming them; menu words and names with a space are accepted."""
    code, out = play(
        [
            "brag",
            *CALLERS,
            "--seed",
            "2",
            "--hands",
            "1",
            "--option",
            "raise_sizes=[2, 3]",
        ],
        "raise\nstay blind\nraise 3x\n" + "1\n" * 10,
    )
    assert code == 0
    assert "  4) raise the stake to 4: pay 2  [raise x2]" in out
    assert "'raise' fits several choices (4) raise x2, 5) raise x3)" in out
    assert "You: stay (paid 1)" in out  # "stay blind", the menu's words
    assert "You: raise x3 (paid" in out


@pytest.mark.parametrize(
    ("option", "present", "absent"),
    [
        ("allow_blind=false", "Stake 2 (staying costs 2)", "blind players"),
        ("ante_mode=none", "No ante is due this hand: the pot starts empty.", "Antes are in"),
    ],
)
def test_variant_screens(option, present, absent):
    """B10 without blind play, B8 without antes: the screen does not mention what is absent."""
    code, out = play(
        ["brag", *CALLERS, "--seed", "3", "--hands", "1", "--option", option], "1\n" * 10
    )
    assert code == 0
    assert present in out and absent not in out


@pytest.mark.slow  # about 4 s: a session played, then every step of its replay drawn
def test_b25_wild_cards_through_play_and_replay(tmp_path):
    """B25: --option wild_cards reaches the table, its history and the replay screens, which
    name what a shown wild card stood for (this seed shows 9♦ standing for A♥)."""
    from brag_env.replay import main as replay_main

    history = tmp_path / "h.jsonl"
    opponents = ["--opponents", "brag:caller", "brag:caller", "brag:caller"]
    argv = ["brag", *opponents, "--seed", "0", "--hands", "2", "--history", str(history)]
    code, out = play([*argv, "--option", "wild_cards=nines"], "1\n" * 80)
    assert code == 0 and "flush (9♦ as A♥)" in out
    records = read_history(history)
    assert {r["config"]["wild_cards"] for r in records} == {"nines"}
    assert any(r.get("stood_for") for r in records)
    shown = io.StringIO()
    assert replay_main([str(history)], stdin=io.StringIO(""), stdout=shown) == 0
    assert "(9♦ as A♥)" in shown.getvalue()
