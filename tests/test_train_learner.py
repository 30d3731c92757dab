"""train.py's learner (brag_env/training/learner.py): the once-normalised masked distribution
against sb3-contrib's, its sampler, the done rows' info buffer against SB3's walk."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.distributions import (
    MaskableCategorical,
    MaskableCategoricalDistribution,
)
from test_train_mmd import SMOKE, built

from brag_env.training import cli as train
from brag_env.training import learner
from brag_env.training.checkpoint import load_parameters, save_model
from brag_env.training.config import load_config
from brag_env.training.envs import make_vec_env
from brag_env.training.learner import (
    NOT_FINITE_PROBABILITIES,
    LearnerPPO,
    MaskedOnceCategorical,
    MaskedOnceCategoricalDistribution,
    use_masked_once,
)


def logits_and_masks(rows: int = 256, actions: int = 29, seed: int = 0, scale: float = 4.0):
    """Network-like logits (some large) and masks with one to all actions legal per row."""
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(rows, actions, generator=g) * scale
    masks = torch.rand(rows, actions, generator=g) < torch.rand(rows, 1, generator=g)
    masks[torch.arange(rows), torch.randint(actions, (rows,), generator=g)] = True
    masks[0] = True  # a row with every action legal
    return logits, masks


@pytest.mark.parametrize("masked", [True, False])
def test_same_probabilities_log_probs_entropy_and_gradients_as_sb3_contrib(masked):
    raw, masks = logits_and_masks()
    ours_raw, theirs_raw = raw.clone().requires_grad_(), raw.clone().requires_grad_()
    ours = MaskedOnceCategorical(ours_raw)
    theirs = MaskableCategorical(logits=theirs_raw)
    if masked:
        ours.apply_masking(masks)
        theirs.apply_masking(masks)
    legal = masks if masked else torch.ones_like(masks)
    actions = torch.multinomial(legal.float(), 1, generator=torch.Generator().manual_seed(1))
    actions = actions.squeeze(1)
    torch.testing.assert_close(ours.probs, theirs.probs, rtol=1e-5, atol=1e-6)
    assert torch.all(ours.probs[~legal] == 0)  # a masked action has probability exactly 0
    torch.testing.assert_close(ours.logits[legal], theirs.logits[legal], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(ours.log_prob(actions), theirs.log_prob(actions))
    torch.testing.assert_close(ours.entropy(), theirs.entropy(), rtol=1e-5, atol=1e-6)
    assert torch.equal(ours.probs.argmax(-1), theirs.probs.argmax(-1))
    # what PPO's loss backpropagates: log-probabilities and entropy
    (ours.log_prob(actions).sum() + 0.3 * ours.entropy().sum()).backward()
    (theirs.log_prob(actions).sum() + 0.3 * theirs.entropy().sum()).backward()
    torch.testing.assert_close(ours_raw.grad, theirs_raw.grad, rtol=1e-4, atol=1e-5)


def test_masking_again_or_clearing_it_starts_from_the_raw_logits():
    raw, masks = logits_and_masks()
    dist = MaskedOnceCategorical(raw, masks)
    assert torch.all(dist.probs[~masks] == 0)  # read: the lazy probs are cached now
    other = ~masks | (masks.sum(1, keepdim=True) == masks.shape[1])
    dist.apply_masking(other)
    assert torch.all(dist.probs[~other] == 0)  # not the first masking's cached probs
    dist.apply_masking(None)
    torch.testing.assert_close(dist.probs, torch.softmax(raw, -1))
    assert dist.masks is None


def test_samples_follow_the_probabilities_and_never_a_masked_action():
    torch.manual_seed(0)
    raw = torch.tensor([[3.0, -2.0, 0.0, 1.0, -30.0, 0.5]]).repeat(40_000, 1)
    masks = torch.tensor([[True, False, True, True, True, False]]).repeat(40_000, 1)
    dist = MaskedOnceCategorical(raw, masks)
    picks = dist.sample()
    assert picks.shape == (40_000,) and picks.dtype == torch.int64
    counts = torch.bincount(picks, minlength=6).double()
    assert counts[~masks[0]].sum() == 0
    p = dist.probs[0].double()
    sd = torch.sqrt(40_000 * p * (1 - p))
    assert torch.all((counts - 40_000 * p).abs() <= 5 * sd + 1)  # fixed seed: deterministic
    # the multi-sample form is the parent's (torch.multinomial)
    assert dist.sample(torch.Size([2])).shape == (2, 40_000)


def test_a_uniform_at_the_top_picks_the_last_legal_action_not_past_it(monkeypatch):
    # every legal probability far above float32's step near 1 (the last one's adds to the sum)
    raw, masks = logits_and_masks(rows=64, scale=1.0)
    masks[:, -1] = False  # so that the row's last action is never its last legal one
    masks[0, :-1] = True
    ones = torch.ones  # u = total before the clamp: the largest a float draw can round to
    monkeypatch.setattr(learner.torch, "rand", lambda shape, **kw: ones(shape, **kw))
    picks = MaskedOnceCategorical(raw, masks).sample()
    last_legal = masks.shape[1] - 1 - masks.flip(1).int().argmax(1)
    assert torch.equal(picks, last_legal)


def test_a_uniform_of_zero_picks_the_first_legal_action_not_a_masked_one(monkeypatch):
    # torch.rand can return exactly 0; the masked actions before the first legal one then
    # have running sums equal to u, so only "sum <= u" skips them
    raw, masks = logits_and_masks(rows=64, scale=1.0)
    masks[:, 0] = False  # the row's first action is never its first legal one
    masks[0, 1:] = True
    zeros = torch.zeros
    monkeypatch.setattr(learner.torch, "rand", lambda shape, **kw: zeros(shape, **kw))
    picks = MaskedOnceCategorical(raw, masks).sample()
    assert torch.equal(picks, masks.int().argmax(1))


def test_non_finite_probabilities_fail_with_torch_multinomials_error(monkeypatch):
    """How train.py tells a diverged run (``diverged_as_error`` matches the message), with
    the argument checks off as ``build_model`` sets them."""
    monkeypatch.setattr(torch.distributions.Distribution, "_validate_args", False)
    raw = torch.tensor([[0.0, 1.0, -1.0], [0.0, float("nan"), 1.0]])
    dist = MaskedOnceCategorical(raw, torch.tensor([[True, True, False], [True, True, True]]))
    with pytest.raises(RuntimeError, match=re.escape(NOT_FINITE_PROBABILITIES)):
        dist.sample()
    with pytest.raises(RuntimeError, match=re.escape(NOT_FINITE_PROBABILITIES)):
        torch.multinomial(dist.probs, 1, True)  # the parent's sampler says the same


def test_same_torch_seed_same_samples():
    raw, masks = logits_and_masks()
    dist = MaskedOnceCategorical(raw, masks)
    torch.manual_seed(5)
    a = dist.sample()
    torch.manual_seed(5)
    assert torch.equal(a, dist.sample())


def test_build_model_gives_the_learner_and_the_magnet_the_once_normalised_distribution():
    model = built([])
    assert type(model) is LearnerPPO
    assert type(model.policy.action_dist) is MaskedOnceCategoricalDistribution
    magnet = built(["ppo.magnet_kl=0.1"])
    for policy in (magnet.policy, magnet.magnet):
        assert type(policy.action_dist) is MaskedOnceCategoricalDistribution
    obs = torch.as_tensor(np.stack([model.observation_space.sample() for _ in range(16)]))
    masks = np.ones((16, model.action_space.n), bool)
    masks[:, ::2] = False
    dist = model.policy.get_distribution(obs.float(), action_masks=masks)
    assert type(dist.distribution) is MaskedOnceCategorical
    assert torch.all(dist.distribution.probs[:, ::2] == 0)
    with pytest.raises(TypeError, match="categorical"):
        use_masked_once(model.policy)  # already replaced: refused, not wrapped twice


def test_the_action_layer_and_initial_weights_are_sb3_contribs():
    cfg = load_config(SMOKE, [])
    venv = make_vec_env(cfg, seed=0)
    try:
        ours = train.build_model(cfg, venv, seed=0).policy.state_dict()
        plain = MaskablePPO(
            "MlpPolicy",
            venv,
            seed=0,
            policy_kwargs={
                "net_arch": {"pi": list(cfg.ppo.net_arch), "vf": list(cfg.ppo.net_arch)},
                "activation_fn": torch.nn.Tanh,
            },
        )
        assert type(plain.policy.action_dist) is MaskableCategoricalDistribution
        theirs = plain.policy.state_dict()
    finally:
        venv.close()
    assert ours.keys() == theirs.keys()
    assert all(torch.equal(ours[k], theirs[k]) for k in ours)


def test_same_seed_trains_the_same_weights_twice():
    cfg = load_config(SMOKE, ["vec_env=batched"])

    def trained() -> dict:
        venv = make_vec_env(cfg, seed=0)
        try:
            model = train.build_model(cfg, venv, seed=0)
            model.learn(1024)
        finally:
            venv.close()
        return model.policy.state_dict()

    a, b = trained(), trained()
    assert all(torch.equal(a[k], b[k]) for k in a)


def recorded_infos(steps: int = 40) -> list[tuple[list[dict], np.ndarray]]:
    """Infos and dones of a monitored batched venv under random legal actions."""
    cfg = load_config(SMOKE, ["vec_env=batched", "n_envs=32"])
    venv = make_vec_env(cfg, seed=0)
    rng = np.random.default_rng(0)
    venv.reset()
    out = []
    try:
        for _ in range(steps):
            masks = np.stack(venv.env_method("action_masks"))
            actions = [rng.choice(np.flatnonzero(m)) for m in masks]
            _, _, dones, infos = venv.step(np.array(actions))
            out.append((infos, dones))
    finally:
        venv.close()
    return out


def test_done_rows_info_buffer_fills_what_sb3s_walk_fills():
    steps = recorded_infos()
    assert sum(int(d.sum()) for _, d in steps) > 20  # episodes ended along the way
    for infos, dones in steps[::3]:  # some not done with a success flag: SB3 skips those
        for info, done in zip(infos, dones, strict=True):
            info["is_success"] = bool(done) or len(info) % 2 == 0
    ours, theirs = built([]), built([])
    for model in (ours, theirs):
        model._setup_learn(10)  # the buffers learn() starts with
    for infos, dones in steps:
        ours._update_info_buffer(infos, dones)
        MaskablePPO._update_info_buffer(theirs, infos, dones)
    assert list(ours.ep_info_buffer) == list(theirs.ep_info_buffer)
    assert len(ours.ep_info_buffer) > 20
    assert list(ours.ep_success_buffer) == list(theirs.ep_success_buffer)
    assert len(ours.ep_success_buffer) > 0
    # without dones every info counts, as in SB3
    infos = [{"episode": {"r": 1.0}}, {}, {"episode": {"r": -1.0}, "is_success": True}]
    ours._update_info_buffer(infos)
    assert list(ours.ep_info_buffer)[-2:] == [{"r": 1.0}, {"r": -1.0}]


def test_a_checkpoint_of_plain_maskable_ppo_loads_into_the_learner(tmp_path):
    """--resume of a run checkpointed before LearnerPPO: the zip holds weights and optimizer
    state only, and the learner's parameters are sb3-contrib's, so they load exactly."""
    cfg = load_config(SMOKE, [])
    venv = make_vec_env(cfg, seed=0)
    try:
        plain = MaskablePPO(
            "MlpPolicy",
            venv,
            seed=1,  # other weights than build_model's seed 0 below
            policy_kwargs={
                "net_arch": {"pi": list(cfg.ppo.net_arch), "vf": list(cfg.ppo.net_arch)},
                "activation_fn": torch.nn.Tanh,
            },
        )
        path = save_model(plain, tmp_path / "checkpoint.zip", cfg.game, cfg.env, {"steps": 0})
        ours = train.build_model(cfg, venv, seed=0)
        load_parameters(ours, path)
    finally:
        venv.close()
    theirs = plain.policy.state_dict()
    assert all(torch.equal(v, theirs[k]) for k, v in ours.policy.state_dict().items())
    assert type(ours.policy.action_dist) is MaskedOnceCategoricalDistribution
