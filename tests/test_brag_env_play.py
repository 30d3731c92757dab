"""brag_v0 play: the French worked example, rewards (B17), random legal play, errors, options."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pettingzoo
import pytest

from brag_env import brag_v0
from brag_env.brag.replay import replay_session
from brag_env.brag.rules import FOLD, LOOK, STAY, BragConfig
from brag_env.brag.scenario import stack_deck
from brag_env.cards import parse_cards

SCENARIO = Path(__file__).resolve().parents[1] / "seeds" / "scenarios" / "brag_french_example.json"


def _finish(env: Any, truncated: bool = False) -> dict[str, float]:
    """Dead-step every agent; return the reward each one sees through last()."""
    seen: dict[str, float] = {}
    while env.agents:
        agent = env.agent_selection
        _, reward, term, trunc, _ = env.last()
        assert term and trunc == truncated
        seen[agent] = reward
        env.step(None)
    return seen


@pytest.mark.parametrize("make", [brag_v0.raw_env, brag_v0.env])
def test_french_worked_example(make: Any) -> None:
    """The French seed's hand (B8-B14) replayed through the env: changes -55/-10/-5/+70."""
    scenario = json.loads(SCENARIO.read_text())
    env = make(**scenario["config"], render_mode="ansi")
    env.reset(
        seed=scenario["seed"], options={"deck": scenario["deck"], "dealer": scenario["dealer"]}
    )
    names = env.unwrapped.action_names
    order = []
    for action in scenario["actions"]:
        order.append(env.agent_selection)
        obs, *_ = env.last()
        assert obs["action_mask"][names.index(action)], f"{action} should be legal"
        env.step(names.index(action))
    # Seats 1, 2, 3, 0 in turn; a look (B10) keeps the turn.
    assert [int(a[-1]) for a in order] == [1, 2, 2, 3, 3, 0, 0, 1, 1, 3, 0]
    table = env.render()
    assert "4♠ 6♠ 9♠" in table and "7♥ 7♦ K♣" in table and "session over" in table
    deltas = map(float, scenario["expected"]["deltas"])
    expected = dict(zip(env.possible_agents, deltas, strict=True))
    assert env.rewards == expected
    # Every agent, the last actor (player_0, who saw) included, gets its change via last().
    assert _finish(env) == expected


def test_last_actor_sees_its_reward_after_a_fold_win() -> None:
    env = brag_v0.env(num_players=3)
    env.reset(seed=1, options={"dealer": 2})
    env.step(FOLD)  # player_0
    env.step(FOLD)  # player_1: player_2 wins the antes blind (B15)
    assert _finish(env) == {"player_0": -1.0, "player_1": -1.0, "player_2": 2.0}


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_session_rewards_reach_every_player_each_hand(n: int) -> None:
    """B17: after every hand each player is rewarded its change, even when not on turn; a
    player's last() reward is the sum of what happened since it last acted; zero-sum."""
    env = brag_v0.raw_env(num_players=n, hands_per_session=12, starting_chips=25)
    env.reset(seed=n)
    rng = np.random.default_rng(n)
    pending = dict.fromkeys(env.possible_agents, 0.0)  # rewards not yet seen via last()
    hands_seen = 0
    while env.agents:
        agent = env.agent_selection
        _, reward, term, _, _ = env.last()
        assert reward == pending[agent]
        pending[agent] = 0.0
        if term:
            env.step(None)
            continue
        before = len(env.game.hand_results)
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
        results = env.game.hand_results[before:]
        if results:
            hands_seen += len(results)
            deltas = np.sum([r.deltas for r in results], axis=0)
            assert env.rewards == dict(zip(env.possible_agents, map(float, deltas), strict=True))
            assert sum(env.rewards.values()) == 0
        else:
            assert not any(env.rewards.values())
        for a, r in env.rewards.items():
            pending[a] += r
    assert hands_seen == len(env.game.hand_results) >= 2


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8])
def test_random_legal_play(n: int) -> None:
    """Many hands of random legal play: chips conserved, rewards zero-sum, masks never empty
    for the player to act, observations inside the space, every episode ends."""
    env = brag_v0.env(num_players=n, hands_per_session=10, starting_chips=40)
    raw = env.unwrapped
    space = env.observation_space("player_0")
    rng = np.random.default_rng(100 + n)
    total, hands, episodes = 40 * n, 0, 0
    for episode in range(40):
        env.reset(seed=episode)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        for step, agent in enumerate(env.agent_iter(5000)):
            obs, reward, term, trunc, _ = env.last()
            returns[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            assert mask.any(), "no legal action for the player to act"
            assert mask.dtype == np.int8 and set(np.unique(mask).tolist()) <= {0, 1}
            assert mask.tolist() == [int(legal) for legal in raw.game.legal_mask()]
            if step % 7 == 0:
                assert space.contains(obs)
            env.step(int(rng.choice(np.flatnonzero(mask))))
            assert sum(raw.game.chips) + raw.game.pot == total
            assert sum(env.rewards.values()) == 0
        assert not env.agents, "the episode did not end"
        game = raw.game
        assert game.session_over and sum(returns.values()) == 0
        assert [returns[a] for a in env.possible_agents] == [c - 40 for c in game.chips]
        hands += len(game.hand_results)
        episodes += 1
    assert episodes == 40 and hands > 150


def test_hand_histories_replay_with_nothing_else() -> None:
    """The env hands out the engine's histories, JSON-ready and carrying their rules, so
    ``replay_session`` needs no config (B8-B19 are re-checked hand by hand)."""
    env = brag_v0.env(num_players=3, hands_per_session=6, ante=2, raise_sizes=(2, 3))
    env.reset(seed=3)
    assert env.unwrapped.hand_histories() == []
    rng = np.random.default_rng(3)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    histories = json.loads(json.dumps(env.unwrapped.hand_histories()))
    game = env.unwrapped.game
    assert histories == game.history() and len(histories) == len(game.hand_results) >= 2
    assert all(h["config"] == env.unwrapped.config.to_dict() for h in histories)
    results = replay_session(histories)
    assert [r.to_dict() for r in results] == [r.to_dict() for r in game.hand_results]


def test_raw_env_errors() -> None:
    env = brag_v0.raw_env(num_players=3)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0, options={"dealer": 2})
    see = env.action_names.index("see")
    with pytest.raises(ValueError, match=r"player_0.*'see'.*illegal"):
        env.step(see)  # B14: three players are in
    with pytest.raises(ValueError, match="out of range"):
        env.step(99)
    with pytest.raises(ValueError, match="must act"):
        env.step(None)
    assert env.agent_selection == "player_0"  # nothing changed
    env.step(FOLD)
    env.step(FOLD)
    assert all(env.terminations.values())
    with pytest.raises(ValueError, match=r"step\(None\)"):
        env.step(STAY)  # the game is over for this agent
    _finish(env)
    with pytest.raises(RuntimeError, match="game is over"):
        env.step(None)


