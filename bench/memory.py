"""Memory over one long Brag session, hand histories kept (default) or not (``keep_histories``).

Plays one session of ``--hands`` hands (default 200,000) of 4-player Brag through ``brag_v0``'s
raw env with uniformly random legal actions, deep stacks so nobody busts, and prints the resident
memory (RSS, from /proc/self/statm) every tenth of the way, for each ``keep_histories`` setting
in its own subprocess (a fresh interpreter, so one run's heap does not flatter the next)::

    python bench/memory.py                      # 200,000 hands, keep_histories=None and 0
    python bench/memory.py --hands 20000 --keep None 0 100

The figure that matters is the growth per hand after the first tenth (the interpreter, numpy and
the env's caches are loaded by then): about 2.5 KB a hand with every history kept, flat (0 within
the allocator's noise) with ``keep_histories=0``. Linux only (it reads /proc).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def session(hands: int, keep: int | None, seed: int) -> None:
    """Play the session, printing ``hands rss_bytes`` at every tenth; then the seconds."""
    import numpy as np

    from brag_env import brag_v0

    env = brag_v0.raw_env(
        num_players=4, hands_per_session=hands, starting_chips=10**9, keep_histories=keep
    )
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    game = env.game
    marks = {hands * k // 10 for k in range(1, 11)}
    start = time.perf_counter()
    step, observe, flatnonzero, random = env.step, env.observe, np.flatnonzero, rng.random
    done = 0
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent]:
            step(None)
            continue
        legal = flatnonzero(observe(agent)["action_mask"])
        step(int(legal[int(random() * legal.size)]))
        finished = len(game.hand_results)
        if finished != done:
            done = finished
            if done in marks:
                print(done, _rss_bytes(), flush=True)
    print("seconds", round(time.perf_counter() - start, 1), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--keep", nargs="+", default=["None", "0"], help="keep_histories values (None: all)"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        session(args.hands, None if args.child == "None" else int(args.child), args.seed)
        return
    root = Path(__file__).resolve().parents[1]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
    }
    print(f"one 4-player Brag session of {args.hands:,} hands, random legal actions")
    print(f"{'keep_histories':>14} {'hands':>9} {'RSS MB':>8}")
    for keep in args.keep:
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child",
                keep,
                "--hands",
                str(args.hands),
                "--seed",
                str(args.seed),
            ],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        ).stdout.split("\n")
        points = [tuple(map(int, line.split())) for line in out if line and line[0].isdigit()]
        seconds = next(line.split()[1] for line in out if line.startswith("seconds"))
        for hands, rss in points:
            print(f"{keep:>14} {hands:>9,} {rss / 2**20:>8.1f}")
        (h0, r0), (h1, r1) = points[0], points[-1]
        per_hand = (r1 - r0) / (h1 - h0)
        print(f"{keep:>14} growth after the first tenth: {per_hand:,.0f} bytes/hand ({seconds} s)")


if __name__ == "__main__":
    main()
