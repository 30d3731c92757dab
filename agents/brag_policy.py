"""Any Brag agent as the exact behaviour strategy it plays in one heads-up hand.

``agent_strategy(agent, tree)`` asks the agent at every information set of a ``HandTree``
(``brag_env.brag.solver``), from the observation ``brag_v1`` would give it there (the engine
of the public node, the seat's hand put in, ``BragObserver``). The answer is exact:

- trained models: their ``action_probabilities`` (the policy's distribution);
- every other agent: its own ``act``, run once per outcome of every draw it makes from its
  generator (``ScriptedRng``: ``random() < p`` branches with chances p and 1 - p, ``integers(n)``
  into n equally likely ones), so a rule that bluffs with chance 0.3 is read as 0.3, not sampled.

The rule baselines keep state within a hand (the bets made, a bluffer's once-per-hand decision).
Walking the tree for one seat and one hand, the reader carries every state the agent may be in,
each weighted by the chance that it took the seat's own actions so far, and gives at each
information set the mixture of their answers: the behaviour strategy of that mixed strategy
(perfect recall: own actions are in the information state). Information sets the agent never
reaches (chance 0 of its own actions) get uniform play: no value depends on them.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from agents.base import Agent
from brag_env.brag.observation import BragObserver
from brag_env.brag.solver.cfr import Strategy, uniform_strategy
from brag_env.brag.solver.tree import HandTree


class _Draw:
    """The value of one ``random()`` call: comparing it with p takes the scripted branch."""

    def __init__(self, rng: ScriptedRng) -> None:
        self.rng = rng

    def _below(self, p: float) -> bool:
        p = min(max(float(p), 0.0), 1.0)
        return self.rng.branch([p, 1.0 - p]) == 0

    def __lt__(self, p: float) -> bool:
        return self._below(p)

    def __le__(self, p: float) -> bool:  # equal to p has chance 0
        return self._below(p)

    def __gt__(self, p: float) -> bool:
        return not self._below(p)

    def __ge__(self, p: float) -> bool:
        return not self._below(p)


class ScriptedRng:
    """Stands in for an agent's generator: each draw takes the next scripted branch (0 when the
    script runs out), and the draws' branch counts and chances are recorded for enumeration."""

    def __init__(self, script: list[int]) -> None:
        self.script = script
        self.taken: list[tuple[int, list[float]]] = []

    def branch(self, chances: list[float]) -> int:
        i = len(self.taken)
        pick = self.script[i] if i < len(self.script) else 0
        self.taken.append((pick, chances))
        return pick

    def random(self, size: Any = None) -> _Draw:
        if size is not None:
            raise ValueError("the exact reader follows scalar draws only (random() without size)")
        return _Draw(self)

    def integers(self, low: int, high: int | None = None, size: Any = None) -> int:
        if size is not None:
            raise ValueError("the exact reader follows scalar draws only (integers() without size)")
        lo, hi = (0, int(low)) if high is None else (int(low), int(high))
        return lo + self.branch([1.0 / (hi - lo)] * (hi - lo))

    def __getattr__(self, name: str) -> Any:
        raise ValueError(f"the exact reader cannot follow the agent's use of rng.{name}")


def outcomes(agent: Agent, obs: np.ndarray, mask: np.ndarray) -> list[tuple[float, int, Agent]]:
    """Every (chance, action, agent after) of one ``act`` call, enumerating the agent's draws."""
    out: list[tuple[float, int, Agent]] = []
    scripts: list[list[int]] = [[]]
    while scripts:
        script = scripts.pop()
        twin = copy.copy(agent)
        rng = ScriptedRng(script)
        twin.rng = rng  # type: ignore[assignment]
        action = int(twin.act(obs, mask))
        chance = 1.0
        for i, (pick, chances) in enumerate(rng.taken):
            chance *= chances[pick]
            if i >= len(script):  # a draw not scripted yet: its other branches are to do
                scripts += [
                    [*script, *(p for p, _ in rng.taken[len(script) : i]), b]
                    for b in range(1, len(chances))
                ]
        if chance > 0:
            twin.rng = agent.rng  # the copy keeps its per-hand state, not the script
            out.append((chance, action, twin))
    return out


def agent_strategy(agent: Agent, tree: HandTree) -> Strategy:
    """The agent's behaviour strategy at every information set of ``tree`` (both seats)."""
    strategy = uniform_strategy(tree)
    observer = BragObserver(tree.config)
    probabilities = getattr(agent, "action_probabilities", None)
    for seat in (0, 1):
        for h, hand in enumerate(tree.hands.tolist()):
            agent.reset()
            _walk(tree, observer, strategy, seat, h, hand, 0, [(1.0, agent)], probabilities)
    return strategy


def _observe(tree: HandTree, observer: BragObserver, v: int, seat: int, hand: list[int]):
    """The seat's observation and mask at public node ``v`` holding ``hand``."""
    engine = tree.engines[v]
    dealt = engine.hands[seat]
    engine.hands[seat] = hand
    try:
        obs = observer.set_from(engine, seat).copy()
    finally:
        engine.hands[seat] = dealt
    return obs, np.array(engine.legal_mask(), dtype=np.int8)


def _walk(tree, observer, strategy, seat, h, hand, v, states, probabilities) -> None:
    p = tree.player[v]
    if p < 0:
        return
    kids = tree.children[v]
    if p != seat:
        for _, child in kids:
            _walk(tree, observer, strategy, seat, h, hand, child, states, probabilities)
        return
    blind = not tree.looked[v][p]
    if blind and h > 0:  # a blind seat's answer does not depend on its hand: read once
        _descend(tree, observer, strategy, seat, h, hand, v, states, probabilities, None)
        return
    _descend(tree, observer, strategy, seat, h, hand, v, states, probabilities, blind)


def _descend(tree, observer, strategy, seat, h, hand, v, states, probabilities, blind) -> None:
    obs, mask = _observe(tree, observer, v, seat, hand)
    kids = tree.children[v]
    index = {a: i for i, (a, _) in enumerate(kids)}
    mix = np.zeros(len(kids))
    after: list[list[tuple[float, Agent]]] = [[] for _ in kids]
    total = sum(w for w, _ in states)
    for weight, state in states:
        if probabilities is not None:  # a model: stateless, its distribution
            probs = probabilities(obs, mask)
            for a, i in index.items():
                if probs[a] > 0:
                    mix[i] += weight * probs[a]
                    after[i].append((weight * probs[a], state))
            continue
        for chance, action, twin in outcomes(state, obs, mask):
            if action not in index:
                raise ValueError(f"agent {state.name!r} chose illegal action {action}")
            i = index[action]
            mix[i] += weight * chance
            after[i].append((weight * chance, twin))
    if blind is not None:
        sigma = mix / total
        if blind:
            strategy[v] = sigma
        else:
            strategy[v][h] = sigma
    for i, (_, child) in enumerate(kids):
        if after[i]:
            _walk(tree, observer, strategy, seat, h, hand, child, after[i], probabilities)
