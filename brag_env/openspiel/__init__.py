"""brag-env's games registered with OpenSpiel (``pyspiel``), played by the project's engines.

Importing this package registers the games, so ``pyspiel.load_game("python_brag_env_put_hand")``
works after ``import brag_env.openspiel``. It needs the ``open_spiel`` package (the ``test``
extra); nothing else in brag_env imports it. See ``docs/openspiel_put.md``.
"""

from brag_env.openspiel import put as _put  # noqa: F401  registers the Put games
