"""Magnetic mirror descent (MMD) for the PPO learner: a reverse-KL pull toward a magnet policy.

Sokota et al., "A Unified Approach to Reinforcement Learning, Quantal Response Equilibria, and
Two-Player Zero-Sum Games" (ICLR 2023) regularise each policy update with an entropy bonus and
a penalty ``KL(pi || magnet)``. With a fixed magnet the iterates approach a regularised
(quantal response) equilibrium of a two-player zero-sum game; moving the magnet toward the
iterates moves that fixed point toward a Nash equilibrium. Here the per-state objective of an
update is

    PPO clipped surrogate + ent_coef * H(pi) - magnet_kl * KL(pi || magnet)

and every ``magnet_update`` rollouts the magnet becomes a copy of the current policy (a magnet
that moves in steps). The first magnet is the initial policy (near uniform over legal actions).

Only the regulariser changes, so the override is small: for the duration of ``train()`` the
policy's ``evaluate_actions`` (which SB3 calls once per mini-batch to get values, log-probs and
entropies) returns ``H(pi) - (magnet_kl / ent_coef) * KL(pi || magnet)`` as its entropy, which
SB3's loss multiplies by ``-ent_coef``: that adds exactly ``magnet_kl * KL`` to the loss. Hence
``magnet_kl > 0`` needs ``ent_coef > 0`` (the config checks it). The KL is exact (categorical,
both distributions masked with the rollout's legal-action masks).

The magnet's weights are saved in the model zip as ``magnet.pth`` (SB3's ``set_parameters``
restores them on ``--resume``); ``agents`` loads only ``policy.pth``, so an MMD model plays like
any other. With ``magnet_kl = 0`` ``build_model`` uses plain ``LearnerPPO``.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch

from brag_env.training.learner import LearnerPPO


def masked_kl(current: Any, magnet: Any) -> torch.Tensor:
    """``KL(current || magnet)`` per state, for two masked categorical distributions (SB3's
    ``MaskableCategoricalDistribution``). Masked actions have probability 0 under both (their
    logits are pushed to a large negative number), so they add 0."""
    p = current.distribution.probs
    log_p = current.distribution.logits  # normalized log-probabilities
    log_q = magnet.distribution.logits
    return (p * (log_p - log_q)).sum(dim=-1)


class MagnetPPO(LearnerPPO):
    """``LearnerPPO`` (train.py's learner) with MMD's magnet term (module docstring). Extra
    constructor arguments: ``magnet_kl`` (the KL coefficient, > 0) and ``magnet_update``
    (rollouts between moves)."""

    def __init__(self, *args: Any, magnet_kl: float, magnet_update: int, **kwargs: Any) -> None:
        if magnet_kl <= 0 or magnet_update < 1:
            raise ValueError("MagnetPPO needs magnet_kl > 0 and magnet_update >= 1")
        if kwargs.get("ent_coef", 0.0) <= 0:
            raise ValueError("MagnetPPO adds its KL term through the entropy term: ent_coef > 0")
        self.magnet_kl = float(magnet_kl)
        self.magnet_update = int(magnet_update)
        super().__init__(*args, **kwargs)

    def _setup_model(self) -> None:
        super()._setup_model()
        self.magnet = copy.deepcopy(self.policy)  # frozen between moves: no optimizer steps it
        self.magnet.set_training_mode(False)
        for parameter in self.magnet.parameters():
            parameter.requires_grad_(False)

    def _get_torch_save_params(self) -> tuple[list[str], list[str]]:
        state_dicts, tensors = super()._get_torch_save_params()
        return [*state_dicts, "magnet"], tensors  # SB3 then leaves it out of "data"

    def train(self) -> None:
        policy = self.policy
        plain = policy.evaluate_actions
        weight = self.magnet_kl / float(self.ent_coef)
        kls: list[float] = []

        def with_magnet(obs: Any, actions: Any, action_masks: Any = None) -> tuple[Any, ...]:
            values, log_prob, entropy = plain(obs, actions, action_masks=action_masks)
            current = policy.get_distribution(obs, action_masks=action_masks)
            with torch.no_grad():
                magnet = self.magnet.get_distribution(obs, action_masks=action_masks)
            kl = masked_kl(current, magnet)
            kls.append(float(kl.detach().mean()))
            return values, log_prob, entropy - weight * kl

        policy.evaluate_actions = with_magnet  # type: ignore[method-assign]
        try:
            super().train()
        finally:
            del policy.evaluate_actions  # back to the class's method (saved models stay plain)
        self.logger.record("train/magnet_kl", float(np.mean(kls)) if kls else 0.0)
        rollout = self.num_timesteps // (self.n_steps * self.n_envs)  # rollouts done, resumes too
        if rollout % self.magnet_update == 0:
            self.magnet.load_state_dict(policy.state_dict())
