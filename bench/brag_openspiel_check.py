"""Cross-check the exact small-deck Brag measure with OpenSpiel's own exploitability (slow).

    python bench/brag_openspiel_check.py AGENT [--option k=v ...]

Builds the ``python_brag_env_brag`` game and the solver's tree for the same rules (heads-up,
one hand), reads the agent's exact strategy (``agents.brag_policy``), and prints the solver's
exploitability, OpenSpiel's ``pyspiel.exploitability`` of the same strategy (as a tabular
policy over OpenSpiel's information states) and both times. OpenSpiel walks the Python game
state by state: minutes for the yardstick deck (docs/openspiel.md).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("agent")
    parser.add_argument("--option", action="append", default=[])
    args = parser.parse_args(argv)

    import pyspiel

    import brag_env.openspiel  # noqa: F401  (registers the game)
    from agents.brag_policy import agent_strategy
    from agents.registry import make_agent
    from agents.tables import table_info
    from brag_env.brag.solver.cfr import evaluate
    from brag_env.brag.solver.tree import build_tree
    from brag_env.openspiel.brag import SHORT_NAME
    from brag_env.openspiel.policy import StrategyPolicy
    from brag_env.ui.cli import parse_options

    params = {"num_players": 2, **parse_options(args.option)}
    game = pyspiel.load_game(SHORT_NAME, params)
    started = time.perf_counter()
    tree = build_tree(game.config, game.dealer)
    agent = make_agent(args.agent, table_info("brag", **game.config.to_dict()), seed=0)
    strategy = agent_strategy(agent, tree)
    ours = evaluate(tree, strategy).exploitability
    mine_s = time.perf_counter() - started
    started = time.perf_counter()
    tabular = StrategyPolicy(game, tree, strategy).to_tabular()
    theirs = pyspiel.exploitability(game, tabular.to_dict())
    theirs_s = time.perf_counter() - started
    print(
        f"{args.agent}: solver {ours:.9f} ({mine_s:.1f} s)  OpenSpiel {theirs:.9f} "
        f"({theirs_s:.1f} s)  difference {abs(ours - theirs):.2e}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
