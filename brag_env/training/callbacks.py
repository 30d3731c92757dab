"""SB3 callbacks that act between PPO updates: snapshots, evaluations, checkpoints.

``model.learn`` runs the whole run in one call (so SB3's ``progress_remaining`` and with it the
learning-rate and clip-range schedules are right); these callbacks do the periodic work. SB3 has
no "after the update" event, so ``EverySteps`` acts at the start of the next rollout and at the end
of training: both see the weights after the update, and ``model.num_timesteps`` counts the
steps collected so far (whole rollouts).
"""

from __future__ import annotations

from collections.abc import Callable

from stable_baselines3.common.callbacks import BaseCallback


class EverySteps(BaseCallback):
    """Call ``action(step)`` after each PPO update that crosses a multiple of ``every`` steps.

    ``every = 0`` never fires on multiples. At the last update (``step >= total``) it fires only
    with ``at_end`` (a checkpoint) whether or not a multiple was crossed; without it (a snapshot,
    a periodic evaluation: the final model gets its own) never.
    """

    def __init__(
        self, every: int, total: int, action: Callable[[int], None], at_end: bool = False
    ) -> None:
        super().__init__()
        self.every, self.total, self.action, self.at_end = every, total, action, at_end
        self.seen = 0

    def _on_training_start(self) -> None:
        self.seen = self.model.num_timesteps

    def _on_rollout_start(self) -> None:
        self._after_update()

    def _on_training_end(self) -> None:
        self._after_update()

    def _on_step(self) -> bool:
        return True

    def _after_update(self) -> None:
        before, after = self.seen, self.model.num_timesteps
        if after == before:  # the first rollout: no update yet
            return
        self.seen = after
        crossed = self.every > 0 and after // self.every > before // self.every
        if after >= self.total:
            if self.at_end:
                self.action(after)
        elif crossed:
            self.action(after)
