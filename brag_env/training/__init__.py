"""Training helpers for ``train.py``: config, checkpoints, vector envs, evaluation, progress."""
