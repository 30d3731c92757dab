"""Hostile model files, round two (issue 30): observation shapes that would allocate
gigabytes or are negative (item 8), NaN weights (item 11), a pickled ``policy.pth`` refused
without repeating torch's advice to unpickle it (item 14). Built from a shipped model."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
import sb3_contrib.common.maskable.policies  # noqa: F401 - its import (seconds) at collection
import torch

from agents.model import load_policy

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "models" / "put_selfplay.zip"


def _rewrite(dst: Path, data=None, weights=None) -> Path:
    """A copy of the shipped model with its ``data`` JSON or its policy.pth tensors changed."""
    with zipfile.ZipFile(SHIPPED) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            payload = zin.read(item.filename)
            if item.filename == "data" and data is not None:
                record = json.loads(payload)
                data(record)
                payload = json.dumps(record).encode()
            if item.filename == "policy.pth" and weights is not None:
                state = torch.load(io.BytesIO(payload), weights_only=True)
                buffer = io.BytesIO()
                torch.save(weights(state), buffer)
                payload = buffer.getvalue()
            zout.writestr(item, payload)
    return dst


def test_the_shipped_model_loads():
    policy, info = load_policy(SHIPPED)
    assert policy is not None and len(info.observation_shape) == 1


@pytest.mark.parametrize(
    "shape, fragment",
    [
        ("(1000000000,)", "its observation shape (1000000000,) is not one size between 1 and"),
        ("(-5,)", "its observation shape (-5,) is not one size"),
        ("(3, 4)", "its observation shape (3, 4) is not one size"),
        ([220.5], "its observation shape (220.5,) is not one size"),  # not truncated to 220
        ("(220.0,)", "its observation shape (220.0,) is not one size"),
        ([True], "its observation shape (True,) is not one size"),
    ],
)
def test_an_absurd_observation_shape_is_refused_before_building(tmp_path, shape, fragment):
    def change(record):
        record["observation_space"]["_shape"] = shape

    path = _rewrite(tmp_path / "shape.zip", data=change)
    with pytest.raises(ValueError) as refused:
        load_policy(path)
    assert fragment in str(refused.value) and str(path) in str(refused.value)


@pytest.mark.parametrize("n", [29.5, 29.0, "29.0", True])
def test_a_fractional_action_count_is_refused_not_truncated(tmp_path, n):
    def change(record):
        record["action_space"]["n"] = n

    path = _rewrite(tmp_path / "n.zip", data=change)
    with pytest.raises(ValueError, match="its observation/action space records are unreadable"):
        load_policy(path)


def test_nan_weights_are_refused(tmp_path):
    def poison(state):
        name = next(k for k, v in state.items() if v.is_floating_point())
        state[name] = torch.full_like(state[name], float("nan"))
        return state

    path = _rewrite(tmp_path / "nan.zip", weights=poison)
    with pytest.raises(ValueError, match=r"its weight '[\w.]+' holds NaN or infinite values"):
        load_policy(path)


class _Payload:
    """Any Python object: torch.save pickles it, weights_only refuses it."""


def test_a_pickled_policy_pth_is_refused_without_torchs_advice(tmp_path):
    path = _rewrite(tmp_path / "pickled.zip", weights=lambda state: {**state, "x": _Payload()})
    with pytest.raises(ValueError) as refused:
        load_policy(path)
    message = str(refused.value)
    assert "holds more than tensors (pickled Python objects): refused unread" in message
    assert "weights_only" not in message and "\n" not in message
