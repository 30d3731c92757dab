"""Exact exploitability of any agent in one heads-up hand of a small Brag deck.

``measure(spec, config)`` builds the hand's tree (``tree.build_tree``), reads the agent's exact
behaviour strategy at every information set from the observations ``brag_v1`` would give it
(``agents.brag_policy``) and computes both seats' best responses (``cfr.evaluate``). The
figures are chips per hand: OpenSpiel's ``exploitability`` (NashConv / 2) of the same profile
on the ``python_brag_env_brag`` game (``docs/openspiel.md``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from brag_env.brag.rules import BragConfig
from brag_env.brag.solver.cfr import Exploitability, evaluate
from brag_env.brag.solver.tree import build_tree, check_hand_config

MAX_EXACT_DECK_RANKS = 4  # C(16, 3) = 560 hands a seat: seconds; larger decks take too long


@dataclass
class Measured:
    result: Exploitability
    seconds: float
    info_sets: int
    public_nodes: int


def exact_config(options: dict[str, Any]) -> BragConfig:
    """The rules of an exact measure: heads-up unless ``num_players`` says otherwise (then the
    one-line refusal), one hand, a deck of at most ``MAX_EXACT_DECK_RANKS`` ranks."""
    config = BragConfig.from_dict({"num_players": 2, **options})
    check_hand_config(config)
    if config.deck_ranks > MAX_EXACT_DECK_RANKS:
        raise ValueError(
            f"the exact Brag measure covers deck_ranks <= {MAX_EXACT_DECK_RANKS}, "
            f"got {config.deck_ranks}"
        )
    return config


def measure(spec: str, config: BragConfig, seed: int = 0, dealer: int = 1) -> Measured:
    from agents.brag_policy import agent_strategy
    from agents.registry import make_agent
    from agents.tables import table_info

    started = time.perf_counter()
    tree = build_tree(config, dealer)
    agent = make_agent(spec, table_info("brag", **config.to_dict()), seed=seed)
    strategy = agent_strategy(agent, tree)
    result = evaluate(tree, strategy)
    return Measured(result, time.perf_counter() - started, tree.info_sets(), tree.num_nodes)


def report(spec: str, config: BragConfig, m: Measured) -> str:
    r = m.result
    return "\n".join(
        [
            f"agent {spec}  deck_ranks {config.deck_ranks}  starting_chips {config.starting_chips}"
            f"  max_stake {config.max_stake}  (heads-up, one hand; seat 0 bets first)",
            f"information sets: {m.info_sets}  public nodes: {m.public_nodes}",
            f"best response as seat 0 (first to bet): {r.br0:+.6f} chips/hand",
            f"best response as seat 1 (dealer):       {r.br1:+.6f} chips/hand",
            f"agent's value as seat 0 (against itself): {r.value0:+.6f}",
            f"exploitability (NashConv / 2):          {r.exploitability:.6f} chips/hand",
            f"time: {m.seconds:.1f} s",
        ]
    )


def exact_cli(spec: str, options: dict[str, Any], seed: int) -> int:
    """``python -m brag_env.exploit brag AGENT --option deck_ranks=K ...``: print the report."""
    import sys

    from brag_env.ui.cli import one_line

    try:
        config = exact_config(options)
        measured = measure(spec, config, seed)
    except (ValueError, OSError) as error:
        print(f"python -m brag_env.exploit: error: {one_line(error)}", file=sys.stderr)
        return 2
    print(report(spec, config, measured))
    return 0
