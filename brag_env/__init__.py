"""brag-env: PettingZoo environments for Three-Card Brag and Put."""

__version__ = "0.1.0"

# gymnasium.make("brag_env/BragVsPool-v0") and "brag_env/PutVsPool-v0": the self-play envs.
from brag_env.selfplay import register_envs as _register_selfplay_envs

_register_selfplay_envs()
