"""Test helper: a Brag session dealt from a stacked deck (``scenario.stack_deck``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from brag_env.brag.game import BragGame
from brag_env.brag.rules import BragConfig
from brag_env.brag.scenario import apply_names, stack_deck


def start(
    hands: Sequence[str | None], dealer: int = 0, rest: str = "", seed: int = 0, **options: Any
) -> BragGame:
    """A session of ``len(hands)`` seats whose first deal gives ``hands[s]`` to seat ``s``
    (``rest`` below them in the deck), the config's other fields from ``options``."""
    game = BragGame(BragConfig(num_players=len(hands), **options))
    deck = stack_deck(hands, dealer, rest)
    game.new_session(np.random.default_rng(seed), deck=deck, dealer=dealer)
    return game


def fold_out(game: BragGame) -> None:
    """Play the current hand to its end by folding (taking a new hand when offered, B19)."""
    hand = game.hand_number
    while not game.session_over and game.hand_number == hand:
        apply_names(game, ["take_new_hand" if game.choosing else "fold"])
