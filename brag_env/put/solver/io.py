"""Strategy and checkpoint files of the solver: ``.npz`` written atomically, checked on load.

A strategy file holds the average strategy (float16: ``put{d}``, ``play{d}`` where a card
choice exists, ``see{d}``) and a JSON ``meta`` entry: the rules it was solved for, the score,
the iterations run and the exploitability measured at the end.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from brag_env.put.solver.strategy import Strategy
from brag_env.put.solver.tree import DEPTH, PutTree, actor_size, num_states, other_size
from brag_env.training.checkpoint import atomic_write_bytes

FORMAT = "brag_env.put.solver/1"
MAX_FILE_BYTES = 200 * 1024 * 1024  # a strategy file (the full deck's is far smaller)
MAX_CHECKPOINT_BYTES = 4 * 1024**3  # regrets and averages of the full deck, uncompressed


def _dump(path: Path, arrays: dict[str, np.ndarray], meta: dict[str, Any], compress: bool) -> None:
    buf = io.BytesIO()
    arrays = dict(arrays)
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    (np.savez_compressed if compress else np.savez)(buf, **arrays)
    atomic_write_bytes(path, buf.getvalue())


def _load(
    path: Path, max_bytes: int = MAX_FILE_BYTES, fmt: str = FORMAT
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"strategy file {str(path)!r} does not exist")
    if path.stat().st_size > max_bytes:
        raise ValueError(f"strategy file {str(path)!r} is larger than {max_bytes} bytes")
    if not zipfile.is_zipfile(path):  # np.load would read it as a pickle and say so
        raise ValueError(f"strategy file {str(path)!r} is not a solver file (not an .npz archive)")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
        meta = json.loads(arrays.pop("meta").tobytes().decode())
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, json.JSONDecodeError) as e:
        raise ValueError(f"strategy file {str(path)!r} is not a solver file ({e})") from None
    if meta.get("format") != fmt:
        raise ValueError(f"strategy file {str(path)!r} is not a {fmt} file")
    return arrays, meta


def save_strategy(path: str | Path, strategy: Strategy, meta: dict[str, Any]) -> None:
    arrays: dict[str, np.ndarray] = {}
    for d in range(DEPTH):
        arrays[f"put{d}"] = strategy.put[d].astype(np.float16)
        arrays[f"see{d}"] = strategy.see[d].astype(np.float16)
        if strategy.play[d] is not None:
            arrays[f"play{d}"] = strategy.play[d].astype(np.float16)
    _dump(Path(path), arrays, {**meta, "format": FORMAT, "kind": "strategy"}, compress=True)


def load_strategy(path: str | Path, tree: PutTree | None = None) -> tuple[Strategy, dict]:
    """The strategy of a file (float64) and its meta; with ``tree``, the shapes must fit it."""
    arrays, meta = _load(Path(path))
    if meta.get("kind") != "strategy":
        raise ValueError(f"strategy file {str(path)!r} is a checkpoint, not a strategy")
    if tree is not None and meta.get("deck_ranks") != tree.k:
        raise ValueError(
            f"strategy file {str(path)!r} was solved for deck_ranks={meta.get('deck_ranks')}, "
            f"but the table has deck_ranks={tree.k}"
        )
    put, play, see = [], [], []
    try:
        for d in range(DEPTH):
            p = arrays[f"put{d}"].astype(np.float64)
            s = arrays[f"see{d}"].astype(np.float64)
            pl = arrays.get(f"play{d}")
            pl = None if pl is None else pl.astype(np.float64)
            if tree is not None:
                n, ha = tree.layers[d].size, actor_size(d)
                nh = len(tree.hands.counts[ha])
                no = len(tree.hands.counts[other_size(d)])
                want = None if ha == 1 else (num_states(d), n, nh, ha)
                if (
                    p.shape != (n, nh)
                    or s.shape != (n, no)
                    or ((pl is None) != (want is None) or (pl is not None and pl.shape != want))
                ):
                    raise KeyError(f"layer {d}")
            if pl is not None:  # float16 rounding: make every row sum to 1 again
                total = pl.sum(axis=3)
                total[0] += p
                total = np.where(total > 0, total, 1.0)
                pl = pl / total[..., None]
                p = p / total[0]
            put.append(np.clip(p, 0.0, 1.0))
            play.append(pl)
            see.append(np.clip(s, 0.0, 1.0))
    except KeyError as e:
        raise ValueError(f"strategy file {str(path)!r}: arrays do not fit the tree ({e})") from None
    return Strategy(put, play, see), meta


def save_checkpoint(path: str | Path, arrays: dict[str, np.ndarray], meta: dict) -> None:
    _dump(Path(path), arrays, {**meta, "format": FORMAT, "kind": "checkpoint"}, compress=False)


def load_checkpoint(path: str | Path) -> tuple[dict[str, np.ndarray], dict]:
    arrays, meta = _load(Path(path), MAX_CHECKPOINT_BYTES)
    if meta.get("kind") != "checkpoint":
        raise ValueError(f"checkpoint {str(path)!r} is a strategy file, not a checkpoint")
    return arrays, meta
