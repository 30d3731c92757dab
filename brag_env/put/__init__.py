"""Put, the old English trick-and-bluff game: pure rules engine (rules P1-P9).

``PutConfig`` holds the options, ``PutGame`` is the match state machine, ``PutObserver``
encodes what one player knows. The PettingZoo environment is ``brag_env.put_v1``
(``put_v2``: its observation also says when each Put came; ``put_v0``: the original rules).
"""

from brag_env.put.game import (
    PHASE_ANSWER,
    PHASE_NAMES,
    PHASE_OVER,
    PHASE_PASS,
    PHASE_PLAY,
    HandRecord,
    PutGame,
    replay_hand,
)
from brag_env.put.observation import PutObserver, decode_observation, observation_layout
from brag_env.put.rules import (
    ACTION_NAMES,
    FOLD,
    NUM_ACTIONS,
    PASS,
    PASS_NONE,
    PLAY,
    PUT,
    PUT_RANK,
    RANK_NAMES,
    SEE,
    PutConfig,
    action_id,
)

__all__ = [
    "ACTION_NAMES",
    "FOLD",
    "NUM_ACTIONS",
    "PASS",
    "PASS_NONE",
    "PHASE_ANSWER",
    "PHASE_NAMES",
    "PHASE_OVER",
    "PHASE_PASS",
    "PHASE_PLAY",
    "PLAY",
    "PUT",
    "PUT_RANK",
    "RANK_NAMES",
    "SEE",
    "HandRecord",
    "PutConfig",
    "PutGame",
    "PutObserver",
    "action_id",
    "decode_observation",
    "observation_layout",
    "replay_hand",
]
