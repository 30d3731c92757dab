"""A progress bar for training: steps done, steps per second and the latest evaluation."""

from __future__ import annotations

import sys
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback
from tqdm import tqdm


class ProgressBar(BaseCallback):
    """Counts learner steps (an SB3 callback of the run's ``model.learn`` call).

    Create it once for the run; ``set_eval`` updates the text after each evaluation and ``write``
    prints a line without breaking the bar. The bar hides itself when stderr is not a terminal
    (``disable=None``) unless ``enabled`` forces it.
    """

    def __init__(self, total: int, initial: int = 0, enabled: bool | None = None) -> None:
        super().__init__()
        self.bar = tqdm(
            total=total,
            initial=initial,
            unit="step",
            unit_scale=True,
            dynamic_ncols=True,
            disable=None if enabled is None else not enabled,
            smoothing=0.05,
        )

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        return True

    def set_eval(self, text: str) -> None:
        self.bar.set_postfix_str(f"eval: {text}", refresh=True)

    def write(self, text: str) -> None:
        tqdm.write(text)
        sys.stdout.flush()  # evaluation lines show up at once in a log file, too

    def close(self) -> None:
        self.bar.close()

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
