"""Solve one heads-up hand of Put with discounted CFR and write the average strategy.

    python -m brag_env.solve put [--deck-ranks K] [--score A-B] [--iterations N]
        [--out models/put_equilibrium.npz] [--checkpoint PATH] [--checkpoint-every N]
        [--resume] [--force]

The strategy file is what ``put:equilibrium`` plays (``docs/solver.md``). A checkpoint (regrets
and averages) is written atomically every ``--checkpoint-every`` iterations; ``--resume``
continues from it. Existing files are overwritten only with ``--force``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from brag_env.games import games_with
from brag_env.io import check_regular_target, remove_stale_temps
from brag_env.put.rules import PutConfig
from brag_env.put.solver.cfr import Accumulators, iterate, normalise
from brag_env.put.solver.game import HandGame, exploitability, parse_score
from brag_env.put.solver.io import load_checkpoint, load_strategy, save_checkpoint, save_strategy
from brag_env.ui.cli import OneLineParser, one_line, parse_options, quiet_on_closed_pipe

DEFAULT_OUT = "models/put_equilibrium.npz"


def config_from_cli(
    game: str, options: list[str], deck_ranks: int | None, score: str
) -> tuple[PutConfig, tuple[int, int]]:
    """The rules and score of a solver command line (``--option k=v``, ``--deck-ranks``,
    ``--score``); ``ValueError`` naming what is wrong."""
    if game not in games_with("exact_solver"):
        raise ValueError(f"game {game!r}: the exact solver covers put only")
    rules = parse_options(options)
    if deck_ranks is not None:  # None: not given (the option, else the full pack)
        if "deck_ranks" in rules and rules["deck_ranks"] != deck_ranks:
            raise ValueError(
                f"--deck-ranks {deck_ranks} and --option deck_ranks={rules['deck_ranks']} disagree"
            )
        rules["deck_ranks"] = deck_ranks
    config = PutConfig.from_dict(rules)
    return config, parse_score(score, config)


def solve(config, score, iterations, out, checkpoint, every, resume, force, progress=True):
    """Run DCFR; returns the final ``Exploitability`` of the strategy written to ``out``."""
    out, checkpoint = Path(out), Path(checkpoint)
    check_regular_target(out, "--out")  # before the run: never a device or a FIFO
    check_regular_target(checkpoint, "--checkpoint")
    for path in (out, checkpoint):  # a killed solve's temporary files (up to 230 MB each)
        remove_stale_temps(path)
    if out.exists() and not force:
        raise ValueError(f"{out} exists: pass --force to overwrite it")
    if checkpoint.exists() and not (resume or force):
        raise ValueError(f"checkpoint {checkpoint} exists: pass --resume or --force")
    if iterations < 1:
        raise ValueError(f"--iterations must be >= 1, got {iterations}")
    if every < 0:
        raise ValueError(f"--checkpoint-every must be >= 0 (0 = no checkpoints), got {every}")
    game = HandGame.build(config, score)
    rules = {**config.to_dict(), "reward": "points"}
    meta = {"deck_ranks": config.deck_ranks, "score": list(score), "config": rules}
    regret, avg = Accumulators.zeros(game.tree), Accumulators.zeros(game.tree)
    done = 0
    started = time.perf_counter()
    if resume and checkpoint.exists():
        arrays, saved = load_checkpoint(checkpoint, game.tree)
        # A key the checkpoint lacks is an option added since; heads-up play ignores the 3- and
        # 4-player ones (P7, P8), so only the keys both name must agree.
        stored = saved.get("config") or {}
        differ = sorted(k for k in rules if k in stored and stored[k] != rules[k])
        if differ or saved.get("score") != list(score):
            what = ", ".join(differ) if differ else "score"
            raise ValueError(f"checkpoint {checkpoint} was made for other rules ({what})")
        regret = Accumulators.from_arrays({k[2:]: v for k, v in arrays.items() if k[:2] == "r_"})
        avg = Accumulators.from_arrays({k[2:]: v for k, v in arrays.items() if k[:2] == "a_"})
        done = int(saved["iterations"])
    from tqdm import tqdm

    bar = tqdm(
        total=iterations,
        initial=min(done, iterations),
        disable=not progress,
        unit="it",
        desc=f"DCFR deck_ranks={config.deck_ranks}",
    )

    def save_ckpt(t: int) -> None:
        arrays = {f"r_{k}": v for k, v in regret.arrays().items()}
        arrays |= {f"a_{k}": v for k, v in avg.arrays().items()}
        save_checkpoint(checkpoint, arrays, {**meta, "iterations": t})

    for t in range(done + 1, iterations + 1):
        iterate(game.tree, game.points, regret, avg, t)
        bar.update(1)
        if every and t % every == 0:
            save_ckpt(t)
    bar.close()
    if every and (iterations % every or done >= iterations):
        save_ckpt(max(iterations, done))
    solved = max(iterations, done)
    meta_out = {**meta, "iterations": solved, "solve_seconds": time.perf_counter() - started}
    average = normalise(game.tree, avg)
    save_strategy(out, average, meta_out)
    strategy, _ = load_strategy(out, game.tree)  # measure what was written (float16)
    result = exploitability(game, strategy)
    save_strategy(  # the same float16 arrays again, with the figures measured on them
        out,
        average,
        {
            **meta_out,
            "exploitability": result.exploitability,
            "value_non_dealer": result.value_non_dealer,
        },
    )
    return result


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m brag_env.solve", description=__doc__.split("\n")[1])
    parser.add_argument("game", help="the game: put")
    parser.add_argument(
        "--deck-ranks", type=int, default=None, help="deck of the top K ranks (default 13)"
    )
    parser.add_argument("--score", default="0-0", help="match score A-B: non-dealer, dealer")
    parser.add_argument("--option", action="append", default=[], help="Put option KEY=VALUE")
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--out", default=DEFAULT_OUT)
    parser.add_argument("--checkpoint", default=None, help="default: OUT with .ckpt.npz")
    parser.add_argument("--checkpoint-every", type=int, default=10)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args(argv)
    try:
        config, score = config_from_cli(args.game, args.option, args.deck_ranks, args.score)
        ckpt = args.checkpoint or str(Path(args.out).with_suffix("")) + ".ckpt.npz"
        result = solve(
            config,
            score,
            args.iterations,
            args.out,
            ckpt,
            args.checkpoint_every,
            args.resume,
            args.force,
        )
    except BrokenPipeError:
        raise  # stdout's reader has gone: quiet_on_closed_pipe ends the command
    except (ValueError, OSError) as error:
        print(f"python -m brag_env.solve: error: {one_line(error)}", file=sys.stderr)
        return 2
    print(
        f"wrote {args.out}: exploitability {result.exploitability:.6f} points/hand, "
        f"game value {result.value_non_dealer:+.6f} for the non-dealer"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
