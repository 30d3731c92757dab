"""Fuzz tests (hypothesis, issue 18): whatever a user or a file feeds them, reset options, card
strings, agent specs, YAML configs and history lines end in a result or in the documented
``ValueError`` (a one-line message), never in another exception. A few seconds each; the
``slow`` ones try many more inputs (``pytest -m slow tests/test_fuzz.py``)."""

from __future__ import annotations

import json
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.registry import parse_spec
from brag_env import brag_v0, put_v0
from brag_env.cards import format_card, parse_card, parse_cards
from brag_env.replay import group_sessions, load_histories, prepare
from brag_env.training.config import load_config
from tests.random_histories import random_histories, replaced

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
CARD_TEXT = st.text(alphabet="23456789TJQKA10shdcSHDC♠♥♦♣♤♡♢♧\ufe0f ,xX-", max_size=30)


def _one_line(error: BaseException) -> None:
    text = str(error)
    assert text and "\n" not in text.strip(), text


# ------------------------------------------------------------------ reset options
SEEDS = st.none() | st.integers(-5, 2**64) | st.floats() | st.booleans() | st.text(max_size=3)
DECKS = (
    st.none()
    | CARD_TEXT
    | st.lists(st.integers(-3, 60) | CARD_TEXT, max_size=60)
    | JSON
    | st.integers()
)
OPTIONS = st.none() | JSON | st.fixed_dictionaries({}, optional={"deck": DECKS, "dealer": JSON})


def _reset(module, seed, options) -> None:
    env = module.env(num_players=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unknown option keys warn
        try:
            env.reset(seed=seed, options=options)
        except ValueError as error:
            _one_line(error)
            return
    mask = env.observe(env.agent_selection)["action_mask"]
    assert mask.any()  # a valid reset leaves someone a legal action


@pytest.mark.parametrize("module", [brag_v0, put_v0])
@FAST
@given(seed=SEEDS, options=OPTIONS)
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_reset_options_fuzz(module, seed, options):
    _reset(module, seed, options)


@pytest.mark.slow
@pytest.mark.parametrize("module", [brag_v0, put_v0])
@SLOW
@given(seed=SEEDS, options=OPTIONS)
def test_reset_options_fuzz_long(module, seed, options):
    _reset(module, seed, options)


# ------------------------------------------------------------------ cards
@FAST
@given(text=st.text(max_size=12) | CARD_TEXT)
def test_card_text_fuzz(text):
    try:
        card = parse_card(text)
    except ValueError as error:
        _one_line(error)
    else:
        assert 0 <= card < 52
        assert parse_card(format_card(card)) == card == parse_card(format_card(card, False))


@FAST
@given(text=st.text(max_size=40) | CARD_TEXT | st.lists(st.integers(-2, 60) | st.text(max_size=4)))
def test_card_list_fuzz(text):
    try:
        cards = parse_cards(text)
    except ValueError as error:
        _one_line(error)
    else:
        assert len(set(cards)) == len(cards) and all(0 <= c < 52 for c in cards)


# ------------------------------------------------------------------ agent specs
SPEC = st.text(max_size=40) | st.builds(
    lambda head, style, params: f"{head}:{style}{params}",
    st.sampled_from(["brag", "put", "random", "x.zip", "BRAG", ""]),
    st.sampled_from(["tight", "bluffer", "caller", "greedy", "tips", "", "wizard"]),
    st.text(alphabet="=,:.-0123456789abcdefghijklmnopqrstuvwxyz_", max_size=24).map(
        lambda t: ":" + t if t else ""
    ),
)


@FAST
@given(text=SPEC, game=st.sampled_from([None, "brag", "put", "chess"]))
def test_agent_spec_fuzz(text, game):
    try:
        spec = parse_spec(text, game)
    except ValueError as error:
        _one_line(error)
    else:
        assert spec.kind in ("random", "style", "model")


# ------------------------------------------------------------------ YAML configs
YAML_TEXT = st.text(max_size=120) | st.builds(
    lambda d: json.dumps(d),  # JSON is YAML: nested mappings of the config's own shape
    st.fixed_dictionaries(
        {},
        optional={
            "game": JSON | st.sampled_from(["brag", "put"]),
            "env": JSON,
            "ppo": JSON,
            "pool": JSON,
            "eval": JSON,
            "total_timesteps": JSON,
            "seed": JSON,
        },
    ),
)


def _load_yaml(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.yaml"
        path.write_text(text, encoding="utf-8")
        try:
            load_config(path)
        except ValueError as error:
            assert str(error).strip()


@FAST
@given(text=YAML_TEXT)
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_yaml_config_fuzz(text):
    _load_yaml(text)


# ------------------------------------------------------------------ history lines
@pytest.fixture(scope="module")
def records() -> list[dict]:
    brag = random_histories(brag_v0.raw_env(num_players=3, hands_per_session=4), 3, "brag")
    put = random_histories(put_v0.raw_env(num_players=2, target_points=3), 3, "put")
    return [brag[0], brag[1], put[0]]


def _paths(value, prefix=()):
    """Every (path, value) inside a JSON value, containers included."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, (*prefix, i))


def _replay_text(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "h.jsonl"
        path.write_text(text, encoding="utf-8")
        try:
            loaded = load_histories(path)
            sessions = group_sessions(loaded)
            for record in loaded:
                key = next(k for k, hands in sessions.items() if any(h is record for h in hands))
                prepare(record, sessions[key], {}, str(path))
        except ValueError as error:
            _one_line(error)


@FAST
@given(data=st.data())
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_history_line_fuzz(records, data):
    record = data.draw(st.sampled_from(records))
    paths = [p for p in _paths(record) if p]
    path = data.draw(st.sampled_from(paths))
    mutated = replaced(record, path, data.draw(JSON))
    _replay_text(json.dumps(mutated) + "\n")


@FAST
@given(text=st.text(max_size=200) | JSON.map(json.dumps))
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_history_text_fuzz(text):
    _replay_text(text)


@pytest.mark.slow
@SLOW
@given(data=st.data())
def test_history_line_fuzz_long(records, data):
    record = data.draw(st.sampled_from(records))
    for _ in range(data.draw(st.integers(1, 4))):
        paths = [p for p in _paths(record) if p]
        record = replaced(record, data.draw(st.sampled_from(paths)), data.draw(JSON))
    _replay_text(json.dumps(record) + "\n")
