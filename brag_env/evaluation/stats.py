"""Means with 95% confidence intervals, and the small counting helpers behind the statistics.

Method: the normal approximation. For independent samples x_1..x_n (per-hand payoffs, per-match
results, or per-deal-group means in duplicate mode) the interval is
``mean +- z * s / sqrt(n)`` with ``s`` the sample standard deviation (n - 1 in the denominator)
and ``z`` = 1.95996 for 95%. With the thousands of samples an evaluation uses, the Student-t
quantile is the same to three digits. A rate (a match win rate, a fold rate) is the mean of 0/1
samples and gets the same interval.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np


def z_value(confidence: float = 0.95) -> float:
    """Two-sided normal quantile: 1.959964 for 0.95."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


@dataclass(frozen=True)
class Estimate:
    """A sample mean with its confidence interval. ``half_width`` is NaN below two samples."""

    mean: float
    half_width: float
    n: int
    std: float
    confidence: float = 0.95

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    def excludes(self, value: float) -> bool:
        """Whether the whole interval lies on one side of ``value``."""
        return bool(self.n >= 2 and (self.low > value or self.high < value))

    def to_dict(self) -> dict[str, Any]:
        return {
            "mean": _finite(self.mean),
            "ci_low": _finite(self.low),
            "ci_high": _finite(self.high),
            "half_width": _finite(self.half_width),
            "n": self.n,
            "std": _finite(self.std),
            "confidence": self.confidence,
        }

    def format(self, digits: int = 3) -> str:
        if self.n == 0:
            return "-"
        if math.isnan(self.half_width):
            return f"{self.mean:+.{digits}f}"
        return f"{self.mean:+.{digits}f} ± {self.half_width:.{digits}f}"


def _finite(x: float) -> float | None:
    return None if math.isnan(x) or math.isinf(x) else float(x)


def mean_ci(samples: Iterable[float] | np.ndarray, confidence: float = 0.95) -> Estimate:
    """Mean and normal-approximation confidence interval of independent samples."""
    x = np.asarray(samples if isinstance(samples, np.ndarray) else list(samples), dtype=np.float64)
    n = int(x.size)
    if n == 0:
        return Estimate(math.nan, math.nan, 0, math.nan, confidence)
    mean = float(x.mean())
    if n < 2:
        return Estimate(mean, math.nan, 1, math.nan, confidence)
    std = float(x.std(ddof=1))
    return Estimate(mean, z_value(confidence) * std / math.sqrt(n), n, std, confidence)


def ratio(numerator: float, denominator: float) -> float | None:
    """``numerator / denominator``, or None when nothing was counted."""
    return float(numerator) / denominator if denominator else None
