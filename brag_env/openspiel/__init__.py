"""brag-env games for OpenSpiel: importing this package registers them with ``pyspiel``.

    import brag_env.openspiel  # registers "python_brag_env_brag"
    game = pyspiel.load_game("python_brag_env_brag", {"deck_ranks": 2, "starting_chips": 6})

``pyspiel`` (the ``open_spiel`` package, in the ``test`` and ``bench`` extras) is imported here
and in this package only. See ``docs/openspiel.md``.
"""

from __future__ import annotations

import pyspiel

from brag_env.openspiel.brag import GAME_TYPE, SHORT_NAME, BragHandGame

if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, BragHandGame)

__all__ = ["SHORT_NAME", "BragHandGame"]
