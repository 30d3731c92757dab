"""put_v1: the PettingZoo AEC layer (API, seeding, rewards, errors, render, registry)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils.wrappers import (
    AssertOutOfBoundsWrapper,
    OrderEnforcingWrapper,
    TerminateIllegalWrapper,
)

from brag_env import put_v1
from brag_env.put import PutConfig, action_id
from brag_env.registry import ENVIRONMENTS

SCENARIOS = Path(__file__).resolve().parents[1] / "seeds" / "scenarios"


def scenario(name: str) -> dict:
    return json.loads((SCENARIOS / f"{name}.json").read_text())


def run_scripted(env, sc: dict, seed: int = 0) -> list[dict[str, float]]:
    """Reset with the scenario's deck and dealer, play its actions; returns last() rewards seen."""
    env.reset(seed=seed, options={"deck": sc["deck"], "dealer": sc["dealer"]})
    seen = []
    for seat, name in sc["actions"]:
        assert env.agent_selection == f"player_{seat}"
        obs, *_ = env.last()
        assert obs["action_mask"][action_id(name)] == 1
        env.step(action_id(name))
        seen.append({a: env._cumulative_rewards[a] for a in env.agents})
    return seen


def finish(env) -> dict[str, float]:
    """Step every done agent with None (as agent_iter does); returns each one's final reward."""
    final = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        assert term or trunc
        final[agent] = reward
        env.step(None)
    return final


# ------------------------------------------------------------- PettingZoo
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_api_test(num_players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dict observations and api_test's own reset option
        api_test(put_v1.env(num_players=num_players), num_cycles=300)
        api_test(put_v1.raw_env(num_players=num_players), num_cycles=300)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_seed_test(num_players):
    seed_test(lambda: put_v1.env(num_players=num_players), num_cycles=300)


def test_classic_wrappers_and_metadata():
    env = put_v1.env()
    assert isinstance(env, OrderEnforcingWrapper)
    assert isinstance(env.env, AssertOutOfBoundsWrapper)
    assert isinstance(env.env.env, TerminateIllegalWrapper)
    raw = env.unwrapped
    assert isinstance(raw, put_v1.raw_env)
    assert raw.metadata["name"] == "put_v1" and str(env) == "put_v1"
    assert set(raw.metadata["render_modes"]) == {"human", "ansi"}
    assert raw.action_names[0] == "play_3" and raw.action_names[-1] == "pass_4"
    assert len(raw.action_names) == env.action_space("player_0").n == 29
    four = put_v1.raw_env(num_players=4)  # P8 optional exchange: pass_none
    assert four.action_names[-1] == "pass_none" and four.action_space("player_0").n == 30


def test_registered_with_pettingzoo():
    assert ENVIRONMENTS["put_v1"] == "brag_env.put_v1"
    env = pettingzoo.make("aec", "brag_env/put_v1", num_players=3)
    env.reset(seed=1)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert isinstance(env.unwrapped, put_v1.raw_env)


@pytest.mark.parametrize(("num_players", "size"), [(2, 220), (3, 316), (4, 440)])
def test_spaces(num_players, size):
    env = put_v1.raw_env(num_players=num_players)
    env.reset(seed=0)
    space = env.observation_space("player_0")
    obs = env.observe(env.agent_selection)
    assert space["observation"].shape == (size,) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].dtype == np.int8 and space.contains(obs)
    assert env.agents == [f"player_{i}" for i in range(num_players)]


def test_config_errors_name_the_field():
    with pytest.raises(ValueError, match="num_players"):
        put_v1.env(num_players=6)
    with pytest.raises(ValueError, match="seen_put_points"):
        put_v1.raw_env(seen_put_points="twice")
    with pytest.raises(ValueError, match="render_mode"):
        put_v1.raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="colour"):
        put_v1.raw_env(colour="red")
    env = put_v1.raw_env(config=PutConfig(num_players=3), target_points=7)
    assert env.config == PutConfig(num_players=3, target_points=7)


