"""Means with 95% confidence intervals, and the small counting helpers behind the statistics.

Method: the normal approximation over independent *units*. A unit is an episode (one Brag hand
or session, one Put match) or, in duplicate mode, a deal group; a unit may hold several samples
(the hands of a session, the hands of a match, the seatings of a deal group), which are not
independent of each other. With ``Y_i`` the sum of a unit's samples and ``N_i`` their number, the
estimate is the ratio ``R = sum(Y) / sum(N)`` (the mean over all samples) and its variance comes
from the delta method: ``s^2 = sum((Y_i - R * N_i)^2) / (k - 1)`` over the ``k`` units, standard
error ``s / (mean(N) * sqrt(k))``, interval ``R +- z * SE`` with ``z`` = 1.95996 for 95%. With one
sample per unit this is the textbook ``mean +- z * sd / sqrt(n)``. With the hundreds of units an
evaluation uses, the Student-t quantile is the same to two or three digits. A rate (a match win
rate, a fold rate) is the mean of 0/1 samples and gets the same interval.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np


def decile(value: Any) -> Any:
    """The decile 0-9 of a value in [0, 1] (1 itself in the top one): ``d`` holds
    ``[d/10, (d+1)/10)``. A float gives an int, an array the array of deciles."""
    if isinstance(value, np.ndarray):
        return np.minimum((value * 10.0).astype(np.int64), 9)
    return min(int(value * 10.0), 9)


def z_value(confidence: float = 0.95) -> float:
    """Two-sided normal quantile: 1.959964 for 0.95."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


@dataclass(frozen=True)
class Estimate:
    """A mean with its confidence interval. ``half_width`` is NaN below two units.

    ``n`` counts the samples (hands, matches), ``units`` the independent units the interval is
    computed over (``n`` when every sample is its own unit); ``std`` is the per-unit spread
    behind the interval: ``half_width = z * std / sqrt(units)``.
    """

    mean: float
    half_width: float
    n: int
    std: float
    confidence: float = 0.95
    units: int = -1  # -1: the same as n

    def __post_init__(self) -> None:
        if self.units < 0:
            object.__setattr__(self, "units", self.n)

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    def excludes(self, value: float) -> bool:
        """Whether the whole interval lies on one side of ``value``."""
        return bool(self.units >= 2 and (self.low > value or self.high < value))

    def to_dict(self) -> dict[str, Any]:
        return {
            "mean": _finite(self.mean),
            "ci_low": _finite(self.low),
            "ci_high": _finite(self.high),
            "half_width": _finite(self.half_width),
            "n": self.n,
            "units": self.units,
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


def ratio_ci(
    sums: Iterable[float] | np.ndarray,
    counts: Iterable[float] | np.ndarray,
    confidence: float = 0.95,
) -> Estimate:
    """The ratio estimate ``sum(sums) / sum(counts)`` over units, with the delta-method CI.

    ``sums[i]`` is unit i's total and ``counts[i]`` its number of samples (module docstring).
    Units without samples are ignored.
    """
    y = np.asarray(sums if isinstance(sums, np.ndarray) else list(sums), dtype=np.float64)
    m = np.asarray(counts if isinstance(counts, np.ndarray) else list(counts), dtype=np.float64)
    keep = m > 0
    y, m = y[keep], m[keep]
    k = int(m.size)
    n = round(float(m.sum()))
    if k == 0:
        return Estimate(math.nan, math.nan, 0, math.nan, confidence, 0)
    mean = float(y.sum() / m.sum())
    if k < 2:
        return Estimate(mean, math.nan, n, math.nan, confidence, k)
    residuals = y - mean * m
    std = math.sqrt(float(residuals @ residuals) / (k - 1)) / float(m.mean())
    return Estimate(mean, z_value(confidence) * std / math.sqrt(k), n, std, confidence, k)


def ratio(numerator: float, denominator: float) -> float | None:
    """``numerator / denominator``, or None when nothing was counted."""
    return float(numerator) / denominator if denominator else None


def decile_table(
    columns: Sequence[str], counts: Iterable[Iterable[int]], extra_rows: Sequence[str] = ()
) -> dict[str, list[Any]]:
    """Counts by decile as a report writes them: named columns, rows ``d0``..``d9`` (then
    ``extra_rows``), one list of counts a row."""
    return {
        "columns": list(columns),
        "rows": [f"d{d}" for d in range(10)] + list(extra_rows),
        "counts": [list(row) for row in counts],
    }


class Counts:
    """One agent's tallies: a subclass names them in ``__slots__`` and each starts at 0 (a
    subclass whose tallies are tables sets those after calling this)."""

    __slots__ = ()

    def __init__(self) -> None:
        for name in self.__slots__:
            setattr(self, name, 0)
