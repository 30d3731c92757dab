"""The project's environments in PettingZoo's registry, so ``pettingzoo.make`` finds them.

Importing an env module (``from brag_env import brag_v0``) or this module registers every
project env, lazily by entry-point string (nothing else is imported)::

    import pettingzoo
    import brag_env.registry  # noqa: F401
    env = pettingzoo.make("aec", "brag_env/brag_v0", num_players=3)

``make`` returns the same object as ``brag_v0.env(num_players=3)``. PettingZoo releases before
the registry existed (< 1.26) have no ``pettingzoo.register``: registering is then a no-op and
``brag_v0.env()`` is the way in, as for PettingZoo's own envs.
"""

from __future__ import annotations

import pettingzoo

NAMESPACE = "brag_env"

# env name -> module holding its env()/raw_env(); extend this table for a new env.
ENVIRONMENTS: dict[str, str] = {
    "brag_v0": "brag_env.brag_v0",
    "put_v0": "brag_env.put_v0",
}


def env_id(name: str) -> str:
    """The registry id of an env name, e.g. ``"brag_env/brag_v0"``."""
    return f"{NAMESPACE}/{name}"


def register_envs() -> None:
    """Register every env of ``ENVIRONMENTS`` with PettingZoo (idempotent)."""
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
