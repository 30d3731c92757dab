"""Training helpers for ``train.py``: config, checkpoints, vector envs, evaluation, progress."""

from __future__ import annotations

from brag_env.ui.cli import prog_name


def train_prog(argv: list[str] | None = None) -> str:
    """The training command's name as the user ran it, for its status lines and errors:
    ``brag-train`` (the installed command) or ``train.py`` (a clone, or a call from Python)."""
    return prog_name("brag-train", "train.py", argv)
