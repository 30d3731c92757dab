"""A tiny untrained MaskablePPO snapshot shaped like a VecEnv, saved with its run config."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def save_tiny_snapshot(folder: Path, venv: Any, game: str) -> Path:
    """``folder/snap.zip`` (net [16], seed 0) beside a ``config.yaml`` for a 2-player ``game``."""
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO

    class Shaped(gym.Env):
        observation_space = venv.observation_space
        action_space = venv.action_space

    torch.manual_seed(0)
    model = MaskablePPO("MlpPolicy", Shaped(), policy_kwargs={"net_arch": [16]}, device="cpu")
    model.save(folder / "snap.zip")
    (folder / "config.yaml").write_text(f"game: {game}\nenv:\n  num_players: 2\n")
    return folder / "snap.zip"