# ---------------------------------------------------------- reset options
def test_reset_stacks_the_deck_and_fixes_the_dealer():
    env = put_v1.raw_env()
    env.reset(seed=3, options={"deck": "4s 3h 5s 2h 6s 7h", "dealer": 1})
    assert env.agent_selection == "player_0"
    view = put_v1.decode_observation(env.observe("player_0")["observation"])
    assert view["hand"] == ["6", "5", "4"] and view["dealer"] == 1 and view["acting"] == 0
    assert put_v1.decode_observation(env.observe("player_1")["observation"])["hand"] == [
        "3",
        "2",
        "7",
    ]
    with pytest.raises(ValueError, match="dealer"):
        env.reset(options={"dealer": 2})
    with pytest.warns(UserWarning, match="dek"):
        env.reset(options={"dek": "As"})


def test_same_seed_same_match():
    def actions(seed):
        env = put_v1.env(num_players=3)
        env.reset(seed=seed)
        rng = np.random.default_rng(1)
        trace = []
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            action = None
            if not (term or trunc):
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            trace.append((agent, action, reward))
            env.step(action)
        return trace, env.unwrapped.hand_histories()

    assert actions(11) == actions(11)
    assert actions(11) != actions(12)


# ----------------------------------------------------------------- rewards
@pytest.mark.parametrize(
    ("name", "num_players", "expected"),
    [
        ("put_folded_put", 2, [-1.0, 1.0]),
        ("put_three_players_both_fold", 3, [-0.5, -0.5, 1.0]),
        ("put_partnership_fold", 4, [1.0, -1.0, 1.0, -1.0]),
    ],
)
def test_match_rewards_zero_sum_at_the_end(name, num_players, expected):
    sc = scenario(name)
    env = put_v1.env(num_players=num_players, target_points=1)
    seen = run_scripted(env, sc)
    assert all(v == 0.0 for step in seen[:-1] for v in step.values())
    assert all(env.terminations.values())
    final = finish(env)
    assert [final[f"player_{i}"] for i in range(num_players)] == expected
    assert env.agents == []


@pytest.mark.parametrize(
    ("name", "num_players", "expected"),
    [
        ("put_seen_put", 2, [-2.0, 2.0]),
        ("put_three_players", 3, [-1.0, -1.0, 2.0]),
        ("put_partnership_fold", 4, [1.0, -1.0, 1.0, -1.0]),
        ("put_partnership_seen_put", 4, [-2.0, 2.0, -2.0, 2.0]),  # P8: both partners gain 2
    ],
)
def test_points_rewards_hand_by_hand(name, num_players, expected):
    sc = scenario(name)
    env = put_v1.raw_env(num_players=num_players, reward="points")
    run_scripted(env, sc)
    assert not any(env.terminations.values())
    rewards = [env.rewards[f"player_{i}"] for i in range(num_players)]
    assert rewards == expected and sum(rewards) == 0
    # the next agent to act collects its share through last()
    assert env.last()[1] == expected[int(env.agent_selection[-1])]
    env.step(env.observe(env.agent_selection)["action_mask"].nonzero()[0][0])
    assert all(v == 0.0 for v in env.rewards.values())


# ------------------------------------------------------------------ errors
def test_raw_env_illegal_action_raises_a_clear_value_error():
    env = put_v1.raw_env()
    env.reset(seed=0, options={"deck": "4s 3h 5s 2h 6s 7h", "dealer": 1})
    with pytest.raises(ValueError, match=r"player_0.*illegal action play_K"):
        env.step(action_id("play_K"))
    with pytest.raises(ValueError, match="integer action id"):
        env.step(1.5)
    with pytest.raises(ValueError, match="must act"):
        env.step(None)
    env.step(np.int64(action_id("play_4")))  # numpy integers are fine
    assert env.agent_selection == "player_1"


