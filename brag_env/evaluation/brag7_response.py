"""The one-deal best response of heads-up Seven-card Brag (B24) against an agent spec.

``python -m brag_env.evaluation.brag7_response --opponent brag7:balanced`` prints the value
(antes per deal) of the best response to that agent, exact on the 16-card deck
(``--deck-ranks 4``, the default) and sampled with a 95% CI on larger decks, beside the values
of the baselines against it. The policies come from the agents as they play the env: each
opponent hand is dealt to seat 1 of a fresh ``brag7_v0`` table (the opponent arranges first)
and the agent acts on that observation. ``random`` and ``brag7:random`` are read as the
uniform distribution over the 140 arrangements; any other agent is asked once per hand, so a
stochastic one is taken at one sample of its choices (the baselines are deterministic).
See ``brag_env.brag7.best_response`` for the method.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.registry import make_agent, parse_spec
from agents.tables import table_info_from_env
from brag_env.brag7.best_response import (
    Policy,
    TooLargeError,
    exact_best_response,
    policy_value,
    sampled_best_response,
)
from brag_env.brag7.game import stacked_deck
from brag_env.brag7.rules import CARDS_EACH, NUM_ARRANGEMENTS, Brag7Config
from brag_env.ui.cli import quiet_on_closed_pipe

BASELINES = ("random", "brag7:strongest_first", "brag7:balanced")


def policy_from_spec(spec: str, config: Brag7Config, seed: int = 0) -> Policy:
    """The policy (cards -> 140 probabilities) that agent ``spec`` plays at a one-deal table
    of ``config`` (module docstring); answers are cached per hand."""
    from brag_env import brag7_v0

    parsed = parse_spec(spec, "brag7")
    uniform = np.full(NUM_ARRANGEMENTS, 1.0 / NUM_ARRANGEMENTS)
    if parsed.kind == "random" or parsed.style == "random":
        return lambda cards: uniform
    env = brag7_v0.raw_env(config=config)
    agent = make_agent(parsed, table_info_from_env(env), seed)
    deck = config.deck_cards()
    cache: dict[tuple[int, ...], np.ndarray] = {}

    def policy(cards: tuple[int, ...]) -> np.ndarray:
        probs = cache.get(cards)
        if probs is None:
            others = [c for c in deck if c not in cards][:CARDS_EACH]
            env.reset(seed=0, options={"deck": stacked_deck([others, cards], 0), "dealer": 0})
            obs = env.observe("player_1")
            probs = np.zeros(NUM_ARRANGEMENTS)
            probs[agent.act(obs["observation"], obs["action_mask"])] = 1.0
            cache[cards] = probs
        return probs

    return policy


def best_response_report(
    opponent: str, deck_ranks: int = 4, lowball: bool = False, seed: int = 0, hands: int = 200
) -> dict[str, Any]:
    """The best response to ``opponent`` and the baselines' values against it (antes/deal)."""
    config = Brag7Config(num_players=2, hands_per_session=1, deck_ranks=deck_ranks, lowball=lowball)
    theirs = policy_from_spec(opponent, config, seed)
    try:  # exact when the enumeration is small enough (a deterministic agent, 16 cards)
        response = exact_best_response(config, theirs)
        baselines = {
            spec: policy_value(config, policy_from_spec(spec, config, seed), theirs)
            for spec in BASELINES
        }
    except TooLargeError:
        response = sampled_best_response(config, theirs, hands=hands, seed=seed)
        baselines = {}
    return {
        "opponent": opponent,
        "config": config.to_dict(),
        "best_response": response.to_dict(),
        "baselines_exact": baselines,
    }


@quiet_on_closed_pipe
def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m brag_env.evaluation.brag7_response",
        description="Heads-up Seven-card Brag: the one-deal best response to an agent.",
    )
    p.add_argument("--opponent", default="brag7:balanced", help="agent spec (default balanced)")
    p.add_argument(
        "--deck-ranks",
        type=int,
        default=4,
        help="4 = exact for a deterministic agent (default); more: sampled",
    )
    p.add_argument("--lowball", action="store_true", help="B21 order")
    p.add_argument("--hands", type=int, default=200, help="sampled: hands to sample")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    args = p.parse_args(argv)
    try:
        report = best_response_report(
            args.opponent, args.deck_ranks, args.lowball, args.seed, args.hands
        )
    except ValueError as err:
        p.error(str(err))
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    r = report["best_response"]
    how = "exact" if r["exact"] else f"sampled, 95% CI [{r['ci_low']:+.4f}, {r['ci_high']:+.4f}]"
    print(
        f"best response to {args.opponent} ({args.deck_ranks}-rank deck, one deal, heads-up): "
        f"{r['value']:+.4f} antes/deal ({how}); scoops {r['scoop_rate']:.1%}, "
        f"scooped {r['loss_rate']:.1%}"
    )
    for spec, value in report["baselines_exact"].items():
        print(f"  {spec:<24} {value:+.4f} antes/deal (exact)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
