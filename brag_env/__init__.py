"""brag-env: PettingZoo environments for Three-Card Brag and Put.

Importing the package registers its envs: ``pettingzoo.make("aec", "brag_env/brag_v1")``,
``pettingzoo.make("aec", "brag_env/put_v1")`` (``put_v2``: also when each Put was called),
``pettingzoo.make("aec", "brag_env/brag7_v0")`` (Seven-card Brag) and the self-play envs
``gymnasium.make("brag_env/BragVsPool-v0")`` / ``"brag_env/PutVsPool-v0"`` /
``"brag_env/Brag7VsPool-v0"``.
"""

__version__ = "0.1.0"

from brag_env import registry as _registry  # noqa: F401  (registers the envs)