def test_env_illegal_action_ends_the_match_with_a_penalty():
    env = put_v1.env()
    env.reset(seed=0, options={"deck": "4s 3h 5s 2h 6s 7h", "dealer": 1})
    env.last()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(action_id("see"))
    assert all(env.terminations.values())
    # The engine is still mid-hand, but no observation offers a legal action any more.
    assert env.unwrapped.game.current_player == 0
    assert not any(env.observe(agent)["action_mask"].any() for agent in env.possible_agents)
    final = finish(env)
    assert final == {"player_0": -1.0, "player_1": 0.0}


def test_env_out_of_bounds_action_is_asserted():
    env = put_v1.env()
    env.reset(seed=0)
    env.last()
    with pytest.raises(
        AssertionError, match=r"^put_v1: player_0: action 29 is not an action id 0\.\.28$"
    ):
        env.step(29)


def test_stepping_a_finished_match_is_a_clear_error():
    env = put_v1.raw_env(target_points=1)
    env.reset(seed=0, options={"deck": "4s 3h 5s 2h 6s 7h", "dealer": 1})
    env.step(action_id("put"))
    env.step(action_id("fold"))
    assert all(env.terminations.values())
    with pytest.raises(ValueError, match="match is over"):
        env.step(action_id("play_3"))
    finish(env)
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        put_v1.raw_env().step(0)


# ------------------------------------------------------------------ render
def test_render_ansi_hides_hands_unless_revealed(capsys):
    sc = scenario("put_seen_put")
    env = put_v1.raw_env(render_mode="ansi")
    env.reset(seed=0, options={"deck": sc["deck"], "dealer": sc["dealer"]})
    for _, name in sc["actions"][:4]:
        env.step(action_id(name))
    text = env.render()
    assert "▮ ▮" in text and "4♠" in text and "3♥" in text
    assert "Put! called by player_1: player_0 see" in text
    assert "won by player_1" in text and text.endswith("To act: player_1 (play)\n")
    shown = put_v1.raw_env(render_mode="human", reveal_cards=True)
    shown.reset(seed=0, options={"deck": sc["deck"], "dealer": sc["dealer"]})
    assert shown.render() is None
    out = capsys.readouterr().out
    assert "6♠ 5♠ 4♠" in out and "3♥ 2♥ 7♥" in out and "Score:" in out
    assert "To act: player_0 (play): play_6, play_5, play_4, put" in out


def test_hand_histories_are_json():
    env = put_v1.raw_env(num_players=4, target_points=2)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    while not all(env.terminations.values()):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    histories = env.unwrapped.hand_histories()
    assert histories and json.loads(json.dumps(histories)) == histories


def test_readme_put_example_runs_as_documented(capsys):
    page = (Path(__file__).resolve().parents[1] / "docs" / "envs.md").read_text()
    section = page.split("\n## Put\n", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "docs/envs.md#put", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "{'player_0': -2.0, 'player_1': 2.0}"
    assert out[1] == "{'reason': 'tricks', 'unit': 1, 'points': 2}"
    assert "dealer player_0" in out[2] and out[3] == "Score: player_0 0 · player_1 2"


@pytest.mark.parametrize("action", [True, "put", 2.0, None])
def test_a_non_integer_action_names_the_env_and_agent_once(action):
    env = put_v1.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError) as info:
        env.step(action)
    message = str(info.value)
    assert message.startswith(f"put_v1: {env.agent_selection}")
    assert message.count("put_v1") == 1, message


@pytest.mark.parametrize("options", [["deck"], "deck", 3])
def test_reset_options_must_be_a_dict(options):
    with pytest.raises(ValueError, match="options must be a dict"):
        put_v1.raw_env().reset(seed=0, options=options)


def test_reset_rejects_a_stacked_deck_longer_than_one_hand():
    with pytest.raises(ValueError, match="at most 6 cards"):
        put_v1.raw_env().reset(seed=0, options={"deck": "4s 3h 5s 2h 6s 7h 8s"})


