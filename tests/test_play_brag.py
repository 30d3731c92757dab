"""``python -m brag_env.play brag``: scripted sessions through injected stdin/stdout.

The opponents are calling stations (``brag:caller``): they look at once, never fold while they
can pay and see whenever a see is legal, so the human always gets a decision before a hand can
end (with 3+ players only folds end a hand, B15) and every session is short and deterministic.
"""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys

import numpy as np
import pytest

from brag_env import brag_v0
from brag_env.brag.game import BragGame
from brag_env.brag.replay import replay_session
from brag_env.brag.rules import BragConfig
from brag_env.cards import format_cards, parse_cards
from brag_env.play import main
from brag_env.ui.brag_view import action_options

CALLERS = ["--opponents", "brag:caller", "brag:caller"]


def play(argv: list[str], answers: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, stdin=io.StringIO(answers), stdout=out)
    return code, out.getvalue()


def read_history(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_session_reasks_wrong_input_and_keeps_running_totals(tmp_path):
    """B17: three hands with stacks carried over; bad answers are asked again, never fatal."""
    history = tmp_path / "session.jsonl"
    answers = "abc\n0\n9\n\n" + "1\n" * 60  # then fold (choice 1) every time
    code, out = play(
        ["brag", *CALLERS, "--seed", "5", "--hands", "3", "--history", str(history)], answers
    )
    assert code == 0
    for bad in ("'abc'", "'0'", "'9'", "An empty line"):
        assert f"{bad} is not one of the choices" in out
    for k in (1, 2, 3):
        assert f"Hand {k} of 3" in out
    records = read_history(history)
    assert [r["hand_number"] for r in records] == [0, 1, 2]
    # Folding blind at the first decision costs only the ante (B8, B10).
    assert [r["deltas"][0] for r in records] == [-1, -1, -1]
    assert "Chips after hand 1 of 3" in out and "Chips after hand 2 of 3" in out
    assert "Final chips after 3 hand(s)" in out
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
    code, out = play(
        ["brag", *CALLERS, "--seed", "11", "--hands", "4", "--history", str(history)],
        "1\n" * 60,
    )
    assert code == 0
    assert out.count("Your cards: ▮ ▮ ▮  blind: not looked at yet") == 4
    for record in read_history(history):
        mine = parse_cards(record["cards"][0])
        for order in (mine, sorted(mine)):  # folded blind: never looked (B10)
            assert format_cards(order) not in out
        see = record["see"]
        if see is None:
            for seat in (1, 2):  # won by folds: nothing is shown (B15)
                assert format_cards(parse_cards(record["cards"][seat])) not in out
            continue
        for seat, cards in see["hands"].items():  # B14: both hands are shown
            assert f"seat {seat} shows {format_cards(parse_cards(cards))}" in out


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
    cards = format_cards(sorted(parse_cards(record["cards"][0])))  # the observation's order
    assert f"Your cards: {cards}" in out
    assert "You: look at the cards" in out
    assert "You: stay (paid 2)" in out  # open, at the opening stake (B11)
    assert "stay: pay 2" in out  # the open menu after looking


def test_keeping_a_blind_hand_is_offered(tmp_path):
    """B19: after winning blind by folds the human chooses, unseen, between the two hands."""
    history = str(tmp_path / "h.jsonl")
    # "2" is "stay blind" while betting and "take the new hand" at a B19 choice.
    code, out = play(
        ["brag", "--opponents", "brag:tight", "--seed", "3", "--hands", "4", "--history", history],
        "2\n" * 60,
    )
    assert code == 0
    assert "You win the pot of 2: everyone else folded, no cards are shown (B15)." in out
    assert "You may keep that unseen hand for the next deal (B19)." in out
    assert "  1) keep your old blind hand (unseen)\n  2) take the newly dealt hand (unseen)" in out
    assert "You: take the new hand (B19)" in out
    records = read_history(tmp_path / "h.jsonl")
    keeps = [r["keep"] for r in records if r["keep"]]
    assert keeps and all(k["seat"] == 0 and k["choice"] == "take_new_hand" for k in keeps)
    for record in records:  # never looked: the human's cards never appear
        mine = parse_cards(record["cards"][0])
        assert format_cards(mine) not in out and format_cards(sorted(mine)) not in out


def test_quit_leaves_cleanly(tmp_path):
    history = tmp_path / "h.jsonl"
    code, out = play(["brag", *CALLERS, "--seed", "1", "--history", str(history)], "q\n")
    assert code == 0
    assert "You left the table" in out
    assert "Your result: +0 chips." in out
    assert history.read_text() == ""


def test_seat_option_puts_the_human_elsewhere():
    code, out = play(["brag", *CALLERS, "--seed", "4", "--hands", "1", "--seat", "2"], "1\n" * 9)
    assert code == 0
    assert "seat 0: brag:caller · seat 1: brag:caller · You: seat 2" in out


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

    return brag_v0.decode_observation(BragObserver(config).fill(game, seat), config)
