"""The one-hand game at a match score: its tree, its payoff, and the exploitability of a profile.

The payoff solved is the points the hand scores for the non-dealer (the dealer gets the
negative; P4, P5): +1/-1 for a hand won or a Put folded, +/-``seen_put_points`` for a seen Put
won, 0 for a drawn hand (or +/-1 to the caller's opponent with ``put_draw_to_opponent``). With
``seen_put_points="game"`` a seen Put won is worth the points the winner still lacks, as the
engine credits it, so it depends on the score. Points beyond the target still count (the engine
credits them too): the payoff is the hand's points, not the chance of winning the match.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from brag_env.put.rules import PutConfig
from brag_env.put.solver.passes import (
    Payoff,
    best_response_values,
    expected_values,
    terminal_points,
)
from brag_env.put.solver.tree import PutTree


def parse_score(text: str, config: PutConfig) -> tuple[int, int]:
    """``"3-1"`` -> (3, 1): the non-dealer's points, then the dealer's; each below the target."""
    head, sep, tail = str(text).partition("-")
    try:
        score = (int(head), int(tail))
    except ValueError:
        raise ValueError(f"score {text!r}: expected A-B, e.g. 3-1") from None
    if not sep or any(not 0 <= s < config.target_points for s in score):
        raise ValueError(
            f"score {text!r} is outside the match: each player has 0..{config.target_points - 1} "
            f"points (target_points={config.target_points})"
        )
    return score


@dataclass
class HandGame:
    """Tree + payoff of the heads-up hand for ``config`` at ``score`` (non-dealer, dealer)."""

    config: PutConfig
    score: tuple[int, int]
    tree: PutTree
    points: np.ndarray

    @classmethod
    def build(cls, config: PutConfig, score: tuple[int, int] = (0, 0)) -> HandGame:
        if config.num_players != 2:
            raise ValueError(
                f"the exact solver plays heads-up Put only, but num_players is {config.num_players}"
            )
        if any(not 0 <= s < config.target_points for s in score):
            raise ValueError(f"score {score} is outside the match (target {config.target_points})")
        tree = PutTree(config.deck_ranks)
        pay = Payoff.from_config(config, score)
        return cls(config, tuple(score), tree, terminal_points(tree, pay))


@dataclass
class Exploitability:
    """Best-response values (points per hand) against a profile, per seat of the responder."""

    br_non_dealer: float  # a best response playing the non-dealer, against the profile's dealer
    br_dealer: float
    value_non_dealer: float  # what the profile scores against itself as the non-dealer
    seconds: float

    @property
    def exploitability(self) -> float:
        """Mean gain of a best response per hand, the deal alternating (zero-sum: the game
        value cancels); 0 exactly at an equilibrium. OpenSpiel's ``exploitability``."""
        return (self.br_non_dealer + self.br_dealer) / 2

    def as_dict(self) -> dict:
        return {
            "br_non_dealer": self.br_non_dealer,
            "br_dealer": self.br_dealer,
            "value_non_dealer": self.value_non_dealer,
            "exploitability": self.exploitability,
            "seconds": self.seconds,
        }


def exploitability(game: HandGame, strategy, started: float | None = None) -> Exploitability:
    t0 = time.perf_counter() if started is None else started
    br = best_response_values(game.tree, strategy, game.points)
    value = expected_values(game.tree, strategy, game.points)[0]
    return Exploitability(br[0], br[1], value, time.perf_counter() - t0)