# ------------------------------------------------------- end of a hand
def relative(view_seat: int, seat: int, n: int) -> int:
    return (seat - view_seat) % n


def test_every_player_sees_how_the_last_hand_ended():
    """P3/P5: the last card of a hand is played and the next hand dealt in the same step, so
    the observation keeps the finished hand: its cards by trick, trick winners, Put, points."""
    sc = scenario("put_seen_put")
    env = put_v1.raw_env()
    env.reset(seed=0, options={"deck": sc["deck"], "dealer": sc["dealer"]})
    assert put_v1.decode_observation(env.observe("player_0")["observation"])["last_hand"] is None
    run_scripted(env, sc)
    for me in (0, 1):
        view = put_v1.decode_observation(env.observe(f"player_{me}")["observation"])
        assert [t["cards"] for t in view["tricks"]] == [{}], "a new hand is dealt"
        last = view["last_hand"]

        def r(seat, me=me):
            return relative(me, seat, 2)

        assert last["tricks"] == [
            {"cards": {r(0): "4", r(1): "3"}, "winner": r(1), "tied": False, "finished": True},
            {"cards": {r(1): "7", r(0): "6"}, "winner": r(1), "tied": False, "finished": True},
            {"cards": {r(1): "2", r(0): "5"}, "winner": r(1), "tied": False, "finished": True},
        ]
        assert last["put"] == {"caller": r(1), "seen": True, "folded": []}
        assert last["points"] == [2 if s == r(1) else 0 for s in range(2)]


def test_last_hand_after_a_folded_put_shows_only_the_cards_played():
    """P4/P7: after both opponents fold, only the led 4 was seen; the unplayed cards stay
    hidden. The block survives the end of the match (target 1)."""
    sc = scenario("put_three_players_both_fold")
    env = put_v1.raw_env(num_players=3, target_points=1)
    run_scripted(env, sc)
    assert all(env.terminations.values())
    for me in range(3):
        last = put_v1.decode_observation(
            env.observe(f"player_{me}")["observation"], PutConfig(num_players=3, target_points=1)
        )["last_hand"]
        assert last["tricks"] == [
            {"cards": {relative(me, 1, 3): "4"}, "winner": None, "tied": False, "finished": False}
        ]
        assert last["put"] == {
            "caller": relative(me, 2, 3),
            "seen": False,
            "folded": sorted([relative(me, 0, 3), relative(me, 1, 3)]),
        }
        assert last["points"] == [1 if s == relative(me, 2, 3) else 0 for s in range(3)]


def test_last_hand_points_go_to_both_partners():
    """P8: the side's point shows for both of its seats."""
    sc = scenario("put_partnership_fold")
    env = put_v1.raw_env(num_players=4)
    run_scripted(env, sc)
    for me in range(4):
        last = put_v1.decode_observation(
            env.observe(f"player_{me}")["observation"], PutConfig(num_players=4)
        )["last_hand"]
        assert last["points"] == [1 if (me + s) % 2 == 0 else 0 for s in range(4)]
        assert last["tricks"][0]["cards"] == {relative(me, 1, 4): "8"}


def test_observation_bound_covers_a_large_seen_put_value():
    """P4/P6: a seen Put worth 20 won at 0-0 with target 1 scores 20/1: above 3, and the space
    (whose high is the documented max(3, (target - 1 + seen_put_points) / target)) holds it."""
    sc = scenario("put_seen_put")
    env = put_v1.raw_env(target_points=1, seen_put_points=20)
    run_scripted(env, sc)
    space = env.observation_space("player_1")
    assert space["observation"].high.max() == pytest.approx(20.0)
    obs = env.observe("player_1")
    assert obs["observation"].max() == pytest.approx(20.0) and space.contains(obs)
    assert put_v1.raw_env().observation_space("player_0")["observation"].high.max() == 3.0
