"""The PPO learner train.py builds: sb3-contrib's ``MaskablePPO`` with two cheaper pieces.

- ``MaskedOnceCategorical``: the masked action distribution, normalised with one
  ``log_softmax`` of the masked logits. sb3-contrib's ``MaskableCategorical`` normalises three
  times per distribution (the raw logits, the same ones again when it clears its masks, then
  the masked ones), each a ``logsumexp``; the third one exponentiates the -1e8 of every masked
  action, where torch's CPU ``exp`` leaves its vector path (about 0.7 ms for 1,024 rows of 29
  actions against 0.04 ms for a ``log_softmax`` of the same), and its backward does so once
  more in every update. The probabilities are the same up to float rounding (log-probabilities
  within about 1e-6), not bit for bit. Its ``sample`` draws by the inverse of the cumulative
  probabilities, one uniform per row, where ``torch.multinomial`` draws one exponential per
  action: a different random stream.
- ``LearnerPPO._update_info_buffer``: SB3 looks for ``"episode"`` and ``"is_success"`` in every
  table's info at every step; both count only at a done (``VecMonitor`` writes ``"episode"``
  there alone, and SB3 reads ``"is_success"`` only there), so only the done rows are read.

So a seed trains other weights than before this module (the same seed still trains the same
weights twice); docs/performance.md compares the final evaluations before and after.
``build_model`` uses ``LearnerPPO`` (``MagnetPPO`` derives from it). Saved models are ordinary
``MaskablePPO`` zips: the distribution is not part of them, so anything that loads a model
(``agents.model``, ``MaskablePPO.load``) gets sb3-contrib's own distribution.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.distributions import (
    MaskableCategorical,
    MaskableCategoricalDistribution,
    MaybeMasks,
)

#: the logit sb3-contrib gives a masked action (its probability is then exactly 0)
MASKED_LOGIT = -1e8
#: torch.multinomial's error when a distribution's probabilities hold a NaN, an inf or a
#: negative number, which ``sample`` raises alike: how a diverged policy fails once the
#: argument checks are off (train.py's ``diverged_as_error`` turns it into one line).
NOT_FINITE_PROBABILITIES = "probability tensor contains either `inf`, `nan` or element < 0"


class MaskedOnceCategorical(MaskableCategorical):
    """``MaskableCategorical`` whose logits are ``log_softmax`` of the raw logits with the
    masked ones set to ``MASKED_LOGIT``: one normalisation per masking instead of
    sb3-contrib's ``logsumexp`` chain (module docstring). ``entropy`` (masked actions add 0),
    ``log_prob`` and ``probs`` are the parent's."""

    def __init__(self, logits: torch.Tensor, masks: MaybeMasks = None) -> None:
        self._original_logits = logits  # raw, as the network gave them
        self.apply_masking(masks)

    def apply_masking(self, masks: MaybeMasks) -> None:
        raw = self._original_logits
        if masks is None:
            self.masks = None
            masked = raw
        else:
            self.masks = torch.as_tensor(masks, dtype=torch.bool, device=raw.device).reshape(
                raw.shape
            )
            masked = raw.masked_fill(~self.masks, MASKED_LOGIT)
        self.__dict__.pop("probs", None)  # a lazy property of the previous masking
        # what Categorical.__init__ sets, without its logsumexp
        self.logits = torch.log_softmax(masked, dim=-1)
        self._param = self.logits
        self._num_events = raw.size(-1)
        torch.distributions.Distribution.__init__(self, raw.size()[:-1])

    def sample(self, sample_shape: torch.Size = torch.Size()) -> torch.Tensor:  # noqa: B008
        """One action per row by the inverse of the cumulative probabilities: one uniform a
        row from torch's global generator (``torch.multinomial``, the parent's, draws an
        exponential for every action: 1 ms against 0.16 ms for 1,024 rows of 29). The pick is
        the first action whose running sum exceeds ``u``; the sum rises only at an action of
        positive probability, so a masked one is never drawn, and ``u < total`` keeps the pick
        within the row. In float32 an action whose probability is below the sum's rounding step
        (about 6e-8 near 1) can be drawn less often than that probability, or not at all."""
        if sample_shape != torch.Size():
            return super().sample(sample_shape)
        with torch.no_grad():
            cdf = self.probs.cumsum(dim=-1)
            total = cdf[..., -1:]
            if not bool(torch.isfinite(total).all()):  # a NaN anywhere in a row reaches its sum
                raise RuntimeError(NOT_FINITE_PROBABILITIES)
            u = torch.rand(total.shape, dtype=cdf.dtype, device=cdf.device) * total
            u = torch.minimum(u, torch.nextafter(total, torch.zeros_like(total)))
            return (cdf <= u).sum(dim=-1)


class MaskedOnceCategoricalDistribution(MaskableCategoricalDistribution):
    """sb3-contrib's categorical action distribution on ``MaskedOnceCategorical``."""

    distribution: MaskedOnceCategorical

    def proba_distribution(self, action_logits: torch.Tensor) -> MaskedOnceCategoricalDistribution:
        self.distribution = MaskedOnceCategorical(action_logits.view(-1, self.action_dim))
        return self


def use_masked_once(policy: Any) -> None:
    """Give ``policy`` (a ``MaskableActorCriticPolicy`` over a ``Discrete`` action space) the
    once-normalised distribution. Its parameters are untouched: the action layer was built
    by the same ``proba_distribution_net``."""
    dist = policy.action_dist
    if type(dist) is not MaskableCategoricalDistribution:
        raise TypeError(f"expected sb3-contrib's categorical distribution, got {type(dist)}")
    policy.action_dist = MaskedOnceCategoricalDistribution(dist.action_dim)


class LearnerPPO(MaskablePPO):
    """``MaskablePPO`` with ``MaskedOnceCategorical`` and the done rows' info buffer (module
    docstring); every other computation is sb3-contrib's."""

    def _setup_model(self) -> None:
        super()._setup_model()
        use_masked_once(self.policy)

    def _update_info_buffer(
        self, infos: list[dict[str, Any]], dones: np.ndarray | None = None
    ) -> None:
        if dones is None:  # no done flags: every info may hold an episode (SB3's own walk)
            super()._update_info_buffer(infos, dones)
            return
        assert self.ep_info_buffer is not None and self.ep_success_buffer is not None
        for row in np.flatnonzero(dones).tolist():
            info = infos[row]
            episode = info.get("episode")
            if episode is not None:
                self.ep_info_buffer.append(episode)
            success = info.get("is_success")
            if success is not None:
                self.ep_success_buffer.append(success)
