"""
# Put, version 2

| Import             | `from brag_env import put_v2`                                      |
|--------------------|--------------------------------------------------------------------|
| Creation           | `pettingzoo.make("aec", "brag_env/put_v2")` (see `brag_env.registry`) |
| Actions            | Discrete(29); Discrete(30) for 4 players with an optional pass     |
| Agents             | 2, 3 or 4 (`num_players`; 4 = two partnerships)                    |
| Observation Shape  | (230,) for 2 players, (328,) for 3, (454,) for 4; float32          |
| Observation Values | as put_v1                                                          |

`brag_env.put_v2` is `brag_env.put_v1` with one change to the default observation: it also
says WHEN the Put of this hand and of the last hand was called. put_v1's vector records who
called and whether it was seen, but a Put before the first lead and a Put before the last
card look the same there, although the solver's strategy (and any equilibrium) depends on
it (P4). The rules, actions, rewards, arguments and reset options are put_v1's, documented
in `brag_env.put_v1`.

### Observation Space

The vector is put_v1's with four fields appended after `last_points` (so every put_v1 field
keeps its offset), n = `num_players`:

| Name             | Size | Contents                                                          |
|------------------|------|-------------------------------------------------------------------|
| `put_trick`      | 3    | the trick in which this hand's Put was called (zero: no Put yet)  |
| `put_turn`       | n    | how many cards of that trick were on the table then (0: the lead) |
| `last_put_trick` | 3    | the same for the last finished hand                               |
| `last_put_turn`  | n    |                                                                   |

With `perfect_recall=True` the recall block of put_v1 follows them. `put_v2.decode_observation`
adds `trick` (1-based) and `turn` to each decoded `put`.

### Version History

* v2: the default observation says when each Put was called (`put_trick`, `put_turn`, and
  the same for the last hand): 230/328/454 values (452 for four players with
  `partner_exchange="always"`). put_v1 stays loadable and unchanged for models trained on it
  (`models/put_selfplay.zip`).
* v1, v0: see `brag_env.put_v1`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from brag_env import put_v1
from brag_env.aec_wrappers import FastOrderEnforcingWrapper, classic_wrap
from brag_env.put.observation import decode_observation as _decode
from brag_env.put.rules import PutConfig
from brag_env.put_v1 import ILLEGAL_REWARD

__all__ = ["decode_observation", "env", "raw_env"]


def env(**kwargs: Any) -> FastOrderEnforcingWrapper:
    """put_v2 wrapped as put_v1 is (illegal action: -1 and the match ends)."""
    return classic_wrap(raw_env(**kwargs), illegal_reward=ILLEGAL_REWARD)


def decode_observation(vector: np.ndarray, config: PutConfig | None = None) -> dict:
    """A readable dict of a put_v2 observation vector of a game with ``config``."""
    return _decode(vector, config, put_timing=True)


class raw_env(put_v1.raw_env):
    """put_v1 with when each Put came in the observation (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {**put_v1.raw_env.metadata, "name": "put_v2"}
    put_timing: ClassVar[bool] = True
