"""Gain and speed of the local best response (``brag_env.exploiters.lbr``) against Brag agents.

    python bench/lbr_speed.py                                   # 10,000 hands per target
    python bench/lbr_speed.py --hands 2000 --targets brag:tight --range-size 512
    python bench/lbr_speed.py --seats 4 --hands 2000 --targets model:brag_selfplay

Each target plays against LBR (heads-up, or in every other seat of ``--seats``) through the
project's tournament runner (seats rotate; ``--seed`` fixes the deals and every agent's
draws). Prints LBR's gain in antes per hand with its 95% CI, hands per CPU second (process
time: wall time depends on what else the machine runs) and LBR's policy queries per
decision. The BLAS library is held to one thread (set before numpy loads): on a shared
machine its threads wait on each other, and a query is a small matrix product.
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from brag_env.exploiters.lbr import measure  # noqa: E402

TARGETS = ("model:brag_headsup_selfplay", "brag:tight", "brag:tips", "brag:caller")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seats", type=int, default=2, help="table size, 2-8")
    parser.add_argument("--targets", nargs="+", default=list(TARGETS))
    parser.add_argument(
        "--range-size", type=int, default=1024, help="candidates per opponent and hand (0: all)"
    )
    args = parser.parse_args(argv)
    size = args.range_size or None
    if not 2 <= args.seats <= 8:  # B7
        parser.error(f"--seats must be 2 to 8, got {args.seats}")
    for target in args.targets:
        try:
            r = measure(target, args.hands, args.seed, range_size=size, seats=args.seats)
        except ValueError as e:  # a target or table LBR cannot play (e.g. a model's own seats)
            parser.error(str(e))
        p = r.payoff
        print(
            f"{target:30s} LBR gain {p.mean:+7.2f} antes/hand [{p.low:+.2f}, {p.high:+.2f}]"
            f"  {r.hands} hands  {r.hands_per_cpu_second:6.1f} hands per CPU second"
            f" ({r.seconds:.0f} s wall)"
            f"  {r.queries / max(r.decisions, 1):.1f} queries/decision",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
