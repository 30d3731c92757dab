"""Solve one heads-up hand of a small Brag deck (DCFR or CFR+) and write the strategy file.

    python -m brag_env.brag.solver --option deck_ranks=2 --option starting_chips=6 \\
        --option max_stake=4 [--method dcfr|cfr+] [--target 1e-3] [--max-iterations 5000]
        [--out FILE.npz]

Prints the NashConv every ``--check-every`` iterations and, at the end (the best average
strategy measured is the one written), the game value for
seat 0 (the first to bet; the dealer is seat 1) and the file written (``brag:equilibrium``
plays it, ``docs/openspiel.md``).
"""

from __future__ import annotations

import sys
import time

from brag_env.ui.cli import OneLineParser, one_line, parse_options, quiet_on_closed_pipe

DEFAULT_OUT = "models/brag_equilibrium.npz"


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(
        prog="python -m brag_env.brag.solver", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--option", action="append", default=[], help="Brag option KEY=VALUE")
    parser.add_argument("--target", type=float, default=1e-3, help="NashConv to reach (chips)")
    parser.add_argument("--max-iterations", type=int, default=5000)
    parser.add_argument("--check-every", type=int, default=50)
    parser.add_argument("--method", choices=("cfr+", "dcfr"), default="dcfr")
    parser.add_argument("--out", default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    try:
        from brag_env.brag.solver.cfr import DCFR, CFRPlus
        from brag_env.brag.solver.exact import exact_config
        from brag_env.brag.solver.io import save_strategy
        from brag_env.brag.solver.tree import build_tree
        from brag_env.io import check_writable

        config = exact_config(parse_options(args.option))
        check_writable(args.out, "--out")
        started = time.perf_counter()
        tree = build_tree(config)
        print(f"public nodes {tree.num_nodes}, information sets {tree.info_sets()}")
        solver = (DCFR if args.method == "dcfr" else CFRPlus)(tree)
        result = solver.solve(args.target, args.max_iterations, args.check_every, print)
        seconds = time.perf_counter() - started
        meta = {
            "method": args.method,
            "iterations": solver.best_iteration,
            "nash_conv": result.nash_conv,
            "value_seat0": result.value0,
            "seconds": round(seconds, 1),
        }
        save_strategy(args.out, tree, solver.best, meta)
    except BrokenPipeError:
        raise  # stdout's reader has gone: quiet_on_closed_pipe ends the command
    except (ValueError, OSError) as error:
        print(f"python -m brag_env.brag.solver: error: {one_line(error)}", file=sys.stderr)
        return 2
    print(
        f"{args.method}: best average after {solver.best_iteration} of {solver.iterations} "
        f"iterations, {seconds:.1f} s: NashConv {result.nash_conv:.6f}"
        f"; game value for seat 0 {result.value0:+.6f} chips/hand; wrote {args.out}"
    )
    return 0 if result.nash_conv <= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
