"""The record rows a game's collector counts, from either evaluator.

A collector defines each behaviour statistic once, as a count over records (one row per
decision, one per seat per hand, fields named by the collector). The scalar collector appends
one row at a time, a tuple, as the AEC loop runs; the batched evaluator extends it with whole
arrays, the rows of many tables at once. ``Records`` holds both until the collector counts
them (``take``), so that memory stays flat over a long run.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class Records:
    """Rows of one record type (``fields``) not counted yet."""

    def __init__(self, fields: Sequence[str], dtype: type = np.float64) -> None:
        self.fields = tuple(fields)
        self.index = {name: k for k, name in enumerate(self.fields)}
        self.dtype = dtype
        self._rows: list[tuple] = []
        self._blocks: list[np.ndarray] = []
        self._block_rows = 0

    def append(self, row: tuple) -> None:
        """One row (the scalar collector's), its values in ``fields`` order."""
        self._rows.append(row)

    def extend(self, block: np.ndarray) -> None:
        """Many rows at once: an (m, len(fields)) array (the batched evaluator's)."""
        block = np.asarray(block, self.dtype).reshape(-1, len(self.fields))
        self._blocks.append(block)
        self._block_rows += len(block)

    def __len__(self) -> int:
        return len(self._rows) + self._block_rows

    def take(self) -> np.ndarray | None:
        """Every row held, as one array (None when there are none), and forget them."""
        blocks = self._blocks
        if self._rows:
            blocks.append(np.array(self._rows, self.dtype).reshape(-1, len(self.fields)))
        self._rows, self._blocks, self._block_rows = [], [], 0
        return np.concatenate(blocks) if blocks else None

    def columns(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        """The columns of ``take``'s array by field name."""
        return {name: rows[:, k] for name, k in self.index.items()}
