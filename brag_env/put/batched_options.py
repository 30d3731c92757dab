"""What ``BatchedPut`` covers, and whether its compiled kernels load here, without Numba.

The options check runs wherever a run is validated (``train.py``'s config, ``evaluate.py``'s
engine choice); importing ``brag_env/put/batched.py`` for it would import Numba. As for Brag
(``brag_env/brag/batched_options.py``), ``batched_put_unavailable`` is the one place that tries
that import and turns its failure into one line.
"""

from __future__ import annotations

import functools

from brag_env.batched_input import engine_unavailable
from brag_env.put.rules import PutConfig

HEADS_UP = 2


def check_batched_put(config: PutConfig) -> None:
    """Raise the one-line ``ValueError`` for an option ``BatchedPut`` does not cover."""
    if config.num_players != HEADS_UP:
        raise ValueError(
            f"num_players={config.num_players} is not supported by the batched Put engine "
            "(heads-up only); use put_v1"
        )


@functools.cache
def batched_put_unavailable() -> str | None:
    """Why the compiled batched engine cannot load in this process (one line), or None."""
    return engine_unavailable("brag_env.put.batched", "Put")
