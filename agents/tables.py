"""Build the public ``TableInfo`` agents need, from an env or from a game name and options."""

from __future__ import annotations

import functools
import importlib
from typing import Any

from agents.base import TableInfo

# env metadata name -> (game name, env module)
_ENV_MODULES = {
    "brag_v0": ("brag", "brag_env.brag_v0"),
    "brag_v1": ("brag", "brag_env.brag_v1"),
    "brag7_v0": ("brag7", "brag_env.brag7_v0"),
    "put_v0": ("put", "brag_env.put_v0"),
    "put_v1": ("put", "brag_env.put_v1"),
    "put_v2": ("put", "brag_env.put_v2"),
}
# The env of a game's tables when only the game is named (evaluation, play, training): put_v1,
# whose observation the shipped Put models read (docs/envs.md: put_v2 is opt-in for now).
_GAME_MODULES = {
    "brag": "brag_env.brag_v1",
    "put": "brag_env.put_v1",
    "brag7": "brag_env.brag7_v0",
}


def table_info_from_env(env: Any) -> TableInfo:
    """The ``TableInfo`` of a ``brag_v0``/``brag_v1``/``put_v0``/``put_v1``/``put_v2`` env (wrapped
    or raw)."""
    raw = env.unwrapped
    name = raw.metadata.get("name")
    if name not in _ENV_MODULES:
        raise ValueError(f"unknown env {name!r}; expected one of {', '.join(_ENV_MODULES)}")
    game, module_name = _ENV_MODULES[name]
    module = importlib.import_module(module_name)
    config = raw.config
    first = raw.possible_agents[0]
    return TableInfo(
        game=game,
        num_players=len(raw.possible_agents),
        action_names=tuple(raw.action_names),
        observation_shape=tuple(raw.observation_space(first)["observation"].shape),
        config=config,
        decode=functools.partial(module.decode_observation, config=config),
    )


def table_info(game: str, **options: Any) -> TableInfo:
    """The ``TableInfo`` of a table of ``game`` ("brag" or "put") with env ``options``."""
    module_name = _GAME_MODULES.get(str(game).lower())
    if module_name is None:
        raise ValueError(f"unknown game {game!r}; games: {', '.join(_GAME_MODULES)}")
    env = importlib.import_module(module_name).raw_env(**options)
    try:
        return table_info_from_env(env)
    finally:
        env.close()
