"""``python -m brag_env.replay`` on valid JSON that is not a valid hand history: every entry of
real Brag and Put histories replaced by a value of the wrong kind, nested entries broken, an
unknown game. Each gives a one-line error naming the file and line (or replays, when the value
happens to be harmless), never a traceback."""

from __future__ import annotations

import io
import json

import pytest

from brag_env import brag_v0, put_v0
from brag_env.replay import main as replay_main
from tests.random_histories import random_histories, replaced

BAD_VALUES = (None, "x", -1, 99, [], {}, [None], 1.5, True)
PREFIX = "python -m brag_env.replay: error: "


@pytest.fixture(scope="module")
def samples() -> dict[str, dict]:
    """A Brag hand with a see, one with a B19 choice, a Put hand with a Put, a P8 hand."""
    brag = random_histories(brag_v0.raw_env(num_players=3, hands_per_session=30), 1, "brag")
    put2 = random_histories(put_v0.raw_env(num_players=2), 1, "put")
    put4 = random_histories(put_v0.raw_env(num_players=4), 2, "put")
    return {
        "brag_see": next(h for h in brag if h["see"] is not None),
        "brag_keep": next(h for h in brag if h["keep"] is not None),
        "put_put": next(h for h in put2 if h["put"] is not None),
        "put_4": put4[0],
    }


def run(tmp_path, record: object) -> tuple[int, str]:
    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps(record) + "\n")
    err = io.StringIO()
    import contextlib

    with contextlib.redirect_stderr(err):
        code = replay_main([str(path), "--no-pause"], stdin=io.StringIO(""), stdout=io.StringIO())
    return code, err.getvalue()


def assert_clean(code: int, err: str, tmp_path) -> None:
    assert code in (0, 2)
    if code == 2:
        assert err.startswith(f"{PREFIX}{tmp_path / 'h.jsonl'} line 1"), err
        assert err.count("\n") == 1 and "Traceback" not in err
    else:
        assert err == ""


@pytest.mark.parametrize(
    "sample",
    [
        "brag_see",
        pytest.param("brag_keep", marks=pytest.mark.slow),
        "put_put",
        pytest.param("put_4", marks=pytest.mark.slow),
    ],
)
def test_every_entry_of_the_wrong_kind(samples, sample, tmp_path):
    record = samples[sample]
    assert run(tmp_path, record)[0] == 0  # the sample itself replays
    refused = 0
    for key in record:
        for bad in BAD_VALUES:
            code, err = run(tmp_path, record | {key: bad})
            assert_clean(code, err, tmp_path)
            refused += code == 2
    assert refused > len(record) * 4  # most wrong values are refused


@pytest.mark.parametrize(
    ("sample", "path", "value", "message"),
    [
        ("brag_see", ("actions", 0), None, "malformed hand history (action 0 must be a JSON"),
        ("brag_see", ("actions", 0, "seat"), "x", "the seat of action 0 must be a seat number"),
        ("brag_see", ("actions", 0, "action"), None, "the name of action 0 must be text"),
        ("brag_see", ("actions", 0, "cost"), "1", "the cost of action 0 must be a whole number"),
        ("brag_see", ("see", "hands"), {}, "the hand of seat"),
        ("brag_see", ("see", "categories"), {}, "see differs when played again"),
        ("brag_see", ("cards", 0), 5, "the cards of seat 0 must be text or null"),
        ("brag_keep", ("keep", "old_hand"), None, "the old hand of keep must be text"),
        ("brag_keep", ("keep", "choice"), "keep_it", "keep differs when played again"),
        ("put_put", ("actions", 0, "action"), "play_1", "unknown Put action 'play_1'"),
        ("put_put", ("deal", 0), "As", "the cards of seat 0 in deal must be a list"),
        ("put_put", ("deck", 0), 7, "every card of deck must be text"),
        ("put_put", ("put", "answers"), [], "put differs when played again"),
        ("put_4", ("scores_before",), [0, 0, 0, 0], "scores_before must be a list of 2"),
    ],
)
def test_broken_nested_entries(samples, sample, path, value, message, tmp_path):
    code, err = run(tmp_path, replaced(samples[sample], path, value))
    assert code == 2
    assert_clean(code, err, tmp_path)
    assert message in err


@pytest.mark.parametrize("game", ["chess", "", None, 3, ["put"]])
def test_unknown_game_is_refused(samples, game, tmp_path):
    code, err = run(tmp_path, samples["put_put"] | {"game": game})
    assert code == 2
    assert f"line 1: unknown game {game!r} (this viewer reads brag, put and brag7 hands)" in err
