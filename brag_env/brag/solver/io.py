"""Strategy files of the exact one-hand Brag solver: ``.npz`` written atomically, checked on load.

A file holds the strategy of every decision node of the public tree, flattened in node order
(float64; a blind node's row once, an open node's rows per hand), and a JSON ``meta`` entry:
the rules solved (``config``, ``dealer``), the tree's size, the iterations run and the
NashConv and game value measured at the end. Loading rebuilds the tree from the rules and
refuses a file whose sizes do not fit it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from brag_env.brag.rules import BragConfig
from brag_env.brag.solver.cfr import Strategy
from brag_env.brag.solver.tree import HandTree, build_tree
from brag_env.put.solver.io import _dump, _load

FORMAT = "brag_env.brag.solver/1"
MAX_FILE_BYTES = 64 * 1024 * 1024  # the small decks' files are far smaller


def save_strategy(path: str | Path, tree: HandTree, strategy: Strategy, meta: dict) -> None:
    flat = np.concatenate([s.reshape(-1) for s in strategy if s is not None])
    meta = {
        **meta,
        "format": FORMAT,
        "config": tree.config.to_dict(),
        "dealer": tree.dealer,
        "public_nodes": tree.num_nodes,
        "size": int(flat.size),
    }
    _dump(Path(path), {"strategy": flat.astype(np.float64)}, meta, compress=True)


def load_strategy(path: str | Path) -> tuple[HandTree, Strategy, dict[str, Any]]:
    """The tree of the file's rules, the strategy on it, and the file's meta."""
    arrays, meta = _load(Path(path), MAX_FILE_BYTES, fmt=FORMAT)
    try:
        config = BragConfig.from_dict(meta["config"])
        tree = build_tree(config, int(meta["dealer"]))
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"strategy file {str(path)!r} has bad rules ({error})") from None
    flat = arrays.get("strategy")
    shapes = [
        (tree.num_hands, len(tree.children[v])) if tree.looked[v][p] else (len(tree.children[v]),)
        for v, p in enumerate(tree.player)
        if p >= 0
    ]
    need = sum(int(np.prod(s)) for s in shapes)
    if flat is None or flat.ndim != 1 or flat.size != need or not np.isfinite(flat).all():
        raise ValueError(f"strategy file {str(path)!r} does not fit the tree of its rules")
    strategy: Strategy = []
    at, shape_of = 0, iter(shapes)
    for p in tree.player:
        if p < 0:
            strategy.append(None)
            continue
        shape = next(shape_of)
        size = int(np.prod(shape))
        strategy.append(flat[at : at + size].reshape(shape).astype(np.float64))
        at += size
    return tree, strategy, meta
