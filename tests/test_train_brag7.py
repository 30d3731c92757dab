"""train.py on Seven-card Brag (B24): configs/brag7_ppo.yaml with a tiny budget, then the model
plays in evaluate.py and in the self-play env."""

from __future__ import annotations

import sys
from pathlib import Path

import gymnasium
import pytest

import brag_env  # noqa: F401  (registers the envs)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import evaluate  # noqa: E402
from brag_env.training import cli as train  # noqa: E402  (what train.py runs)
from brag_env.training.config import load_config  # noqa: E402

TINY = [
    *("--set", "total_timesteps=512", "--set", "n_envs=2", "--set", "ppo.n_steps=128"),
    *("--set", "ppo.batch_size=64", "--set", "ppo.n_epochs=1", "--set", "ppo.net_arch=[16,16]"),
    *("--set", "checkpoint_every=256", "--set", "pool.snapshot_every=256"),
    *("--set", "eval.every=0", "--set", "eval.episodes=2", "--set", "eval.final_episodes=2"),
    *("--progress", "off"),
]


def test_brag7_config_loads_with_its_rules_checked():
    cfg = load_config(ROOT / "configs" / "brag7_ppo.yaml")
    assert cfg.game == "brag7" and cfg.env["num_players"] == 2
    with pytest.raises(ValueError, match="num_players"):
        load_config(ROOT / "configs" / "brag7_ppo.yaml", ["env.num_players=8"])


def test_brag7_selfplay_env_pays_the_learner_per_deal():
    env = gymnasium.make(
        "brag_env/Brag7VsPool-v0",
        env_config={"num_players": 2, "hands_per_session": 3},
        opponents=["brag7:balanced"],
        seed=0,
    )
    obs, _ = env.reset(seed=0)
    total, steps, done = 0.0, 0, False
    while not done:
        obs, reward, done, _, _ = env.step(int(env.unwrapped.action_masks().argmax()))
        total += reward
        steps += 1
    assert steps == 3 and obs.shape == (554,)
    assert float(total).is_integer()


@pytest.mark.slow
def test_brag7_smoke_training_saves_a_model_evaluate_plays(tmp_path, capsys):
    out = tmp_path / "brag7"
    args = ["--config", str(ROOT / "configs" / "brag7_ppo.yaml"), "--out", str(out), *TINY]
    assert train.main(args) == 0
    printed = capsys.readouterr().out
    assert "final evaluation" in printed and "deals per opponent" in printed
    assert "payoff, antes/deal" in printed
    argv = ["--game", "brag7", "--agents", str(out / "model.zip"), "brag7:balanced"]
    assert evaluate.main([*argv, "--option", "num_players=2", "--hands", "20"]) == 0
