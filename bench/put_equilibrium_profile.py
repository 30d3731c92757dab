"""How a solved Put strategy calls, faces and folds to Put, by the strength of the dealt hand.

    python bench/put_equilibrium_profile.py FILE.npz [--deck-ranks K]

Strength is the dealt hand's percentile in the deck played: the chance that a random hand of
that deck has a smaller sum of card values (4 = 0 ... 3 = 12, the measure of the Put baselines,
``agents.put``), in five bands. Every figure is exact (the profile against itself):
P(calls Put), P(faces a Put), P(folds | faced a Put), per seat.
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np

from agents.put import card_value
from brag_env.put.solver.io import load_strategy
from brag_env.put.solver.stats import put_profile
from brag_env.put.solver.tree import PutTree

BANDS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.01)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("--deck-ranks", type=int, default=13)
    args = parser.parse_args()
    tree = PutTree(args.deck_ranks)
    strategy, meta = load_strategy(args.path, tree)
    prof = put_profile(tree, strategy)
    sums = tree.hands.counts[3] @ np.array([card_value(r) for r in range(tree.k)])
    share = prof["dealt"][0]
    pct = np.array([share[sums < s].sum() for s in sums])
    gap = meta.get("exploitability", float("nan"))
    print(f"{args.path}: {meta.get('iterations')} iterations, exploitability {gap:.6f}")
    print("| seat | strength | share of deals | calls Put | faces Put | folds if faced |")
    print("|---|---|---|---|---|---|")
    for role, seat in ((0, "non-dealer"), (1, "dealer")):
        rows = [(lo, hi, (pct >= lo) & (pct < hi)) for lo, hi in itertools.pairwise(BANDS)]
        rows.append((0.0, 1.0, np.ones(len(pct), bool)))
        for i, (lo, hi, sel) in enumerate(rows):
            dealt = prof["dealt"][role, sel].sum()
            if dealt == 0:
                continue
            faces = prof["faces"][role, sel].sum()
            folds = prof["folds"][role, sel].sum() / faces if faces > 0 else float("nan")
            calls = prof["calls"][role, sel].sum() / dealt
            band = "all" if i == len(rows) - 1 else f"{lo:.1f}-{min(hi, 1.0):.1f}"
            print(
                f"| {seat} | {band} | {dealt:.3f} | {calls:.3f} | {faces / dealt:.3f} | "
                f"{folds:.3f} |"
            )


if __name__ == "__main__":
    main()
