"""
# Three-Card Brag, original rules (`brag_v0`)

| Import             | `from brag_env import brag_v0`                                     |
|--------------------|--------------------------------------------------------------------|
| Creation           | `pettingzoo.make("aec", "brag_env/brag_v0")` (see `brag_env.registry`) |
| Actions            | Discrete(6 + len(raise_sizes)): Discrete(7) by default             |
| Observation Shape  | (size,) float32: 488 for 4 players with the default options        |

`brag_v0` is kept so that figures measured on it can be reproduced: it is `brag_v1` (read that
module's docstring for the spaces, rewards and arguments) under the ORIGINAL rules, with the
same action ids and the same observation vector as before `brag_v1` existed:

- `cover_pot=False` (B16, original ruling): a player too short to stay in has to fold; there
  is no `cover` action and no cover block in the observation;
- `blind_alone="wins"` and `unopened_pot="wins"` (B15): a pot never carries;
- `shuffle` is "after_prial" or "every_hand" (B18);
- `cards_dealt=3`: Four- and Five-card Brag (B22) are `brag_v1` only;
- `wild_cards="none"`: American Brag's wild cards (B25) are `brag_v1` only.

Asking `brag_v0` for any other value of those options (or passing a `BragConfig` that has one)
raises `ValueError` naming the field: use `brag_v1`. `tests/test_brag_v0_golden.py` replays 300
seeded random games recorded before `brag_v1` and checks every observation, mask, reward and
action bit for bit.

One rule fix of `brag_v1` applies here too (B8/B16): with `ante_mode="after_prial"`, a player
with fewer chips than the ante now sits out only when an ante is due. It changes nothing unless
`ante` >= 2 (with an ante of 1, "fewer chips than the ante" means no chips at all).

### Version History

* v0: initial release (from `brag_v1` on: the original rules only, as documented above)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from brag_env import brag_v1
from brag_env.aec_wrappers import FastOrderEnforcingWrapper, classic_wrap
from brag_env.brag.observation import decode_observation
from brag_env.brag.rules import BragConfig

__all__ = ["BragV0Config", "decode_observation", "env", "raw_env"]

# option -> the only value brag_v0 has (the original rules).
_ORIGINAL = {
    "cover_pot": False,
    "blind_alone": "wins",
    "unopened_pot": "wins",
    "cards_dealt": 3,
    "wild_cards": "none",
}


@dataclass(frozen=True)
class BragV0Config(BragConfig):
    """``BragConfig`` with the original rules' defaults, refusing what ``brag_v0`` lacks."""

    cover_pot: bool = False  # B16, original ruling: the short player must fold

    def __post_init__(self) -> None:
        super().__post_init__()
        for name, value in _ORIGINAL.items():
            if getattr(self, name) != value:
                raise ValueError(
                    f"{name}: brag_v0 has the original rules only ({name}={value!r}); "
                    f"use brag_v1 for {name}={getattr(self, name)!r}"
                )
        if self.shuffle == "after_prial_or_cycle":
            raise ValueError(
                "shuffle: brag_v0 has 'after_prial' and 'every_hand' only; use brag_v1 for "
                "'after_prial_or_cycle'"
            )


def env(**kwargs: Any) -> FastOrderEnforcingWrapper:
    """``brag_v1.env`` under the original rules (see the module docstring)."""
    raw = raw_env(**kwargs)
    return classic_wrap(raw, illegal_reward=-float(raw.config.starting_chips))


class raw_env(brag_v1.raw_env):
    """``brag_v1.raw_env`` under the original rules (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {**brag_v1.raw_env.metadata, "name": "brag_v0"}
    config_class = BragV0Config

    def __init__(self, config: Any = None, *args: Any, **kwargs: Any) -> None:
        if isinstance(config, BragConfig) and not isinstance(config, BragV0Config):
            config = BragV0Config.from_dict(config.to_dict())  # refuses v1-only rules
        super().__init__(config, *args, **kwargs)
