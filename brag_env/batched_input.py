"""The checks the batched engines make of their callers' arrays: one-line ``ValueError``s
instead of numpy's silent casts (1.7 -> 1) and wrap-around indexing (-1 -> the last table)."""

from __future__ import annotations

import numpy as np


def _integers(given: np.ndarray) -> bool:
    return given.size == 0 or np.issubdtype(given.dtype, np.integer)


def checked_rows(rows, tables: int) -> np.ndarray:
    """``rows`` as int64 table numbers in ``0..tables-1``."""
    given = np.asarray(rows)
    if given.ndim != 1 or not _integers(given):
        raise ValueError(
            f"rows must be a 1-d array of table numbers, got {given.dtype} {given.shape}"
        )
    if given.size and (given.min() < 0 or given.max() >= tables):
        raise ValueError(f"rows must be table numbers 0..{tables - 1}")
    return given.astype(np.int64, copy=False)


def checked_seats(seats, rows: np.ndarray, players: int) -> np.ndarray:
    """``seats`` as int64, one seat ``0..players-1`` per row (-1, the seat to act of a finished
    table, would index from the end)."""
    given = np.asarray(seats)
    bad = given.shape != rows.shape or not _integers(given)
    if not bad and given.size:
        bad = given.min() < 0 or given.max() >= players
    if bad:
        raise ValueError(f"seats must be one seat 0..{players - 1} per row")
    return given.astype(np.int64, copy=False)


def checked_actions(actions, rows: np.ndarray) -> np.ndarray:
    """``actions`` as int64, one integer per row (their legality is the engine's check)."""
    given = np.asarray(actions)
    if given.shape != rows.shape or not _integers(given):
        raise ValueError(
            f"actions must be one integer action per row, got {given.dtype} {given.shape}"
        )
    return given.astype(np.int64, copy=False)
