"""The project's environments in PettingZoo's and gymnasium's registries.

``import brag_env`` (or any env module) registers every project env, lazily by entry-point
string, so nothing heavier than pettingzoo and gymnasium is imported::

    import brag_env, gymnasium, pettingzoo
    env = pettingzoo.make("aec", "brag_env/brag_v1", num_players=3)
    selfplay = gymnasium.make("brag_env/BragVsPool-v0", opponents=["random"])

``make`` returns the same object as ``brag_v1.env(num_players=3)``. PettingZoo releases before
the registry existed (< 1.26) have no ``pettingzoo.register``: registering is then a no-op and
``brag_v1.env()`` is the way in, as for PettingZoo's own envs.
"""

from __future__ import annotations

import gymnasium
import pettingzoo

from brag_env.games import GAMES

NAMESPACE = "brag_env"

# env name -> module holding its env()/raw_env(), from the game table (brag_env/games.py).
ENVIRONMENTS: dict[str, str] = {
    name: module for spec in GAMES.values() for name, module in spec.envs.items()
}

# gymnasium id -> entry point of the single-agent self-play envs (brag_env/selfplay.py).
GYMNASIUM_ENVIRONMENTS: dict[str, str] = {
    spec.selfplay_id: spec.selfplay_entry for spec in GAMES.values()
}


def env_id(name: str) -> str:
    """The registry id of an env name, e.g. ``"brag_env/brag_v1"``."""
    return f"{NAMESPACE}/{name}"


def register_envs() -> None:
    """Register every env of both tables (idempotent)."""
    for gym_id, entry_point in GYMNASIUM_ENVIRONMENTS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(id=gym_id, entry_point=entry_point, disable_env_checker=True)
    if not hasattr(pettingzoo, "register"):
        return
    for name, module in ENVIRONMENTS.items():
        if not _registered(env_id(name)):
            pettingzoo.register("aec", env_id(name), entry_point=f"{module}:env")


def _registered(full_id: str) -> bool:
    try:
        pettingzoo.spec("aec", full_id)
    except Exception:  # the registry's NameNotFound / NamespaceNotFound / VersionNotFound
        return False
    return True


register_envs()
