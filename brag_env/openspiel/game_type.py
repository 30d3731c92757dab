"""The ``pyspiel.GameType`` both card games share: sequential, explicit chance deals, imperfect
information, zero-sum, payoffs at the end of the hand (or match)."""

from __future__ import annotations

from typing import Any

import pyspiel


def card_game_type(
    short_name: str,
    long_name: str,
    parameters: dict[str, Any],
    max_players: int,
    information_state_tensor: bool = True,
) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=information_state_tensor,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=parameters,
    )
