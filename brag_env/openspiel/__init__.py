"""brag-env's games registered with OpenSpiel (``pyspiel``), played by the project's engines.

Importing this package registers the games::

    import brag_env.openspiel  # registers "python_brag_env_brag" and the Put games
    game = pyspiel.load_game("python_brag_env_brag", {"deck_ranks": 2, "starting_chips": 6})
    hand = pyspiel.load_game("python_brag_env_put_hand", {"deck_ranks": 2})

``pyspiel`` (the ``open_spiel`` package, in the ``test`` and ``bench`` extras) is imported in
this package only. See ``docs/openspiel.md``.
"""

from __future__ import annotations

import pyspiel

from brag_env.openspiel import put as _put  # noqa: F401  registers the Put games
from brag_env.openspiel.brag import GAME_TYPE, SHORT_NAME, BragHandGame

if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, BragHandGame)

__all__ = ["SHORT_NAME", "BragHandGame"]
