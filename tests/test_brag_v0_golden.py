"""brag_v0 stays bit-identical (issue 11): seeded random games reproduce the recorded digests.

The fixture was recorded by ``tests/brag_v0_golden.py`` before B16 (covering the pot) and the
B15 carry options were built; ``brag_v0`` is the old rules with the old spaces, exactly.
"""

from __future__ import annotations

import json

import pytest

from brag_env import brag_v0
from tests.brag_v0_golden import FIXTURE, trajectory_digest

GAMES = json.loads(FIXTURE.read_text())["games"]


@pytest.mark.parametrize("case", range(len(GAMES)))
def test_brag_v0_golden_trajectory(case: int) -> None:
    game = GAMES[case]
    digest, steps = trajectory_digest(brag_v0, game["options"], game["seed"])
    assert (steps, digest) == (game["steps"], game["sha256"]), game
