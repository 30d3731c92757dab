"""Every game's config validates its fields the same way (brag_env/config_checks.py): Brag,
Put and Seven-card Brag accept and refuse the same kinds of value.

numpy scalars (what ``np.random`` choices hand back) are accepted and stored as plain Python
values; a bool is refused where an integer is wanted and an integer where a bool is wanted.
"""

from __future__ import annotations

import json
from dataclasses import fields

import numpy as np
import pytest

from brag_env.brag.rules import BragConfig
from brag_env.brag7.rules import Brag7Config
from brag_env.put.rules import PutConfig

# (config class, an integer field and a legal value, a bool field, a choice field and a legal
# value; Seven-card Brag has no choice field)
CONFIGS = [
    pytest.param(BragConfig, "num_players", 3, "lowball", "shuffle", "every_hand", id="brag"),
    pytest.param(PutConfig, "num_players", 3, "perfect_recall", "reward", "points", id="put"),
    pytest.param(Brag7Config, "num_players", 3, "lowball", None, None, id="brag7"),
]
CHOICE_CONFIGS = [p for p in CONFIGS if p.values[4] is not None]
# Every field of every config whose default is an int, a bool or a string: a field added
# without its check fails here.
FIELDS = [
    pytest.param(cls, f.name, getattr(cls(), f.name), id=f"{cls.__name__}.{f.name}")
    for cls in (BragConfig, PutConfig, Brag7Config)
    for f in fields(cls)
    if isinstance(getattr(cls(), f.name), (int, str))
]


@pytest.mark.parametrize(("cls", "int_field", "value", "bool_field", "choice", "pick"), CONFIGS)
def test_numpy_scalars_are_accepted_and_stored_as_plain_values(
    cls, int_field, value, bool_field, choice, pick
):
    options = {int_field: np.int64(value), bool_field: np.bool_(True)}
    plain = {int_field: value, bool_field: True}
    if choice is not None:
        options[choice], plain[choice] = np.str_(pick), pick
    cfg = cls(**options)
    assert cfg == cls(**plain)
    assert type(getattr(cfg, int_field)) is int and type(getattr(cfg, bool_field)) is bool
    assert choice is None or type(getattr(cfg, choice)) is str
    assert json.loads(json.dumps(cfg.to_dict())) == cfg.to_dict()
    assert cls(**{int_field: np.int32(value)}) == cls(**{int_field: value})
    assert cls(**{int_field: np.random.default_rng(0).choice([value])}) == cls(**{int_field: value})


@pytest.mark.parametrize(("cls", "int_field", "value", "bool_field", "choice", "pick"), CONFIGS)
@pytest.mark.parametrize("bad", [True, np.bool_(True), 3.0, np.float64(3), "3", None])
def test_an_integer_field_refuses_bools_floats_and_strings(
    cls, int_field, value, bool_field, choice, pick, bad
):
    with pytest.raises(ValueError, match=f"^{int_field} must be an integer, got "):
        cls(**{int_field: bad})


@pytest.mark.parametrize(("cls", "int_field", "value", "bool_field", "choice", "pick"), CONFIGS)
@pytest.mark.parametrize("bad", [1, 0, np.int64(1), "true", None])
def test_a_bool_field_refuses_integers_and_strings(
    cls, int_field, value, bool_field, choice, pick, bad
):
    with pytest.raises(ValueError, match=f"^{bool_field} must be true or false, got "):
        cls(**{bool_field: bad})


@pytest.mark.parametrize(
    ("cls", "int_field", "value", "bool_field", "choice", "pick"), CHOICE_CONFIGS
)
@pytest.mark.parametrize("bad", ["nonsense", 1, None, ["points"]])
def test_a_choice_field_refuses_what_is_not_one_of_its_strings(
    cls, int_field, value, bool_field, choice, pick, bad
):
    with pytest.raises(ValueError, match=f"^{choice} must be one of .*; got "):
        cls(**{choice: bad})


@pytest.mark.parametrize(("cls", "int_field", "value", "bool_field", "choice", "pick"), CONFIGS)
def test_an_integer_out_of_range_names_the_bounds(cls, int_field, value, bool_field, choice, pick):
    with pytest.raises(ValueError, match=f"^{int_field} must be between 2 and "):
        cls(**{int_field: np.int64(1)})


@pytest.mark.parametrize(("cls", "name", "default"), FIELDS)
def test_every_field_takes_the_numpy_kind_of_its_value_and_refuses_the_wrong_kind(
    cls, name, default
):
    """The default as a numpy scalar is the same config, stored as a plain value; a bool for
    an integer, an integer for a bool, a float or a number for a string is a one-line error."""
    if isinstance(default, bool):
        numpy_value, wrong = np.bool_(default), [int(default), np.int64(1), "true"]
    elif isinstance(default, int):
        numpy_value, wrong = np.int64(default), [True, np.bool_(False), float(default)]
    else:
        numpy_value, wrong = np.str_(default), [1, None]
    cfg = cls(**{name: numpy_value})
    assert cfg == cls() and type(getattr(cfg, name)) is type(default)
    for bad in wrong:
        with pytest.raises(ValueError, match=f"^{name} must be "):
            cls(**{name: bad})


def test_brag_lists_and_deal_sizes_take_numpy_integers_too():
    cfg = BragConfig(raise_sizes=np.array([2, 4]), cards_dealt=np.int64(4), allow_blind=False)
    assert cfg.raise_sizes == (2, 4) and all(type(m) is int for m in cfg.raise_sizes)
    assert type(cfg.cards_dealt) is int and cfg == BragConfig(
        raise_sizes=(2, 4), cards_dealt=4, allow_blind=False
    )
    with pytest.raises(ValueError, match="raise_sizes must be a list of integers"):
        BragConfig(raise_sizes=[2, True])
    with pytest.raises(ValueError, match="cards_dealt must be 3, 4 or 5"):
        BragConfig(cards_dealt=np.bool_(True), allow_blind=False)


@pytest.mark.parametrize(
    ("cls", "game"),
    [(BragConfig, "Brag"), (PutConfig, "Put"), (Brag7Config, "Seven-card Brag")],
)
def test_from_dict_names_the_unknown_options_and_leaves_its_argument_alone(cls, game):
    with pytest.raises(ValueError, match=f"^unknown {game} option\\(s\\): colour, speed$"):
        cls.from_dict({"speed": 1, "num_players": 3, "colour": "red"})
    options = {"num_players": np.int64(3)}
    assert cls.from_dict(options) == cls(num_players=3) and options == {"num_players": 3}
    assert cls.from_dict(None) == cls.from_dict({}) == cls()
