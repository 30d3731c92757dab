"""The exact one-hand Put solver (P1-P6): information sets vs the env, payoffs, agents, CLIs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.put_policy import agent_strategy, batch_probabilities
from agents.registry import make_agent
from agents.tables import table_info
from brag_env import put_v0
from brag_env.put.game import PutGame
from brag_env.put.observation import PutObserver
from brag_env.put.rules import FOLD, PUT, RANK_NAMES, SEE, PutConfig
from brag_env.put.solver.cfr import Accumulators, iterate, normalise
from brag_env.put.solver.game import HandGame, exploitability, parse_score
from brag_env.put.solver.observe import Batch, locate, observations
from brag_env.put.solver.passes import Payoff, terminal_points
from brag_env.put.solver.strategy import action_probabilities, uniform


def _decisions(config, score, seed, games=30):
    """(engine, seat, plays, put depth) at every decision of random first hands."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        game = PutGame(config)
        game.new_session(rng, dealer=1, scores=list(score))
        plays, put_depth = [], None
        while not game.records:
            yield game, game.current_player, list(plays), put_depth
            action = int(rng.choice(game.legal_actions()))
            if action == PUT:
                put_depth = len(plays)
            elif action < 13:
                plays.append(action)
            game.apply(action)


@pytest.mark.parametrize(
    "k,score,put_timing,perfect_recall",
    [
        (3, (0, 0), False, False),
        (4, (3, 1), False, False),
        (5, (0, 4), False, False),
        (3, (0, 0), True, False),  # put_v2's observation
        (4, (2, 1), False, True),
        (4, (1, 3), True, True),
    ],
)
def test_P1_P3_P4_solver_information_sets_give_the_env_observations(
    k, score, put_timing, perfect_recall
):
    """Along random hands, the infoset located from the engine's state rebuilds exactly the
    observation and mask the env gives (so the policy scored is the policy played), for
    put_v1's observation, put_v2's (when the Put came) and either with the event history."""
    config = PutConfig(deck_ranks=k, perfect_recall=perfect_recall)
    game = HandGame.build(config, score)
    observer = PutObserver(config, put_timing)
    checked = 0
    for engine, seat, plays, put_depth in _decisions(config, score, seed=k):
        seen = engine.put_seen or engine.put_caller < 0
        d, kind, s, node, x = locate(game.tree, plays, put_depth, seen, engine.counts[seat])
        obs, mask = observations(
            game.tree,
            config,
            score,
            Batch(d, kind, s, np.array([node]), np.array([x])),
            put_timing,
        )
        np.testing.assert_array_equal(obs[0], observer.set_from(engine, seat))
        np.testing.assert_array_equal(mask[0], engine.legal_mask())
        checked += 1
    assert checked > 100


def test_P4_P5_terminal_points_with_seen_put_game_and_draw_option():
    config = PutConfig(deck_ranks=2, seen_put_points="game", put_draw_to_opponent=True)
    game = HandGame.build(config, (3, 1))
    last = game.tree.layers[6]
    won = last.won[:, 0].astype(int) - last.won[:, 1]
    nd_wins, d_wins, drawn = np.argmax(won > 0), np.argmax(won < 0), np.argmax(won == 0)
    pts = game.points
    assert (pts[0, nd_wins], pts[0, d_wins], pts[0, drawn]) == (1, -1, 0)
    assert (pts[1, nd_wins], pts[1, d_wins]) == (2, -4)  # 3+2 = 5 and 1+4 = 5: the match
    caller = last.callers[drawn, 0]  # seen Put at j=0: the non-dealer called it
    assert caller == 0 and pts[1, drawn] == -1  # drawn: 1 point to the caller's opponent
    plain = terminal_points(game.tree, Payoff.from_config(PutConfig(deck_ranks=2), (3, 1)))
    assert (plain[1, nd_wins], plain[1, d_wins], plain[1, drawn]) == (2, -2, 0)


def test_score_outside_the_match_is_refused():
    with pytest.raises(ValueError, match="outside the match"):
        parse_score("5-0", PutConfig())
    with pytest.raises(ValueError, match="expected A-B"):
        parse_score("3", PutConfig())
    assert parse_score("6-2", PutConfig(target_points=7)) == (6, 2)


@pytest.mark.parametrize("style", ["greedy", "caller", "bluffer:bluff=0.0", "bluffer:bluff=1.0"])
def test_baseline_batch_probabilities_are_what_act_plays(style):
    """Vectorised copies of the deterministic baselines pick what ``act`` picks, full deck."""
    env = put_v0.raw_env()
    table = table_info("put")
    agent = make_agent(f"put:{style}", table, seed=1)
    probs = batch_probabilities(agent)
    rng = np.random.default_rng(7)
    for episode in range(15):
        env.reset(seed=episode)
        agent.reset()
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if name == "player_1":  # the other seat plays at random
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                continue
            p = probs(obs["observation"][None], obs["action_mask"][None])[0]
            choice = agent.act(obs["observation"], obs["action_mask"])
            assert p[choice] == 1.0, (style, p, choice)
            env.step(choice)


