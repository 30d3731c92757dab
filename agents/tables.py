"""Build the public ``TableInfo`` agents need, from an env or from a game name and options."""

from __future__ import annotations

import functools
import importlib
from typing import Any

from agents.base import TableInfo
from brag_env.games import game_of_env, game_spec
from brag_env.registry import ENVIRONMENTS


def table_info_from_env(env: Any) -> TableInfo:
    """The ``TableInfo`` of a ``brag_v0``/``brag_v1``/``put_v0``/``put_v1``/``put_v2`` env (wrapped
    or raw)."""
    raw = env.unwrapped
    name = raw.metadata.get("name")
    spec = game_of_env(name) if isinstance(name, str) else None
    if spec is None:
        raise ValueError(f"unknown env {name!r}; expected one of {', '.join(ENVIRONMENTS)}")
    module = importlib.import_module(spec.envs[name])
    config = raw.config
    first = raw.possible_agents[0]
    return TableInfo(
        game=spec.name,
        num_players=len(raw.possible_agents),
        action_names=tuple(raw.action_names),
        observation_shape=tuple(raw.observation_space(first)["observation"].shape),
        config=config,
        decode=functools.partial(module.decode_observation, config=config),
    )


def table_info(game: str, **options: Any) -> TableInfo:
    """The ``TableInfo`` of a table of ``game`` (a name of brag_env/games.py) with env
    ``options``, on the game's default env."""
    env = importlib.import_module(game_spec(game).env_module).raw_env(**options)
    try:
        return table_info_from_env(env)
    finally:
        env.close()
