"""Put as an OpenSpiel game (``brag_env.openspiel.put``): OpenSpiel's own checks, and move for
move the same play as ``put_v1`` on the same deals (P1-P8)."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from brag_env import put_v1, put_v2  # noqa: E402
from brag_env.openspiel.put import HAND_GAME, MATCH_GAME, load_hand, load_match  # noqa: E402
from brag_env.put.rules import PUT, PutConfig  # noqa: E402


def _deal_outcomes(state, env_game) -> None:
    """Apply the chance outcomes that deal ``env_game``'s current hand (seat by seat from
    the dealer's left, each seat's rank multiset)."""
    multisets = state.setup.multisets
    n = env_game.n
    for j in range(n):
        seat = (env_game.dealer + 1 + j) % n
        hand = tuple(sorted(r for r in range(13) for _ in range(env_game.counts[seat][r])))
        assert state.is_chance_node()
        assert multisets.index(hand) in dict(state.chance_outcomes())
        state.apply_action(multisets.index(hand))


def _play_both(config: PutConfig, seed: int, one_hand: bool, module=put_v1) -> tuple[int, object]:
    """Random legal play on the env and the OpenSpiel game at once; every seat's observation,
    the legal actions and the returns must agree. Returns the number of decisions."""
    env = module.raw_env(config=config, reward="points")
    env.reset(seed=seed, options={"dealer": config.num_players - 1})
    timing = module is put_v2
    if one_hand:
        game = load_hand(config, put_timing=timing)
    else:
        game = load_match(config, max_hands=10_000, put_timing=timing)
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    totals = np.zeros(config.num_players)
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            _deal_outcomes(state, env.unwrapped.game)
            continue
        p = state.current_player()
        assert env.agent_selection == f"player_{p}"
        for q, agent in enumerate(env.agents):
            np.testing.assert_array_equal(
                state.observation_tensor(q), env.observe(agent)["observation"]
            )
        mask = env.observe(env.agent_selection)["action_mask"]
        assert state.legal_actions() == np.flatnonzero(mask).tolist()
        action = int(rng.choice(state.legal_actions()))
        env.step(action)
        state.apply_action(action)
        totals += [env.rewards[a] for a in env.possible_agents]
        decisions += 1
    if not one_hand:
        assert all(env.terminations.values())  # the match ended in both
    assert state.returns() == pytest.approx(totals.tolist())
    return decisions, state


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"num_players": 3},
        {"num_players": 4},
        {"num_players": 3, "put_answers": "in_turn"},
        {"num_players": 4, "partner_exchange": "always"},
        {"deck_ranks": 3, "seen_put_points": "game", "put_draw_to_opponent": True},
        {"perfect_recall": True},
        {"num_players": 4, "perfect_recall": True},
    ],
)
def test_P2_P8_one_hand_plays_as_put_v1(options):
    config = PutConfig.from_dict(options)
    for seed in range(3):
        _play_both(config, seed, one_hand=True)


@pytest.mark.parametrize("num_players", [2, 4])
def test_P4_observations_can_be_put_v2s(num_players):
    for seed in range(2):
        _play_both(PutConfig(num_players=num_players), seed, one_hand=True, module=put_v2)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_P6_match_plays_as_put_v1(num_players):
    decisions, state = _play_both(PutConfig(num_players=num_players, target_points=2), 7, False)
    assert decisions > 0 and state.hands_played >= 2


def test_P4_information_state_recalls_when_put_was_called():
    """Two hands that differ only in when seat 0 called Put look the same in the default
    observation at the last trick, but not in the information state (perfect recall)."""
    config = PutConfig(deck_ranks=2)
    game = load_hand(config)
    states = []
    for put_at in (0, 2):  # before the first card / before the second trick's lead
        state = game.new_initial_state()
        state.apply_action(0)  # seat 0 (non-dealer): 3 3 3
        state.apply_action(game.setup.multisets.index((0, 1, 1)))  # seat 1: 3 2 2
        for step in range(4):
            if step == put_at:
                state.apply_action(PUT)
                state.apply_action(14)  # see
            state.apply_action(state.legal_actions()[0] if step % 2 else 0)
        states.append(state)
    a, b = states
    assert a.observation_tensor(1) == b.observation_tensor(1)
    assert a.information_state_string(1) != b.information_state_string(1)
    assert a.information_state_tensor(1) != b.information_state_tensor(1)


def test_P1_information_state_hides_the_other_hand():
    game = load_hand(PutConfig(deck_ranks=2))
    state = game.new_initial_state()
    state.apply_action(0)  # seat 0: 3 3 3
    state.apply_action(game.setup.multisets.index((1, 1, 1)))  # seat 1: 2 2 2
    assert "3 3 3" in state.information_string(0) and "2 2 2" not in state.information_string(0)
    assert "2 2 2" in state.information_string(1) and "3 3 3" not in state.information_string(1)
    assert state.information_state_tensor(0) != state.information_state_tensor(1)


def test_P8_information_state_hides_the_partners_pass():
    game = load_hand(PutConfig(num_players=4))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    passer = state.current_player()
    state.apply_action(state.legal_actions()[0])  # a pass card
    mine, theirs = (state.information_string(q) for q in (passer, (passer + 2) % 4))
    assert "you choose pass_" in mine and "pass_" not in theirs and "chooses a pass" in theirs


def test_hand_game_random_sim_with_serialisation():
    game = pyspiel.load_game(HAND_GAME)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.slow  # several seconds: random_sim_test clones every state it visits
@pytest.mark.parametrize("name", [HAND_GAME, MATCH_GAME])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_sim_every_size(name, players):
    game = pyspiel.load_game(name, {"players": players, "target_points": 2})
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def _random_step(state, rng) -> None:
    if state.is_chance_node():
        outcomes = [a for a, _ in state.chance_outcomes()]
        state.apply_action(int(rng.choice(outcomes)))
    else:
        state.apply_action(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize(
    ("match", "options"),
    [
        (False, {}),
        (False, {"num_players": 4, "partner_exchange": "always"}),
        (True, {"num_players": 3, "put_answers": "in_turn"}),
        (True, {"target_points": 3}),
    ],
)
def test_a_clone_plays_on_as_the_original(match, options):
    """``clone()`` copies the engine (no replay): its history, log and every seat's view are
    the original's, and from there both play the same, without either touching the other."""
    config = PutConfig(**options)
    game = load_match(config, max_hands=200) if match else load_hand(config)
    rng = np.random.default_rng(7)
    for stop in (1, 4, 9, 15, 30):
        state = game.new_initial_state()
        while not state.is_terminal() and len(state.history()) < stop:
            _random_step(state, rng)
        if state.is_terminal():
            continue
        clone = state.clone()
        before = state.history()
        _random_step(clone, np.random.default_rng(stop))  # the clone moves on alone
        assert state.history() == before and clone.history()[:-1] == before
        clone = state.clone()
        steps = [(step.player, step.action) for step in state.full_history()]
        assert [(step.player, step.action) for step in clone.full_history()] == steps
        assert clone.log == state.log == before and str(clone) == str(state)
        while not state.is_terminal():
            assert clone.current_player() == state.current_player()
            assert clone.legal_actions() == state.legal_actions()
            for p in range(config.num_players):
                assert clone.information_state_string(p) == state.information_state_string(p)
                assert clone.observation_tensor(p) == state.observation_tensor(p)
            if state.is_chance_node():
                assert clone.chance_outcomes() == state.chance_outcomes()
            _random_step(state, rng)
            clone.apply_action(state.history()[-1])
        assert clone.is_terminal() and clone.returns() == state.returns()
        assert clone.history() == state.history()


def test_chance_outcomes_are_the_deal_probabilities():
    """deck_ranks 2 (eight cards): the first seat gets three of a rank with probability
    2 * C(4,3) / C(8,3) = 1/7; all outcomes sum to 1 at every seat."""
    state = load_hand(PutConfig(deck_ranks=2)).new_initial_state()
    outcomes = dict(state.chance_outcomes())
    assert outcomes[0] == pytest.approx(4 / 56)
    assert sum(outcomes.values()) == pytest.approx(1.0)
    state.apply_action(0)
    assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)
    assert 0 not in dict(state.chance_outcomes())  # only one 3 is left


@pytest.mark.parametrize(
    "params, word",
    [
        ({"players": 5}, "num_players"),
        ({"deck_ranks": 1}, "deck_ranks"),
        ({"score_0": 5}, "score_0"),
        ({"players": 2, "score_2": 1}, "score_0"),
    ],
)
def test_bad_parameters_are_one_line_errors(params, word):
    with pytest.raises(Exception, match=word) as err:
        pyspiel.load_game(HAND_GAME, params)
    assert "\n" not in str(err.value).strip()
