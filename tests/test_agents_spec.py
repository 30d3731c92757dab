"""Agent interface and spec strings: parsing, errors, factory, seeding."""

import numpy as np
import pytest

from agents import (
    Agent,
    RandomAgent,
    TableInfo,
    make_agent,
    parse_spec,
    styles,
    table_info,
    table_info_from_env,
)
from brag_env import brag_v1


@pytest.fixture(scope="module")
def brag_table() -> TableInfo:
    return table_info("brag")


@pytest.fixture(scope="module")
def put_table() -> TableInfo:
    return table_info("put")


def test_parse_random_style_and_params():
    assert parse_spec("random").kind == "random"
    spec = parse_spec("brag:bluffer:bluff=0.5,bluff_bets=2", "brag")
    assert (spec.kind, spec.game, spec.style) == ("style", "brag", "bluffer")
    assert spec.params == {"bluff": 0.5, "bluff_bets": 2}
    assert isinstance(spec.params["bluff"], float) and isinstance(spec.params["bluff_bets"], int)
    assert parse_spec("PUT:Greedy").style == "greedy"


def test_parse_model_path_and_flag():
    spec = parse_spec("runs/put_ppo/model.zip:deterministic=true", "put")
    assert spec.kind == "model"
    assert spec.path == "runs/put_ppo/model.zip"
    assert spec.params == {"deterministic": True}
    assert spec.label == "put_ppo/model.zip:deterministic=true"
    # A folder whose name holds ".zip" is part of the path.
    dotted = parse_spec("runs/a.zip.d/model.zip", "brag")
    assert (dotted.path, dotted.params) == ("runs/a.zip.d/model.zip", {})
    flagged = parse_spec("runs/v1.zip-old/m.ZIP:deterministic=1", "brag")
    assert (flagged.path, flagged.params) == ("runs/v1.zip-old/m.ZIP", {"deterministic": True})


def test_every_documented_style_is_registered():
    assert set(styles("brag")) == {
        "random",
        "caller",
        "tight",
        "bluffer",
        "blind",
        "tips",
        "never_look",
        "equilibrium",
        "planted_never_fold",
        "planted_fold_to_raise",
    }
    assert set(styles("put")) == {"random", "greedy", "caller", "bluffer", "tips", "equilibrium"}


@pytest.mark.parametrize(
    ("spec", "game", "fragment"),
    [
        ("", "brag", "empty agent spec"),
        ("foo", "brag", "unknown agent spec 'foo'"),
        ("brag:nope", "brag", "unknown brag style 'nope'"),
        ("put:greedy", "brag", "is a put agent, but the game is brag"),
        ("brag:tight:nope=1", "brag", "unknown parameter 'nope'"),
        ("brag:tight:play=high", "brag", "play='high'"),
        ("brag:tight:play", "brag", "expected key=value"),
        ("brag:bluffer:bluff_bets=1.5", "brag", "must be an integer"),
        ("model.zipper", "brag", "must end in .zip"),
        ("runs/a.zip.d/model", "brag", "must end in .zip"),
        ("brag:bluffer:bluff=0.5,bluff=0.2", "brag", "parameter 'bluff' is given twice"),
        ("m.zip:deterministic=1,deterministic=0", "brag", "'deterministic' is given twice"),
        ("brag:tight", "tictactoe", "only 'random' and model paths"),
    ],
)
def test_bad_specs_raise_one_line_value_errors(spec, game, fragment):
    with pytest.raises(ValueError) as info:
        parse_spec(spec, game)
    message = str(info.value)
    assert fragment in message
    assert "\n" not in message


def test_make_agent_binds_table_and_checks_game(brag_table, put_table):
    agent = make_agent("brag:tight", brag_table, seed=0)
    assert isinstance(agent, Agent) and agent.table is brag_table
    assert agent.name == "brag:tight"
    with pytest.raises(ValueError, match="is a brag agent"):
        make_agent(parse_spec("brag:tight"), put_table, seed=0)


def test_parameter_values_out_of_range_are_refused(brag_table, put_table):
    with pytest.raises(ValueError, match=r"bluff of brag:bluffer:bluff=2 must be in \[0, 1\]"):
        make_agent("brag:bluffer:bluff=2", brag_table)
    with pytest.raises(ValueError, match=r"patience .* must be >= 0"):
        make_agent("brag:tight:patience=-1", brag_table)
    with pytest.raises(ValueError, match="put_at"):
        make_agent("put:caller:put_at=1.5", put_table)
    assert make_agent("brag:tips:max_share=0.5", brag_table).max_share == 0.5


def test_table_info_from_env_matches_env(brag_table):
    env = brag_v1.env(num_players=3)
    info = table_info_from_env(env)
    assert info.game == "brag" and info.num_players == 3
    assert info.action_names == tuple(env.unwrapped.action_names)
    assert info.observation_shape == env.observation_space("player_0")["observation"].shape
    env.reset(seed=1)
    decoded = info.decode(env.observe("player_0")["observation"])
    assert len(decoded["seats"]) == 3
    assert info.action_id("fold") == 0
    with pytest.raises(ValueError, match="no action 'check'"):
        info.action_id("check")


def test_random_agent_plays_legal_actions_and_repeats_with_seed():
    mask = np.array([0, 1, 0, 1, 1, 0, 0], dtype=np.int8)
    obs = np.zeros(3, dtype=np.float32)
    a, b = RandomAgent(seed=7), RandomAgent(seed=7)
    picks = [a.act(obs, mask) for _ in range(200)]
    assert picks == [b.act(obs, mask) for _ in range(200)]
    assert set(picks) == {1, 3, 4}
    with pytest.raises(ValueError, match="allows no action"):
        a.act(obs, np.zeros(7, dtype=np.int8))


def test_agents_built_with_equal_seeds_choose_alike(brag_table):
    env = brag_v1.raw_env()
    for spec in (
        "random",
        "brag:bluffer:bluff=0.5",
        "brag:blind",
        "brag:tips",
        "brag:never_look:raise=0.5",
    ):
        env.reset(seed=3)
        one = make_agent(spec, brag_table, seed=11)
        two = make_agent(spec, brag_table, seed=11)
        for _ in range(30):
            if not env.agents:
                env.reset(seed=3)
            obs = env.observe(env.agent_selection)
            a1 = one.act(obs["observation"], obs["action_mask"])
            assert a1 == two.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][a1] == 1
            env.step(a1)
            while env.agents and env.terminations[env.agent_selection]:
                env.step(None)
