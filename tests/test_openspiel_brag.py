"""The OpenSpiel Brag game (brag_env.openspiel) on tiny decks: OpenSpiel's own checks, move for
move against brag_v1 on the same deals, and the exact solver against OpenSpiel's exploitability."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import brag_env.openspiel  # noqa: E402,F401  (registers the game)
from agents.brag_policy import agent_strategy  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from agents.tables import table_info  # noqa: E402
from brag_env import brag_v1  # noqa: E402
from brag_env.brag.scenario import stack_deck  # noqa: E402
from brag_env.brag.solver.cfr import CFRPlus, evaluate, uniform_strategy  # noqa: E402
from brag_env.brag.solver.tree import build_tree  # noqa: E402
from brag_env.openspiel.brag import SHORT_NAME, config_of  # noqa: E402
from brag_env.openspiel.policy import StrategyPolicy, fill_tabular  # noqa: E402

TINY = {"deck_ranks": 2, "starting_chips": 2, "max_stake": 2}  # 3,360 histories
NODES, INFO_SETS = 16, 171  # its public tree; 171 information sets, as OpenSpiel counts them
SMALL = {"deck_ranks": 2, "starting_chips": 6, "max_stake": 4}  # the yardstick's rules
# the smallest 2-rank rules where raise and see occur too: 65 public nodes, 794 information sets
EVERY_ACTION = {"deck_ranks": 2, "starting_chips": 3, "max_stake": 4}


def load(**params):
    return pyspiel.load_game(SHORT_NAME, params)


@pytest.mark.parametrize(
    "params",
    [
        TINY,
        {"deck_ranks": 2, "starting_chips": 5, "max_stake": 4, "lowball": True},
        {
            "deck_ranks": 3,
            "num_players": 3,
            "starting_chips": 4,
            "raise_sizes": "2x_3x",
            "max_stake": 6,
        },
        {"deck_ranks": 2, "allow_blind": False, "starting_chips": 4, "cover_pot": False},
    ],
)
def test_random_sim_test_with_serialisation(params):
    pyspiel.random_sim_test(load(**params), num_sims=5, serialize=True, verbose=False)


def test_bad_parameters_are_one_line_errors():
    with pytest.raises(ValueError, match=r"^deck_ranks=1 leaves 4 cards"):
        config_of({"deck_ranks": 1})
    with pytest.raises(ValueError, match="raise_sizes must be multipliers"):
        config_of({"raise_sizes": "2,3"})
    with pytest.raises(ValueError, match="dealer must be a seat"):
        config_of({"dealer": 2})
    with pytest.raises(ValueError, match="unknown Brag game parameter"):
        config_of({"hands_per_session": 3})


def _env_for(state, game, **options):
    """brag_v1 with the state's deal stacked and the game's dealer."""
    cfg = game.config
    env = brag_v1.raw_env(**{**cfg.to_dict(), **options})
    hands = [list(state.seat_hand(s)) for s in range(cfg.num_players)]
    env.reset(seed=0, options={"deck": stack_deck(hands, game.dealer), "dealer": game.dealer})
    return env


@pytest.mark.parametrize(
    "params",
    [SMALL, {"deck_ranks": 3, "num_players": 3, "starting_chips": 8, "max_stake": 8}],
)
def test_plays_move_for_move_like_brag_v1(params):
    """Legal actions = the env's mask, observation tensors = the env's observations of every
    seat, information-state tensors = the env's perfect-recall observations, the cards a seat
    knows = the engine's hand once it has looked, returns = the env's rewards, on random deals
    and random legal play."""
    game = load(**params)
    rng = np.random.default_rng(1)
    n = game.num_players()
    for _ in range(6):
        state = game.new_initial_state()
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        env = _env_for(state, game)
        recall = _env_for(state, game, perfect_recall=True)
        while not state.is_terminal():
            p = state.current_player()
            assert env.agent_selection == f"player_{p}"
            seen = env.observe(f"player_{p}")
            assert state.legal_actions() == np.flatnonzero(seen["action_mask"]).tolist()
            for s in range(n):
                want = env.observe(f"player_{s}")["observation"]
                assert np.array_equal(np.asarray(state.observation_tensor(s)), want)
                full = recall.observe(f"player_{s}")["observation"]
                assert np.array_equal(np.asarray(state.information_state_tensor(s)), full)
                known = state.known_cards(s)  # what the information state holds
                own = np.flatnonzero(full[:52]).tolist()  # the env's: zero until looked
                if known is None:
                    assert own == []
                else:
                    assert sorted(known) == sorted(env.game.hands[s]) == own
            action = int(rng.choice(state.legal_actions()))
            state.apply_action(action)
            env.step(action)
            recall.step(action)
        assert state.returns() == [env._cumulative_rewards[f"player_{s}"] for s in range(n)]
        assert sum(state.returns()) == 0


def test_information_state_has_perfect_recall():
    """The information state keeps every public action and one's own cards once looked."""
    game = load(**SMALL)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    names = game.config.action_names
    for name in ["stay", "look", "stay", "look", "stay", "stay"]:
        state.apply_action(names.index(name))
    text = state.information_state_string(0)
    assert text.startswith("p0 ") and "blind" not in text
    assert text.endswith("0:stay 1:look 1:stay 0:look 0:stay 1:stay")
    assert state.information_state_string(1).startswith("p1 ")
    tensor = np.asarray(state.information_state_tensor(0))
    assert tensor[:52].sum() == 3 and tensor.size == game.information_state_tensor_size()
    blind = game.new_initial_state()
    while blind.is_chance_node():
        blind.apply_action(blind.chance_outcomes()[0][0])
    assert blind.information_state_string(0) == "p0 blind | "


