"""Magnetic mirror descent (brag_env/training/mmd.py): the KL term, its config, and a tiny run."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from brag_env.training.checkpoint import load_parameters
from brag_env.training.config import load_config
from brag_env.training.envs import make_vec_env
from brag_env.training.learner import LearnerPPO
from brag_env.training.mmd import MagnetPPO, masked_kl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from brag_env.training import cli as train  # noqa: E402  (what train.py runs)

SMOKE = ROOT / "configs" / "put_ppo_smoke.yaml"
MMD = ["ppo.magnet_kl=0.1", "ppo.magnet_update=3"]


def built(overrides: list[str]) -> MaskablePPO:
    cfg = load_config(SMOKE, overrides)
    venv = make_vec_env(cfg, seed=0)
    try:
        return train.build_model(cfg, venv, seed=0)
    finally:
        venv.close()


def batch(model: MaskablePPO, n: int = 64) -> tuple[torch.Tensor, np.ndarray]:
    """Observations and legal-action masks (each row with at least one legal action)."""
    rng = np.random.default_rng(0)
    obs = torch.as_tensor(np.stack([model.observation_space.sample() for _ in range(n)])).float()
    masks = rng.random((n, model.action_space.n)) < 0.6
    masks[np.arange(n), rng.integers(model.action_space.n, size=n)] = True
    return obs, masks


def test_the_option_off_builds_the_plain_learner_and_on_the_subclass():
    assert type(built([])) is LearnerPPO  # off: train.py's learner without the magnet
    model = built(MMD)
    assert isinstance(model, MagnetPPO)
    assert (model.magnet_kl, model.magnet_update) == (0.1, 3)


def test_kl_is_zero_when_the_magnet_is_the_policy_and_positive_otherwise():
    model = built(MMD)  # the first magnet is a copy of the initial policy
    obs, masks = batch(model)
    current = model.policy.get_distribution(obs, action_masks=masks)
    magnet = model.magnet.get_distribution(obs, action_masks=masks)
    assert torch.equal(masked_kl(current, magnet), torch.zeros(len(obs)))

    with torch.no_grad():  # move the magnet: the KL is positive and matches the definition
        for parameter in model.magnet.action_net.parameters():
            parameter.add_(torch.randn_like(parameter))
    magnet = model.magnet.get_distribution(obs, action_masks=masks)
    kl = masked_kl(current, magnet)
    p = current.distribution.probs.detach().numpy()
    q = magnet.distribution.probs.detach().numpy()
    legal = masks & (p > 0)
    expected = [
        float(np.sum(p[i][legal[i]] * np.log(p[i][legal[i]] / q[i][legal[i]])))
        for i in range(len(p))
    ]
    assert np.all(kl.detach().numpy() > 0)
    np.testing.assert_allclose(kl.detach().numpy(), expected, rtol=1e-4, atol=1e-6)
    assert np.all(p[~masks] == 0)  # illegal actions carry no probability under the mask


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        (["ppo.magnet_kl=0.1", "ppo.ent_coef=0"], "needs ppo.ent_coef > 0"),
        (["ppo.magnet_kl=-1"], "ppo.magnet_kl must be >= 0"),
        (["ppo.magnet_update=0"], "ppo.magnet_update must be between 1"),
    ],
)
def test_bad_magnet_settings_are_one_line_errors(overrides, match):
    with pytest.raises(ValueError, match=match):
        load_config(SMOKE, overrides)


def policy_weights(path: Path) -> bytes:
    with zipfile.ZipFile(path) as archive:
        return archive.read("policy.pth")


@pytest.mark.slow
def test_a_tiny_mmd_run_trains_differently_saves_its_magnet_and_resumes(tmp_path, monkeypatch):
    steps = ["--set", "total_timesteps=2048", "--set", "eval.every=0"]

    def run(name: str, overrides: list[str]) -> Path:
        sets = [arg for item in overrides for arg in ("--set", item)]
        code = train.main(["--config", str(SMOKE), "--out", str(tmp_path / name), *steps, *sets])
        assert code == 0
        return tmp_path / name / "model.zip"

    plain = run("plain", [])
    assert policy_weights(plain) == policy_weights(run("off", ["ppo.magnet_update=3"]))
    mmd = run("mmd", MMD)
    assert policy_weights(mmd) != policy_weights(plain)  # the KL term changes the updates
    with zipfile.ZipFile(mmd) as archive:
        assert "magnet.pth" in archive.namelist()
    from agents import make_agent, table_info

    make_agent(str(mmd), table_info("put", num_players=2), 0)  # plays like any model

    # A checkpoint after the first rollout (512 steps) still holds the first magnet, the
    # initial policy; --resume restores it rather than restarting it from the current policy.
    out = tmp_path / "interrupted"
    real_save = train.save_checkpoint

    def save_then_crash(*a, **kw):
        real_save(*a, **kw)
        raise KeyboardInterrupt

    monkeypatch.setattr(train, "save_checkpoint", save_then_crash)
    args = ["--config", str(SMOKE), "--out", str(out), *steps, "--set", MMD[0], "--set", MMD[1]]
    assert train.main(args) == 130
    monkeypatch.undo()
    initial = built(MMD)
    resumed = built(MMD)
    load_parameters(resumed, out / "checkpoint.zip")
    for name, tensor in initial.policy.state_dict().items():
        assert torch.equal(resumed.magnet.state_dict()[name], tensor)
    assert any(
        not torch.equal(resumed.policy.state_dict()[k], v)
        for k, v in initial.policy.state_dict().items()
    )
