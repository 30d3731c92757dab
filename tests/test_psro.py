"""The PSRO driver (brag_env/training/psro.py): its meta-solvers, the pool it builds for a
meta-mix, and two short runs on the small Put deck measured against the exact solver."""

from __future__ import annotations

import json

import numpy as np
import pytest
import yaml

pytest.importorskip("sb3_contrib")

from brag_env.exploit import measure
from brag_env.put.rules import PutConfig
from brag_env.training import psro

CONFIG = "configs/put_psro_small.yaml"
SHORT = ["--steps", "2048", "--set", "eval.final_episodes=10"]


def test_nash_of_rock_paper_scissors_is_uniform() -> None:
    rps = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    np.testing.assert_allclose(psro.nash_weights(rps), [1 / 3] * 3, atol=1e-9)


def test_nash_puts_all_weight_on_a_dominant_policy() -> None:
    # Policy 2 beats both others; 1 beats 0: the only equilibrium is pure 2.
    payoffs = np.array([[0.0, -0.2, -0.5], [0.2, 0.0, -0.1], [0.5, 0.1, 0.0]])
    np.testing.assert_allclose(psro.nash_weights(payoffs), [0.0, 0.0, 1.0], atol=1e-9)


def test_nash_mixes_when_no_policy_dominates() -> None:
    # A biased cycle: x = (1/4, 1/4, 1/2) makes every column's payoff 0.
    payoffs = np.array([[0.0, -2.0, 1.0], [2.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    weights = psro.nash_weights(payoffs)
    np.testing.assert_allclose(weights, [0.25, 0.25, 0.5], atol=1e-9)
    assert (weights @ payoffs).min() >= -1e-9  # no column beats the mix


def test_pool_counts_follow_the_weights_and_fill_the_slots() -> None:
    counts = psro.pool_counts(np.array([0.5, 0.3, 0.2, 0.0]), 10)
    assert counts.tolist() == [5, 3, 2, 0]
    counts = psro.pool_counts(np.array([1 / 3, 1 / 3, 1 / 3]), 32)
    assert counts.sum() == 32 and sorted(counts.tolist()) == [10, 11, 11]
    specs = psro.pool_specs(["a", "b", "c"], np.array([0.75, 0.25, 0.0]), "nash", 4)
    assert specs == ["a", "a", "a", "b"]
    assert psro.pool_specs(["a", "b"], np.array([0.9, 0.1]), "uniform", 4) == ["a", "b"]


def read(out) -> dict:
    return json.loads((out / "psro.json").read_text())


def test_uniform_run_measures_what_the_exploit_tool_measures(tmp_path, capsys) -> None:
    out = tmp_path / "uniform"
    assert psro.main(["--config", CONFIG, "--out", str(out), "--iterations", "2", *SHORT]) == 0
    record = read(out)
    population = record["population"]
    assert population[0] == "random" and len(population) == 3
    assert population[1:] == [str(out / f"iter_{k:02d}" / "model.zip") for k in (1, 2)]
    assert [row["iteration"] for row in record["rows"]] == [1, 2]
    np.testing.assert_allclose(record["weights"], [1 / 3] * 3)
    payoffs = np.array(record["payoffs"])
    np.testing.assert_allclose(payoffs, -payoffs.T, atol=1e-12)  # zero-sum, roles alternating
    # No policy gains more against policy j than a best response: j's exploitability.
    alone = [0.690966] + [row["newest"]["exploitability"] for row in record["rows"]]  # random
    for j, bound in enumerate(alone):
        assert payoffs[:, j].max() <= bound + 1e-5
    # A policy against itself, dealing half the hands, scores 0 although each role does not.
    game = psro.ExactGame(record["env"])
    for spec in population:
        game.add(spec)
    for k in range(3):
        assert game.value(k, k) == pytest.approx(0.0, abs=1e-12)
        assert abs(game.measure(index=k).value_non_dealer) > 1e-3
    assert [game.value(i, j) for i in range(3) for j in range(3)] == pytest.approx(
        payoffs.ravel().tolist(), abs=1e-12
    )
    # The mix is the exploit tool's average of the population; the newest is its own figure.
    config = PutConfig.from_dict(record["env"])
    mix = measure(population, config).exploitability
    newest = measure(population[-1], config).exploitability
    assert record["rows"][-1]["mix"]["exploitability"] == pytest.approx(mix, abs=1e-9)
    assert record["rows"][-1]["newest"]["exploitability"] == pytest.approx(newest, abs=1e-9)
    # Iteration 2 trained against random and iteration 1's model, once each, from fresh weights.
    trained = yaml.safe_load((out / "iter_02" / "config.yaml").read_text())
    assert trained["pool"]["opponents"] == population[:2]
    assert trained["br"]["init"] is None and trained["seed"] == 1
    assert "| 2 |" in capsys.readouterr().out  # the table


def test_nash_warm_start_run_and_its_refusals(tmp_path, capsys) -> None:
    out = tmp_path / "nash"
    argv = ["--config", CONFIG, "--out", str(out), "--iterations", "2", "--meta", "nash"]
    argv += ["--init", "last", "--pool-slots", "8", *SHORT]
    assert psro.main(argv) == 0
    record = read(out)
    weights = np.array(record["weights"])
    assert weights.min() >= 0 and weights.sum() == pytest.approx(1.0)
    payoffs = np.array(record["payoffs"])
    assert (weights @ payoffs).min() >= -1e-7  # an equilibrium of the empirical game
    first = record["population"][1]
    trained = yaml.safe_load((out / "iter_02" / "config.yaml").read_text())
    assert trained["br"]["init"] == first  # warm-started from the last learner
    # Its pool is the Nash mix after iteration 1, in whole entries of 8.
    after_one = psro.nash_weights(payoffs[:2, :2])
    expected = psro.pool_specs(record["population"][:2], after_one, "nash", 8)
    assert trained["pool"]["opponents"] == expected and len(expected) == 8
    capsys.readouterr()

    # A directory holding a run is refused in one line, and nothing in it changes.
    before = (out / "psro.json").read_bytes()
    assert psro.main(argv) == 2
    err = capsys.readouterr().err
    assert "already holds a PSRO run: pass --force" in err and len(err.strip().splitlines()) == 1
    assert (out / "psro.json").read_bytes() == before
    # --force starts over: one iteration now, iter_02 gone.
    forced = [*argv, "--force"]
    forced[forced.index("--iterations") + 1] = "1"
    assert psro.main(forced) == 0
    assert len(read(out)["rows"]) == 1 and not (out / "iter_02").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--config", "configs/brag_ppo_smoke.yaml"], "must be heads-up Put"),
        (["--config", CONFIG, "--set", "env.reward=match"], "env.reward: points"),
        (["--config", CONFIG, "--set", "pool.snapshot_every=1000"], "pool.snapshot_every 0"),
        (["--config", CONFIG, "--meta", "alpharank"], "--meta must be one of uniform, nash"),
        (["--config", CONFIG, "--init", "best"], "--init must be one of fresh, last"),
        (["--config", CONFIG, "--pool-slots", "65"], "--pool-slots must be between 1 and 64"),
        (["--config", CONFIG, "--steps", "0"], "--steps must be >= 1"),
    ],
)
def test_bad_setups_are_one_line_errors_before_anything_is_written(
    tmp_path, capsys, argv, message
) -> None:
    out = tmp_path / "bad"
    assert psro.main([*argv, "--out", str(out), "--iterations", "1"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_uniform_run_longer_than_the_pool_holds_is_refused_before_it_starts(tmp_path):
    # iteration k's pool lists the k policies so far: the 65th would not fit pool.opponents
    job = psro.parse_args(["--config", CONFIG, "--out", str(tmp_path / "o"), "--iterations", "65"])
    with pytest.raises(ValueError, match="--iterations must be <= 64, got 65"):
        psro.check_setup(job)
    job.meta = "nash"  # its pool has --pool-slots entries whatever the population
    psro.check_setup(job)
    job.meta, job.iterations = "uniform", 64
    psro.check_setup(job)