def test_env_illegal_action_ends_the_game_with_the_penalty() -> None:
    env = brag_v0.env(num_players=4, starting_chips=150)
    env.reset(seed=0, options={"dealer": 3})
    env.step(STAY)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(env.unwrapped.action_names.index("see"))  # illegal: four players are in
    assert all(env.terminations.values())
    # TerminateIllegalWrapper ends the game (terminated and truncated): -starting_chips.
    penalty = {"player_0": 0.0, "player_1": -150.0, "player_2": 0.0, "player_3": 0.0}
    assert _finish(env, truncated=True) == penalty
    env.reset(seed=0)
    with pytest.raises(
        AssertionError, match=r"^brag_v0: player_\d: action 7 is not an action id 0\.\.6$"
    ):
        env.step(7)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"num_players": 9}, "num_players"),
        ({"min_stake": 3}, "min_stake"),
        ({"ante": -1}, "ante"),
        ({"raise_sizes": [1]}, "raise_sizes"),
        ({"shuffle": "never"}, "shuffle"),
        ({"colour": "red"}, "colour"),
        ({"render_mode": "rgb_array"}, "render_mode"),
        ({"reveal_cards": "yes"}, "reveal_cards"),
    ],
)
def test_bad_options_name_the_field(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        brag_v0.env(**kwargs)


def test_config_object_and_options() -> None:
    env = brag_v0.raw_env(config=BragConfig(num_players=3, cover_pot=False), raise_sizes=[2, 4])
    assert env.config.num_players == 3
    assert env.action_names == [
        "fold", "stay", "look", "see", "raise_2x", "raise_4x", "keep_old_hand", "take_new_hand"
    ]  # fmt: skip
    assert env.action_space("player_2").n == 8
    assert env.possible_agents == ["player_0", "player_1", "player_2"]


def test_reset_options_stack_the_deck_and_fix_the_dealer() -> None:
    """B9: stacked cards are dealt one at a time from the left of the dealer."""
    env = brag_v0.raw_env(num_players=3)
    env.reset(seed=5, options={"deck": "As Ks Qs Ah Kh Qh Ad Kd Qd", "dealer": 1})
    game = env.game
    assert game.dealer == 1 and env.agent_selection == "player_2"
    assert game.hands[2] == parse_cards("As Ah Ad")
    assert game.hands[0] == parse_cards("Ks Kh Kd")
    assert game.hands[1] == parse_cards("Qs Qh Qd")
    with pytest.raises(ValueError, match="dealer"):
        env.reset(options={"dealer": 3})
    with pytest.raises(ValueError, match="Zz"):
        env.reset(options={"deck": "As Zz"})
    with pytest.warns(UserWarning, match="dek"):
        env.reset(options={"dek": "As"})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"deck": 123}, r"deck must be card text or a list of card ints, got 123"),
        ({"deck": b"As"}, r"deck must be card text .* got b'As'"),
        ({"deck": "As As"}, r"deck: duplicate card"),
        ({"deck": "As Zz"}, r"deck: bad card 'Zz'"),
        ({"deck": [52]}, r"deck: bad card 52"),
        ({"deck": [True]}, r"deck: bad card True"),
        ({"dealer": True}, r"dealer must be a seat number, got the bool True"),
        ({"dealer": np.bool_(False)}, r"dealer must be a seat number, got the bool"),
        ({"dealer": "1"}, r"dealer must be a seat number, got '1'"),
        ({"dealer": -1}, r"dealer must be a seat in 0\.\.2, got -1"),
    ],
)
def test_bad_reset_options_raise_value_errors_naming_them(
    options: dict[str, Any], message: str
) -> None:
    """B7/B9 reset options: a bad deck or dealer is a ValueError that names the option."""
    env = brag_v0.raw_env(num_players=3)
    with pytest.raises(ValueError, match=message):
        env.reset(seed=0, options=options)
    env.reset(seed=0, options={"deck": np.array([51, 50, 49]), "dealer": np.int64(2)})
    assert env.game.dealer == 2 and env.game.hands[0][0] == 51


