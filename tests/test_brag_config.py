"""BragConfig: the spec's defaults, the fixed action layout, and clear errors for bad values."""

import json

import numpy as np
import pytest

from brag_env.brag.game import BragGame
from brag_env.brag.rules import FIRST_RAISE, FOLD, LOOK, SEE, STAY, BragConfig


def test_defaults_are_the_spec_defaults():
    cfg = BragConfig()
    assert cfg.num_players == 4  # B7
    assert (cfg.ante, cfg.ante_mode) == (1, "every_hand")  # B8
    assert cfg.allow_blind is True  # B10
    assert cfg.min_stake == 2  # B11
    assert cfg.raise_sizes == (2,)  # B13
    assert (cfg.max_stake, cfg.pot_limit) == (32, False)  # B13
    assert cfg.blind_may_see_open is True  # B14
    assert (cfg.hands_per_session, cfg.starting_chips) == (1, 200)  # B17
    assert cfg.shuffle == "after_prial"  # B18
    assert cfg.blind_keep_hand is True  # B19
    assert cfg.prial_bonus == 0  # B20
    assert cfg.lowball is False  # B21


def test_action_layout_is_fixed():
    assert (FOLD, STAY, LOOK, SEE, FIRST_RAISE) == (0, 1, 2, 3, 4)
    cfg = BragConfig(cover_pot=False)  # B16's original ruling: the layout before brag_v1
    assert cfg.action_names == [
        "fold",
        "stay",
        "look",
        "see",
        "raise_2x",
        "keep_old_hand",
        "take_new_hand",
    ]
    assert cfg.num_actions == 7 and cfg.cover_action == -1
    assert (cfg.keep_old_hand_action, cfg.take_new_hand_action) == (5, 6)
    # B16 (default): COVER comes last, so every other id is the same as without it.
    assert BragConfig().action_names == [*cfg.action_names, "cover"]
    assert BragConfig().num_actions == 8 and BragConfig().cover_action == 7
    ladder = BragConfig(raise_sizes=[2, 3, 4], cover_pot=False)
    assert ladder.action_names[4:] == [
        "raise_2x",
        "raise_3x",
        "raise_4x",
        "keep_old_hand",
        "take_new_hand",
    ]
    assert ladder.num_actions == 9 and ladder.keep_old_hand_action == 7


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"num_players": 9}, "num_players must be between 2 and 8"),
        ({"num_players": 1}, "num_players must be between 2 and 8"),
        ({"num_players": 4.0}, "num_players must be an integer"),
        ({"ante": -1}, "ante must be >= 0"),
        ({"ante_mode": "sometimes"}, "ante_mode must be one of"),
        ({"allow_blind": "yes"}, "allow_blind must be true or false"),
        ({"min_stake": 3}, "min_stake must be even"),
        ({"min_stake": 0}, "min_stake must be >= 2"),
        ({"raise_sizes": []}, "raise_sizes must hold at least one"),
        ({"raise_sizes": [1]}, "raise_sizes multipliers must be integers >= 2"),
        ({"raise_sizes": [2, 2]}, "raise_sizes must not repeat"),
        ({"raise_sizes": "2x"}, "raise_sizes must be a list of integers"),
        ({"raise_sizes": [2.5]}, "raise_sizes must be a list of integers"),
        ({"min_stake": 10, "max_stake": 8}, "max_stake must be >= 10"),
        ({"max_stake": 33}, "max_stake must be even"),
        ({"pot_limit": 1}, "pot_limit must be true or false"),
        ({"blind_may_see_open": None}, "blind_may_see_open must be true or false"),
        ({"hands_per_session": 0}, "hands_per_session must be >= 1"),
        ({"starting_chips": 0}, "starting_chips must be >= 1"),
        ({"ante": 10, "starting_chips": 5}, "starting_chips must be at least the ante"),
        ({"shuffle": "never"}, "shuffle must be one of"),
        ({"blind_keep_hand": 0}, "blind_keep_hand must be true or false"),
        ({"prial_bonus": -2}, "prial_bonus must be >= 0"),
        ({"lowball": "no"}, "lowball must be true or false"),
    ],
)
def test_bad_values_raise_value_error_naming_the_field(options, fragment):
    with pytest.raises(ValueError, match=fragment):
        BragConfig(**options)
    with pytest.raises(ValueError, match=fragment):
        BragConfig.from_dict(options)


def test_unknown_option_is_named():
    with pytest.raises(ValueError, match=r"unknown Brag option.*jokers"):
        BragConfig.from_dict({"jokers": 2})


def test_ante_above_stack_is_fine_without_antes():
    assert BragConfig(ante=10, starting_chips=5, ante_mode="none").starting_chips == 5


def test_round_trip_through_json():
    cfg = BragConfig(num_players=6, raise_sizes=[3, 2], pot_limit=True, lowball=True)
    data = json.loads(json.dumps(cfg.to_dict()))
    assert BragConfig.from_dict(data) == cfg
    assert cfg.raise_sizes == (3, 2)


def test_engine_rejects_bad_arguments():
    with pytest.raises(ValueError, match="config must be a BragConfig"):
        BragGame({"num_players": 4})  # type: ignore[arg-type]
    game = BragGame(BragConfig())
    with pytest.raises(ValueError, match=r"dealer must be a seat in 0\.\.3, got 4"):
        game.new_session(np.random.default_rng(0), dealer=4)
    with pytest.raises(ValueError, match="dealer must be a seat number"):
        game.new_session(np.random.default_rng(0), dealer="north")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="bad card 'Xx'"):
        game.new_session(np.random.default_rng(0), deck="As Xx")
    with pytest.raises(ValueError, match="duplicate card"):
        game.new_session(np.random.default_rng(0), deck="As As")


def test_no_session_yet_means_no_decision():
    game = BragGame()
    assert game.session_over and game.current_player == -1
    assert game.legal_actions() == [] and not any(game.legal_mask())
    with pytest.raises(ValueError, match="session is over"):
        game.apply(STAY)
