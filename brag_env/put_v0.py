"""
# Put, version 0 (the original rules)

`brag_env.put_v0` is `brag_env.put_v1` with the rules it had before the seed's variants were
built, kept so that results and models made with it stay reproducible: three players answer a
Put in turn (the second only after the first folded, knowing it: `put_answers="in_turn"`),
four players must each pass a card (`partner_exchange="always"`), 29 actions (no
`pass_none`), and the v0 observation (220/316/438 values). Everything else, spaces, rewards,
arguments and reset options, is documented in `brag_env.put_v1`; `tests/test_put_v0_golden.py`
checks seeded matches against trajectories recorded before v1 existed.

Those two options are fixed: giving either another value (as a keyword or in `config=`) raises
`ValueError`. Hand histories carry the two options in their `config`. A stacked `deck` that is
not cards raises `ValueError`, as in v1 (in v0 it raised `TypeError`).

`pettingzoo.make("aec", "brag_env/put_v0")` equals `put_v0.env()`.

### Version History

* v0: initial release; see `brag_env.put_v1` for v1.
"""

from __future__ import annotations

from typing import Any, ClassVar

from brag_env import put_v1
from brag_env.aec_wrappers import FastOrderEnforcingWrapper, classic_wrap
from brag_env.put.rules import LEGACY_OPTIONS, PutConfig
from brag_env.put_v1 import ILLEGAL_REWARD, decode_observation

__all__ = ["decode_observation", "env", "raw_env"]


def env(**kwargs: Any) -> FastOrderEnforcingWrapper:
    """``raw_env`` wrapped as ``put_v1.env`` wraps its own."""
    return classic_wrap(raw_env(**kwargs), illegal_reward=ILLEGAL_REWARD)


class raw_env(put_v1.raw_env):
    """``put_v1.raw_env`` with the original rules (module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {**put_v1.raw_env.metadata, "name": "put_v0"}

    def __init__(
        self,
        config: PutConfig | None = None,
        render_mode: str | None = None,
        reveal_cards: bool = False,
        **options: Any,
    ) -> None:
        given = {**(config.to_dict() if isinstance(config, PutConfig) else {}), **options}
        for name, value in LEGACY_OPTIONS.items():
            if given.get(name, value) != value:
                raise ValueError(
                    f"put_v0 plays the original rules only ({name}={value!r}); "
                    f"got {name}={given[name]!r}: use put_v1"
                )
        options = {**options, **LEGACY_OPTIONS}
        super().__init__(config, render_mode, reveal_cards, **options)