def test_solver_tree_and_cfr_on_the_tiny_deck():
    cfg, dealer = config_of(TINY)
    tree = build_tree(cfg, dealer)
    assert (tree.num_nodes, tree.info_sets()) == (NODES, INFO_SETS)
    solver = CFRPlus(tree)
    result = solver.solve(1e-3, 2000, check_every=50)
    assert result.nash_conv <= 1e-3
    assert evaluate(tree, uniform_strategy(tree)).nash_conv > 0.5


def test_agent_strategy_of_random_is_uniform_and_deterministic_rules_are_pure():
    cfg, dealer = config_of(TINY)
    tree = build_tree(cfg, dealer)
    table = table_info("brag", **cfg.to_dict())
    uniform = uniform_strategy(tree)
    got = agent_strategy(make_agent("random", table, seed=0), tree)
    assert all(a is None or np.allclose(a, b) for a, b in zip(got, uniform, strict=True))
    caller = agent_strategy(make_agent("brag:caller", table, seed=0), tree)
    look = [a for a, _ in tree.children[0]].index(2)
    assert caller[0].tolist() == [float(i == look) for i in range(len(tree.children[0]))]
    after_look = dict(tree.children[0])[2]  # seat 0 open: it sees whenever it can, else stays
    row = caller[after_look]
    assert row.ndim == 2 and np.isin(row, [0.0, 1.0]).all()


def _dirichlet_strategy(tree, seed: int):
    """A random non-uniform strategy: a Dirichlet draw at every information set."""
    rng = np.random.default_rng(seed)
    return [
        None if sigma is None else rng.dirichlet(np.ones(sigma.shape[-1]), size=sigma.shape[:-1])
        for sigma in uniform_strategy(tree)
    ]


def test_every_action_occurs_on_the_exploitability_check_deck():
    cfg, dealer = config_of(EVERY_ACTION)
    tree = build_tree(cfg, dealer)
    names = {cfg.action_names[a].split("_")[0] for kids in tree.children for a, _ in kids}
    assert names == {"look", "stay", "raise", "see", "cover", "fold"}, names
    assert tree.num_nodes == 65


@pytest.mark.slow
def test_exact_exploitability_agrees_with_openspiel_on_a_random_strategy():
    """OpenSpiel's C++ exploitability of one seeded random strategy (a different mix at every
    information set, so every node kind of the solver's evaluate() counts) equals the solver's
    to 1e-6. Every baseline: bench/brag_openspiel_check.py (docs/openspiel.md)."""
    from open_spiel.python import policy as os_policy

    game = load(**EVERY_ACTION)
    tree = build_tree(game.config, game.dealer)
    strategy = _dirichlet_strategy(tree, seed=3)
    tabular = os_policy.TabularPolicy(game)
    assert len(tabular.state_lookup) == 794
    fill_tabular(tabular, StrategyPolicy(game, tree, strategy))
    ours = evaluate(tree, strategy).exploitability
    theirs = pyspiel.exploitability(game, tabular.to_dict())
    assert abs(ours - theirs) <= 1e-6
