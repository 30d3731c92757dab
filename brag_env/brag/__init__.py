"""Three-Card Brag engine: pure Python + numpy, no RL imports. Rule IDs: seeds/rules/brag.md."""

from brag_env.brag.hands import (
    CATEGORY_NAMES,
    NUM_STRENGTHS,
    hand_category,
    hand_category_batch,
    hand_strength,
    hand_strength_batch,
    strength_category,
    strength_percentile,
)

__all__ = [
    "CATEGORY_NAMES",
    "NUM_STRENGTHS",
    "hand_category",
    "hand_category_batch",
    "hand_strength",
    "hand_strength_batch",
    "strength_category",
    "strength_percentile",
]