@pytest.mark.parametrize("options", [["deck"], "deck", 3])
def test_reset_options_must_be_a_dict(options: Any) -> None:
    with pytest.raises(ValueError, match=r"brag_v0\.reset: options must be a dict"):
        brag_v0.raw_env().reset(seed=0, options=options)


@pytest.mark.parametrize("action", [True, False, np.bool_(True), 1.0, "1"])
def test_raw_env_rejects_actions_that_are_not_integers(action: Any) -> None:
    """A bool is not an action id (True would otherwise play action 1, "stay")."""
    env = brag_v0.raw_env(num_players=3)
    env.reset(seed=0, options={"dealer": 0})
    with pytest.raises(ValueError, match=r"player_1: action must be an integer action id"):
        env.step(action)
    assert env.game.betting == [] and env.agent_selection == "player_1"


def test_same_seed_same_game() -> None:
    def play(seed: int) -> list[Any]:
        env = brag_v0.raw_env(num_players=4, hands_per_session=5)
        env.reset(seed=seed)
        rng = np.random.default_rng(0)
        trace: list[Any] = [[list(h) for h in env.game.hands], env.game.dealer]
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent]:
                env.step(None)
                continue
            action = int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"])))
            trace.append((agent, action, dict(env.rewards)))
            env.step(action)
        return [*trace, env.game.chips]

    assert play(11) == play(11)
    assert play(11) != play(12)


def test_render_shows_the_public_table_only() -> None:
    env = brag_v0.raw_env(num_players=3, render_mode="ansi")
    env.reset(seed=2, options={"deck": "As Ks Qs Ah Kh Qh Ad Kd Qd", "dealer": 0})
    env.step(STAY)  # player_1 stays blind
    env.step(LOOK)  # player_2 looks ...
    table = env.render()
    for piece in ("player_0", "player_1", "player_2", "stake 2", "pot 4", "blind", "open", "D"):
        assert piece in table
    assert "▮ ▮ ▮" in table and "♠" not in table  # nobody's cards are shown
    assert "player_1 stay (1), player_2 look" in table
    revealing = brag_v0.raw_env(num_players=3, render_mode="ansi", reveal_cards=True)
    revealing.reset(seed=2, options={"deck": "As Ks Qs Ah Kh Qh Ad Kd Qd", "dealer": 0})
    assert "A♠ A♥ A♦  (hidden)" in revealing.render()


def test_render_reveals_a_kept_blind_hand_only_when_revealing() -> None:
    """B19: the hand kept for the next deal is hidden from everyone, unless the render reveals
    every card."""
    second = stack_deck(["Kh Qd 4c", "Qs Jh 6d", "8s 8c 2d"], 1)
    deck = stack_deck(["Jc 8h 3d", "As Ad 5c", "2h 5d 9c"], 0, second)
    tables = []
    for reveal in (False, True):
        env = brag_v0.raw_env(
            num_players=3, hands_per_session=2, render_mode="ansi", reveal_cards=reveal
        )
        env.reset(seed=0, options={"deck": deck, "dealer": 0})
        for action in (STAY, FOLD, FOLD):  # player_1 stays blind, the others fold (B15)
            env.step(action)
        assert env.game.choosing and env.agent_selection == "player_1"
        tables.append(env.render())
    hidden, revealed = tables
    assert "player_1 chooses: keep the old blind hand or take the new one (B19)" in hidden
    assert "A♠ A♦ 5♣" not in hidden and "Q♠ J♥ 6♦" not in hidden
    assert "keep the old blind hand A♠ A♦ 5♣ (hidden) or take the new one" in revealed
    assert "Q♠ J♥ 6♦  (hidden)" in revealed  # the new hand, in player_1's row


def test_human_render_prints(capsys: pytest.CaptureFixture[str]) -> None:
    env = brag_v0.env(num_players=2, render_mode="human")
    env.reset(seed=0)
    assert "Brag · hand 1 of 1" in capsys.readouterr().out
    env.step(FOLD)
    assert "as everyone else folded" in capsys.readouterr().out


def test_registered_with_pettingzoo() -> None:
    if not hasattr(pettingzoo, "make"):
        pytest.skip("this PettingZoo has no registry")
    env = pettingzoo.make("aec", "brag_env/brag_v0", num_players=3)
    assert str(env) == "brag_v0" and env.unwrapped.config.num_players == 3
