"""brag_v0 against PettingZoo's own conformance checks (issue 3), for 2, 4 and 8 players."""

from __future__ import annotations

import warnings

import pytest
from pettingzoo.test import api_test, seed_test

from brag_env import brag_v0

PLAYERS = [2, 4, 8]


@pytest.mark.parametrize("num_players", PLAYERS)
def test_api_test_wrapped(num_players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test passes a made-up reset option on purpose
        api_test(brag_v0.env(num_players=num_players), num_cycles=200)


@pytest.mark.parametrize("num_players", PLAYERS)
def test_api_test_raw_session(num_players: int) -> None:
    """A session of several hands (B17): rewards arrive mid-episode, to every player."""
    env = brag_v0.raw_env(num_players=num_players, hands_per_session=6, starting_chips=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=400)


@pytest.mark.parametrize("num_players", PLAYERS)
def test_seed_test(num_players: int) -> None:
    seed_test(lambda: brag_v0.env(num_players=num_players), num_cycles=100)


@pytest.mark.parametrize("num_players", PLAYERS)
def test_seed_test_session(num_players: int) -> None:
    seed_test(
        lambda: brag_v0.env(num_players=num_players, hands_per_session=5, shuffle="every_hand"),
        num_cycles=200,
    )
