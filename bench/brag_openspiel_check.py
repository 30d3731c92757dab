"""Cross-check the exact small-deck Brag measure with OpenSpiel's own exploitability (slow).

    python bench/brag_openspiel_check.py AGENT [AGENT ...] [--option k=v ...]

Builds the ``python_brag_env_brag`` game and the solver's tree for the same rules (heads-up,
one hand) and, for each agent in turn, reads its exact strategy (``agents.brag_policy``) and
prints one line: the solver's exploitability, OpenSpiel's ``pyspiel.exploitability`` of the same
strategy (a tabular policy over OpenSpiel's information states, enumerated once for all agents),
their difference and both times. OpenSpiel walks the Python game state by state: minutes per
agent on a deck where every action occurs (docs/openspiel.md).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("agents", nargs="+", metavar="AGENT")
    parser.add_argument("--option", action="append", default=[])
    args = parser.parse_args(argv)

    import pyspiel
    from open_spiel.python import policy as os_policy

    import brag_env.openspiel  # noqa: F401  (registers the game)
    from agents.brag_policy import agent_strategy
    from agents.registry import make_agent
    from agents.tables import table_info
    from brag_env.brag.solver.cfr import evaluate
    from brag_env.brag.solver.tree import build_tree
    from brag_env.openspiel.brag import SHORT_NAME
    from brag_env.openspiel.policy import StrategyPolicy, fill_tabular
    from brag_env.ui.cli import parse_options

    params = {"num_players": 2, **parse_options(args.option)}
    game = pyspiel.load_game(SHORT_NAME, params)
    tree = build_tree(game.config, game.dealer)
    table = table_info("brag", **game.config.to_dict())
    started = time.perf_counter()
    tabular = os_policy.TabularPolicy(game)  # every information state of both players, once
    print(
        f"{tree.num_nodes} public nodes, {len(tabular.state_lookup)} information sets "
        f"(enumerated in {time.perf_counter() - started:.1f} s)",
        flush=True,
    )
    for spec in args.agents:
        started = time.perf_counter()
        strategy = agent_strategy(make_agent(spec, table, seed=0), tree)
        ours = evaluate(tree, strategy).exploitability
        ours_s = time.perf_counter() - started
        started = time.perf_counter()
        fill_tabular(tabular, StrategyPolicy(game, tree, strategy))
        theirs = pyspiel.exploitability(game, tabular.to_dict())
        theirs_s = time.perf_counter() - started
        print(
            f"{spec}: solver {ours:.9f} ({ours_s:.1f} s)  OpenSpiel {theirs:.9f} "
            f"({theirs_s:.1f} s)  difference {abs(ours - theirs):.2e}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
