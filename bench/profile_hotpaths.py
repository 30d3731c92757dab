"""cProfile one row of ``bench/throughput.py`` and print where its time goes.

    python bench/profile_hotpaths.py brag-env          # brag_v1.env(), 4 players
    python bench/profile_hotpaths.py brag-engine --games 3000 --top 25

The loop is exactly the one the benchmark times. cProfile adds a fixed cost to every Python
call, so it overstates code made of many small calls; read the shares, not the absolute times.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import throughput as tp

from brag_env import brag_v1, put_v0
from brag_env.brag.rules import BragConfig
from brag_env.put.rules import PutConfig


def _targets(games: int) -> dict[str, Callable[[], Any]]:
    def env_run(make: Callable[[], Any], hands: Callable[[Any], int]) -> Callable[[], Any]:
        env = make()
        return lambda: tp.play_env(env, games, 0, hands)

    return {
        "brag-env": env_run(lambda: brag_v1.env(num_players=4), tp._brag_hands),
        "brag-raw": env_run(lambda: brag_v1.raw_env(num_players=4), tp._brag_hands),
        "put-env": env_run(put_v0.env, tp._put_hands),
        "put-raw": env_run(put_v0.raw_env, tp._put_hands),
        "brag-engine": lambda: tp.play_brag_engine(BragConfig(num_players=4), games, 0),
        "put-engine": lambda: tp.play_put_engine(PutConfig(), games, 0),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("target", choices=sorted(_targets(1)))
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--top", type=int, default=30, help="functions to list")
    parser.add_argument("--sort", default="tottime", choices=["tottime", "cumulative"])
    args = parser.parse_args(argv)
    run = _targets(args.games)[args.target]
    run()  # warm-up outside the profile
    profiler = cProfile.Profile()
    profiler.enable()
    sample = run()
    profiler.disable()
    print(f"{args.target}: {sample.decisions} decisions, {sample.hands} hands (profiled)")
    pstats.Stats(profiler).strip_dirs().sort_stats(args.sort).print_stats(args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