def test_bluffer_bluffs_with_its_probability_at_the_first_chance_only():
    table = table_info("put")
    agent = make_agent("put:bluffer:bluff=0.3,put_at=1.0", table)
    probs = batch_probabilities(agent)
    config = PutConfig(deck_ranks=3)
    game = HandGame.build(config)
    strat = agent_strategy(probs, game.tree, config, (0, 0))
    assert np.allclose(strat.put[0][0][game.tree.layers[0].weight[0].sum(1) > 0], 0.3)
    later = np.unique(strat.put[2])
    assert set(later.tolist()) <= {0.0, 1.0}  # trick 2: strength alone, no more bluff draws


def _small_run(k, iterations):
    game = HandGame.build(PutConfig(deck_ranks=k))
    regret, avg = Accumulators.zeros(game.tree), Accumulators.zeros(game.tree)
    for t in range(1, iterations + 1):
        iterate(game.tree, game.points, regret, avg, t)
    return game, normalise(game.tree, avg)


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_dcfr_converges_on_a_small_deck():
    game, strat = _small_run(3, 150)
    result = exploitability(game, strat)
    assert result.exploitability < 0.002
    assert result.br_non_dealer >= result.value_non_dealer >= -result.br_dealer
    first = exploitability(game, uniform(game.tree)).exploitability
    assert first > 0.5


def test_put_equilibrium_agent_plays_its_table(tmp_path):
    from brag_env.solve import solve

    config = PutConfig(deck_ranks=3)
    path = tmp_path / "eq3.npz"
    solve(config, (0, 0), 30, path, tmp_path / "c.npz", 10, False, False, progress=False)
    table = table_info("put", deck_ranks=3)
    agent = make_agent(f"put:equilibrium:path={path}", table, seed=3)
    tree, strategy = agent.tree, agent.strategy
    rng = np.random.default_rng(11)
    observer = PutObserver(config)
    checked = 0
    for _ in range(40):
        engine = PutGame(config)
        engine.new_session(rng, dealer=1)
        plays, put_depth = [], None
        while not engine.records:
            seat = engine.current_player
            obs = observer.set_from(engine, seat).copy()
            seen = engine.put_seen or engine.put_caller < 0
            where = locate(tree, plays, put_depth, seen, engine.counts[seat])
            want = action_probabilities(tree, strategy, where)
            got = agent.action_probabilities(obs, engine.legal_mask())
            for a, p in want.items():
                assert got[a] == pytest.approx(p, abs=1e-12)
            action = agent.act(obs, engine.legal_mask())
            if action == PUT:
                put_depth = len(plays)
            elif action not in (SEE, FOLD):
                plays.append(action)
            engine.apply(action)
            checked += 1
    assert checked > 100


K3 = Path(__file__).resolve().parents[1] / "models" / "put_equilibrium_k3.npz"


def _run(module, *args):
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True)


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_exploit_cli_prints_values_and_refuses_bad_input(tmp_path):
    garbage = tmp_path / "bad.npz"
    garbage.write_bytes(b"garbage")  # np.load would take it for a pickle
    ok = _run("brag_env.exploit", "put", "put:caller", "--deck-ranks", "3", "--score", "1-2")
    assert ok.returncode == 0, ok.stderr
    assert "exploitability:" in ok.stdout and "best response as dealer" in ok.stdout
    for args, needle in [
        (("put", "brag:greedy", "--deck-ranks", "3"), "is a brag agent"),
        (("put", "random", "--option", "num_players=3"), "heads-up Put only"),
        (("put", "brag:tight", "--deck-ranks", "3"), "'brag:tight' is a brag agent"),
        (("put", "random", "--option", "num_players=4"), "but num_players is 4"),
        (("put", "random", "--deck-ranks", "3", "--score", "5-0"), "outside the match"),
        (("put", "random", "--deck-ranks", "3", "--score", "x"), "score 'x': expected A-B"),
        (("put", f"put:equilibrium:path={K3}"), "deck_ranks=3, but the table has deck_ranks=13"),
        (("chess", "random"), "covers put only"),  # brag: the exploiter suite
        (("put", "put:equilibrium:path=nothing.npz", "--deck-ranks", "3"), "no strategy file"),
        (("put", "random", "--deck-ranks", "2", "--option", "deck_ranks=3"), "disagree"),
        (("put", f"put:equilibrium:path={garbage}", "--deck-ranks", "3"), "not an .npz archive"),
    ]:
        bad = _run("brag_env.exploit", *args)
        assert bad.returncode == 2 and needle in bad.stderr, (args, bad.stderr)
        assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr


def _solve(*args):
    return _run("brag_env.solve", "put", "--deck-ranks", "2", *args)


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_solve_cli_force_resume_and_strategy_for_another_deck(tmp_path):
    out = tmp_path / "s.npz"
    first = _solve("--iterations", "10", "--out", str(out), "--checkpoint-every", "5")
    assert first.returncode == 0, first.stderr
    again = _solve("--iterations", "10", "--out", str(out))
    assert again.returncode == 2 and "--force" in again.stderr
    ckpt = str(tmp_path / "s.ckpt.npz")
    resumed = _solve(
        "--iterations", "20", "--out", str(tmp_path / "r.npz"), "--checkpoint", ckpt, "--resume"
    )
    assert resumed.returncode == 0, resumed.stderr
    straight = _solve("--iterations", "20", "--out", str(tmp_path / "t.npz"))
    assert straight.returncode == 0
    a, b = np.load(tmp_path / "r.npz"), np.load(tmp_path / "t.npz")
    for name in a.files:
        if name != "meta":
            np.testing.assert_array_equal(a[name], b[name])
    negative = _solve(
        "--iterations", "2", "--out", str(tmp_path / "n.npz"), "--checkpoint-every", "-1"
    )
    assert negative.returncode == 2 and "--checkpoint-every must be >= 0" in negative.stderr
    wrong = _run("brag_env.exploit", "put", f"put:equilibrium:path={out}", "--deck-ranks", "3")
    assert wrong.returncode == 2 and "deck_ranks=2" in wrong.stderr


def test_P4_put_profile_counts_calls_faces_and_folds_exactly():
    from brag_env.put.solver.stats import put_profile

    tree = HandGame.build(PutConfig(deck_ranks=3)).tree
    always = uniform(tree)
    always.put[0][:] = 1.0  # the non-dealer calls Put before leading, always
    always.play[0][0] = 0.0  # (no card led without it)
    always.see[0][:] = 0.25
    prof = put_profile(tree, always)
    np.testing.assert_allclose(prof["dealt"].sum(axis=1), [1.0, 1.0])
    np.testing.assert_allclose(prof["calls"][0], prof["dealt"][0])
    np.testing.assert_allclose(prof["calls"][1], 0.0, atol=1e-15)
    np.testing.assert_allclose(prof["faces"][1], prof["dealt"][1])
    np.testing.assert_allclose(prof["folds"][1], 0.75 * prof["dealt"][1])


def _equilibrium_read_from(agent, observer, when: str):
    """A planted batch policy: ``agent``'s table (put:equilibrium), with the Put's timing read
    from the observation (``when``: "timing" put_v2's fields, "recall" the event rows) or,
    with "none", guessed as before the first card (put_v1 hides it)."""

    def probs(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = np.zeros(mask.shape)
        for row, vector in enumerate(obs):
            seen_obs = observer.decode(vector)
            plays = []
            for trick in seen_obs["tricks"]:
                lead = trick["leader"]
                for seat in (lead, 1 - lead):
                    if seat in trick["cards"]:
                        plays.append(RANK_NAMES.index(trick["cards"][seat]))
            put = seen_obs["put"]
            depth = None
            if put["caller"] is not None:
                if when == "timing":
                    depth = (put["trick"] - 1) * 2 + put["turn"]
                elif when == "recall":
                    actions = [event["action"] for event in seen_obs["history"]]
                    depth = sum(a.startswith("play") for a in actions[: actions.index("put")])
                else:
                    depth = 0
            hand = [seen_obs["hand"].count(name) for name in RANK_NAMES]
            called = put["caller"] is not None
            where = locate(agent.tree, plays, depth, put["seen"] or not called, hand)
            for action, p in action_probabilities(agent.tree, agent.strategy, where).items():
                out[row, action] = p
        return out * np.asarray(mask, dtype=bool)

    return probs


@pytest.mark.slow  # 1.5-3.5 s each: every information set decoded one at a time
@pytest.mark.parametrize(
    "put_timing,perfect_recall,when",
    [(True, False, "timing"), (False, True, "recall"), (True, True, "recall")],
)
def test_P4_a_policy_reading_when_the_put_came_scores_as_the_equilibrium(
    put_timing, perfect_recall, when
):
    """Planted: the deck_ranks 3 equilibrium played from put_v2's or the perfect-recall
    observation (no memory) has exactly the table's exploitability; read from put_v1's
    observation (the timing guessed) it does not."""
    config = PutConfig(deck_ranks=3, perfect_recall=perfect_recall)
    game = HandGame.build(config)
    spec = "put:equilibrium:path=models/put_equilibrium_k3.npz"
    agent = make_agent(spec, table_info("put", deck_ranks=3))
    want = exploitability(game, agent.strategy).exploitability
    planted = _equilibrium_read_from(agent, PutObserver(config, put_timing), when)
    got = exploitability(game, agent_strategy(planted, game.tree, config, (0, 0), put_timing))
    assert got.exploitability == pytest.approx(want, abs=1e-9)
    assert want < 0.001
    plain = PutConfig(deck_ranks=3)
    guessing = _equilibrium_read_from(agent, PutObserver(plain), "none")
    blind = exploitability(game, agent_strategy(guessing, game.tree, plain, (0, 0)))
    assert blind.exploitability > want + 0.001
