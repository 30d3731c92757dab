"""Test helper of the wrapper fuzz tests: the move to try next, mostly legal, sometimes not."""

from __future__ import annotations

from typing import Any

import numpy as np


def fuzz_move(
    rng: np.random.Generator,
    u: float,
    mask: np.ndarray,
    n_actions: int,
    dead: bool,
    cuts: tuple[float, float, float],
    dead_move: int,
    beyond: int,
) -> Any:
    """The move for a uniform draw ``u``: a dead agent's ``None`` (1 in 10: ``dead_move``);
    else below each of ``cuts`` in turn an out-of-range number (up to ``beyond`` past the
    last action), ``None``, an illegal action; otherwise a legal one, 1 in 10 as np.int64."""
    out_of_range, none, illegal = cuts
    if dead:
        return None if u < 0.9 else dead_move
    if u < out_of_range:
        return int(rng.choice([-1, n_actions, n_actions + beyond]))
    if u < none:
        return None
    if u < illegal and not mask.all():
        return int(rng.choice(np.flatnonzero(mask == 0)))
    action = int(rng.choice(np.flatnonzero(mask)))
    return np.int64(action) if u > 0.9 else action
