"""``python -m brag_env.replay`` on Brag hand histories from evaluate and from play."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from brag_env import brag_v0
from brag_env.brag.hands import hand_category
from brag_env.brag.rules import BragConfig
from brag_env.cards import format_cards, parse_cards
from brag_env.evaluation import evaluate
from brag_env.play import main as play_main
from brag_env.replay import load_histories
from brag_env.replay import main as replay_main
from brag_env.ui.brag_replay import brag_steps, config_for, shown_before
from brag_env.ui.brag_view import CATEGORY_TEXT
from brag_env.ui.terminal import hand_text

AGENTS = ["brag:tight", "brag:blind", "random", "random"]


@pytest.fixture(scope="module")
def eval_file(tmp_path_factory):
    """Four sessions of 2 hands from evaluate."""
    path = tmp_path_factory.mktemp("replay") / "eval.jsonl"
    with path.open("w") as history:
        evaluate("brag", AGENTS, 4, seed=1, options={"hands_per_session": 2}, history=history)
    return path


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def replay(argv: list[str], stdin: io.StringIO | None = None, tty: bool = False) -> tuple[int, str]:
    out = Terminal() if tty else io.StringIO()
    code = replay_main(argv, stdin=stdin or io.StringIO(""), stdout=out)
    return code, out.getvalue()


@pytest.mark.slow
def test_prints_every_step_when_stdin_is_not_a_terminal(eval_file):
    records = [json.loads(line) for line in eval_file.read_text().splitlines()]
    code, out = replay([str(eval_file)])
    assert code == 0
    steps = sum(len(r["actions"]) for r in records)
    assert out.count("to act ─") == steps
    assert out.count("Dealt hands (hidden at the table):") == len(records)
    for k in range(len(records)):
        assert f"hand {k + 1} of {len(records)} in the file" in out


def test_steps_hold_exactly_what_the_player_knew(eval_file):
    """B10/B18: own cards only once looked; stake, pot and shown cards as at the table."""
    records = load_histories(eval_file)
    looks_seen = blind_steps = shown_steps = 0
    for i, record in enumerate(records):
        session = [r for r in records[: i + 1] if r["episode"] == record["episode"]]
        config = config_for(record, {}, 2)
        assert config.hands_per_session == 2
        shown = shown_before(session)
        steps = brag_steps(record, config, shown)
        assert [s.action for s in steps] == [a["action"] for a in record["actions"]]
        looked_at = {x["seat"]: x["action_index"] for x in record["looked"]}
        stake, pot = config.min_stake, sum(record["antes"])
        for step in steps:
            view = step.view
            assert step.seat == record["actions"][step.index]["seat"]
            assert step.action in step.legal
            assert (view["stake"], view["pot"]) == (stake, pot)
            stake, pot = step.stake, step.pot
            assert view["shown_cards"] == format_cards(sorted(shown))
            shown_steps += bool(shown)
            if step.seat in looked_at and looked_at[step.seat] < step.index:
                dealt = parse_cards(record["cards"][step.seat])
                keep = record["keep"]
                if keep and keep["seat"] == step.seat and keep["choice"] == "keep_old_hand":
                    dealt = parse_cards(keep["old_hand"])
                assert view["own_cards"] == format_cards(sorted(dealt))
                looks_seen += 1
            else:
                assert view["own_cards"] is None
                blind_steps += 1
    assert looks_seen and blind_steps and shown_steps
    assert any(r["keep"] for r in records)  # B19 choices were replayed too


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_b19_choice_in_the_hidden_hands(tmp_path):
    """B19: the keeper's line shows the hand it played (and its category) and where the other
    one went, in words."""
    env = brag_v0.raw_env(num_players=3, hands_per_session=30)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for name in env.agent_iter():
        if env.terminations[name] or env.truncations[name]:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(name)["action_mask"]))))
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(h) + "\n" for h in env.hand_histories()))
    records = load_histories(path)
    kept = [r for r in records if r["keep"]]
    assert {r["keep"]["choice"] for r in kept} == {"keep_old_hand", "take_new_hand"}
    for record in kept:
        index = records.index(record) + 1
        code, out = replay([str(path), "--hand", str(index)])
        assert code == 0
        keep = record["keep"]
        old, new = parse_cards(keep["old_hand"]), parse_cards(keep["new_hand"])
        played, other = (old, new) if keep["choice"] == "keep_old_hand" else (new, old)
        line = next(
            x
            for x in out.split("Dealt hands (hidden at the table):")[1].splitlines()
            if x.startswith(f"  seat {keep['seat']}: ")
        )
        assert line.startswith(
            f"  seat {keep['seat']}: {hand_text(played)}  {CATEGORY_TEXT[hand_category(played)]} · "
        )
        how = "kept the last hand's cards" if played is old else "took the new hand"
        assert line.endswith(f"{how}, {hand_text(other)} went under the deck")
        assert "_hand" not in line


def test_hand_option_shows_one_hand(eval_file):
    total = len(eval_file.read_text().splitlines())
    code, out = replay([str(eval_file), "--hand", "3"])
    assert code == 0
    assert f"hand 3 of {total} in the file" in out
    assert out.count("Dealt hands (hidden at the table):") == 1


def test_interactive_steps_and_quit(eval_file):
    """At a terminal: Enter = next step, n = next hand, q = quit."""
    code, out = replay([str(eval_file)], Terminal("\nn\n\nq\n"), tty=True)
    assert code == 0
    assert out.count("to act ─") == 4  # steps 1-2 of hand 1, then (n) steps 1-2 of hand 2
    assert "(rest of the hand skipped)" in out
    # n skips the steps, not the end of the hand: its result and hidden hands still come.
    skipped = out.split("(rest of the hand skipped)")[1].split("Brag hand 2")[0]
    assert "─ Result ─" in skipped and "Dealt hands (hidden at the table):" in skipped
    assert "Replay stopped." in out
    for argv, tty in (["--no-pause"], True), ([], False):  # the flag, or output to a file
        code, out = replay([str(eval_file), "--hand", "2", *argv], Terminal(""), tty)
        assert "Replay stopped." not in out and "Enter: next step" not in out
        assert out.count("Dealt hands") == 1


def test_replays_a_play_session_with_its_rules(tmp_path):
    """play --history records the rules (here non-default), so replay needs no --option."""
    history = tmp_path / "play.jsonl"
    play_main(
        [
            "brag",
            "--opponents",
            "brag:caller",
            "brag:caller",
            "--seed",
            "6",
            "--hands",
            "2",
            "--option",
            "min_stake=4",
            "--option",
            "ante=2",
            "--history",
            str(history),
        ],
        stdin=io.StringIO("look\n" + "1\n" * 30),
        stdout=io.StringIO(),
    )
    records = [json.loads(line) for line in history.read_text().splitlines()]
    assert BragConfig.from_dict(records[0]["config"]).min_stake == 4
    code, out = replay([str(history)])
    assert code == 0
    assert "seat 0: human · seat 1: brag:caller · seat 2: brag:caller" in out
    assert "Stake 4 (open players pay 4, blind players 2)" in out


def _without_rules(source, target):
    """A copy of a history file with no recorded rules (as hand-made or older files are)."""
    lines = [json.loads(line) for line in source.read_text().splitlines()]
    target.write_text("".join(json.dumps(r | {"config": None}) + "\n" for r in lines))
    return target


@pytest.mark.slow
def test_files_without_rules(eval_file, tmp_path, capsys):
    """Without recorded rules: hands_per_session comes from the file (the B19 keep offer needs
    it), other rules from --option; a mismatch is a one-line error."""
    code, out = replay([str(_without_rules(eval_file, tmp_path / "bare.jsonl"))])
    assert code == 0 and "went under the deck" in out
    path = tmp_path / "stake4.jsonl"
    with path.open("w") as history:
        evaluate("brag", AGENTS, 4, seed=2, options={"min_stake": 4}, history=history)
    code, out = replay([str(path)])  # evaluate records the rules
    assert code == 0 and "Stake 4" in out
    bare = _without_rules(path, tmp_path / "stake4_bare.jsonl")
    code, _ = replay([str(bare)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "differs" in err and "--option" in err
    code, out = replay([str(bare), "--option", "min_stake=4"])
    assert code == 0 and "Stake 4" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        ("", "holds no hand histories"),
        ('{"hand_number": 0}\nnot json\n', "line 1 is not a complete brag"),
        ("[1, 2]\n", "line 1 is not a hand history (not a JSON object)"),
        ('{"a": 1}\n', "line 1 is not a Brag or Put hand history"),
        ("{oops\n", "line 1 is not JSON"),
    ],
)
def test_bad_files_give_one_line_errors(tmp_path, capsys, content, message):
    path = tmp_path / "bad.jsonl"
    if content is not None:
        path.write_text(content.replace('{"hand_number": 0}', '{"game": "brag", "hand_number": 0}'))
    code, _ = replay([str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_tampered_history_and_bad_hand_number(eval_file, tmp_path, capsys):
    lines = eval_file.read_text().splitlines()
    record = json.loads(lines[0])
    paying = next(a for a in record["actions"] if a["cost"] > 0)
    paying["cost"] += 1
    path = tmp_path / "tampered.jsonl"
    path.write_text(json.dumps(record) + "\n")
    assert replay([str(path)])[0] == 2
    assert "line 1: hand 0: cost after action" in capsys.readouterr().err
    assert replay([str(eval_file), "--hand", str(len(lines) + 1)])[0] == 2
    assert f"--hand must be 1..{len(lines)}" in capsys.readouterr().err


def test_the_hand_before_is_checked_and_its_absence_noted(eval_file, tmp_path, capsys):
    """The previous hand feeds the views of the next (B17), so a bad one is reported at its own
    line; a hand whose predecessor is not in the file says its views lack it."""
    first, second = (json.loads(line) for line in eval_file.read_text().splitlines()[:2])
    assert (first["episode"], second["hand_number"]) == (second["episode"], 1)
    paying = next(a for a in first["actions"] if a["cost"] > 0)
    paying["cost"] += 1
    path = tmp_path / "two.jsonl"
    path.write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    assert replay([str(path), "--hand", "2"])[0] == 2
    err = capsys.readouterr().err
    assert f"{path} line 1: hand 0: cost after action" in err and err.count("\n") == 1
    path.write_text(json.dumps(second) + "\n")
    code, out = replay([str(path)])
    assert code == 0
    assert "(the hand before this one is not in the file: what it showed the table is left" in out
