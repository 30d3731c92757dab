"""What ``BatchedBrag`` covers, and whether its compiled kernels load here, without Numba.

The options check runs wherever a run is validated (``train.py``'s config, ``evaluate.py``'s
engine choice); importing ``brag_env/brag/batched.py`` for it would import Numba (most of a
second) and, on an install whose package directory is read-only with no writable cache
(``NUMBA_CACHE_DIR``), fail. ``batched_brag_unavailable`` is the one place that tries that
import and turns its failure into one line.
"""

from __future__ import annotations

import functools

from brag_env.batched_input import engine_unavailable
from brag_env.brag.rules import BragConfig

THREE_CARDS = 3  # B22: the batched engine deals Three-card Brag only


def check_batched_brag(config: BragConfig) -> None:
    """Raise the one-line ``ValueError`` for an option ``BatchedBrag`` does not cover."""
    if config.cards_dealt != THREE_CARDS:
        raise ValueError(
            f"BatchedBrag does not support cards_dealt={config.cards_dealt} "
            "(Three-card Brag only); use vec_env: dummy"
        )
    if config.perfect_recall:
        raise ValueError(
            "BatchedBrag does not support perfect_recall (the default observation only); "
            "use vec_env: dummy"
        )
    if config.wild_cards != "none":  # B25: strength, category and percentile are 3 tables here
        raise ValueError(
            f"BatchedBrag does not support wild_cards={config.wild_cards!r}; use vec_env: dummy"
        )


@functools.cache
def batched_brag_unavailable() -> str | None:
    """Why the compiled batched engine cannot load in this process (one line), or None."""
    return engine_unavailable("brag_env.brag.batched", "Brag")
