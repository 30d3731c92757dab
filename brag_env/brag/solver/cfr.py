"""CFR+ and exact best responses on a ``HandTree``, vectorised over the private hands.

A *strategy* is one array per decision node of the public tree, in ``HandTree.player`` order:
(H, A) action probabilities per own hand where the seat to act has looked, (A,) where it is
blind (one information set: it does not know its hand, B10). Values are seat 0's chips; a
counterfactual value vector holds, per own hand, the chance of the deal times the opponent's
reach times the payoff, summed over the opponent's hands.

CFR+ (Tammelin 2014): alternating updates, regrets floored at zero, the average strategy
weighted by the iteration number (linear averaging). ``DCFR``: discounted CFR, the same walk.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from brag_env.brag.solver.tree import HandTree

Strategy = list[np.ndarray | None]  # None at terminals


class _Payoffs:
    """Seat 0's terminal values as matrix products: M_k = P(deal) * [hands disjoint] * [the
    comparison is k], so that U0 = sum_k pay_k M_k."""

    def __init__(self, tree: HandTree) -> None:
        compat = tree.compatible() * tree.deal_probability
        cmp = tree.comparison()
        self.mats = [compat * (cmp == k) for k in range(3)]
        self.fold = compat  # a fold's payoff does not depend on the comparison

    def value(self, pay: tuple[float, float, float], seat: int, reach_other: np.ndarray):
        if pay[0] == pay[1] == pay[2]:
            if seat == 0:
                return pay[0] * (self.fold @ reach_other)
            return -pay[0] * (self.fold.T @ reach_other)
        if seat == 0:
            return sum(p * (m @ reach_other) for p, m in zip(pay, self.mats, strict=True) if p)
        return -sum(p * (m.T @ reach_other) for p, m in zip(pay, self.mats, strict=True) if p)


def uniform_strategy(tree: HandTree) -> Strategy:
    """Every legal action equally likely (the ``random`` agent)."""
    out: Strategy = []
    for v, p in enumerate(tree.player):
        if p < 0:
            out.append(None)
            continue
        a = len(tree.children[v])
        shape = (tree.num_hands, a) if tree.looked[v][p] else (a,)
        out.append(np.full(shape, 1.0 / a))
    return out


def _matching(regret: np.ndarray) -> np.ndarray:
    """Regret matching: positive regrets normalised; uniform where none is positive."""
    pos = np.maximum(regret, 0.0)
    total = pos.sum(axis=-1, keepdims=True)
    a = regret.shape[-1]
    return np.where(total > 0, pos / np.where(total > 0, total, 1.0), 1.0 / a)


def _as_rows(sigma: np.ndarray, h: int) -> np.ndarray:
    return sigma if sigma.ndim == 2 else np.broadcast_to(sigma, (h, sigma.shape[0]))


def _with_reach(reach: list[np.ndarray], seat: int, sigma_a: np.ndarray) -> list[np.ndarray]:
    """The two seats' reach after ``seat`` takes an action it plays with ``sigma_a`` per hand."""
    out = list(reach)
    out[seat] = reach[seat] * sigma_a
    return out


class _Walker:
    def __init__(self, tree: HandTree) -> None:
        self.tree = tree
        self.pay = _Payoffs(tree)
        self.h = tree.num_hands
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

    def values(self, v: int, seat: int, reach: list[np.ndarray], profile: Strategy, best: bool):
        """Counterfactual values of ``seat`` below node ``v`` (per own hand), the other seat
        playing ``profile``; ``seat`` plays ``profile`` too, or a best response if ``best``."""
        tree = self.tree
        p = tree.player[v]
        if p < 0:
            return self.pay.value(tree.payoff[v], seat, reach[1 - seat])
        kids = tree.children[v]
        sigma = _as_rows(profile[v], self.h)  # type: ignore[arg-type]
        if p != seat:
            total = np.zeros(self.h)
            for i, (_, child) in enumerate(kids):
                r = list(reach)
                r[p] = reach[p] * sigma[:, i]
                total += self.values(child, seat, r, profile, best)
            return total
        vals = np.stack([self.values(c, seat, reach, profile, best) for _, c in kids], axis=1)
        if not best:
            return (sigma * vals).sum(axis=1)
        if tree.looked[v][p]:
            return vals.max(axis=1)  # per hand: the hand is known
        return vals[:, int(vals.sum(axis=0).argmax())]  # blind: one action for every hand


@dataclass
class Exploitability:
    br0: float  # seat 0's best-response value against the profile's seat 1
    br1: float  # seat 1's best-response value against the profile's seat 0
    value0: float  # seat 0's value when both seats play the profile

    @property
    def nash_conv(self) -> float:
        return self.br0 + self.br1

    @property
    def exploitability(self) -> float:
        """OpenSpiel's ``exploitability``: NashConv over the two players, chips per hand."""
        return self.nash_conv / 2


def evaluate(tree: HandTree, profile: Strategy) -> Exploitability:
    """Both seats' exact best-response values against ``profile``, and its value."""
    w = _Walker(tree)
    ones = np.ones(tree.num_hands)
    br0 = float(w.values(0, 0, [ones, ones], profile, True).sum())
    br1 = float(w.values(0, 1, [ones, ones], profile, True).sum())
    value0 = float(w.values(0, 0, [ones, ones], profile, False).sum())
    return Exploitability(br0, br1, value0)


class CFRPlus:
    """CFR+ on a ``HandTree``; ``average()`` is the strategy that converges to equilibrium."""

    def __init__(self, tree: HandTree) -> None:
        self.tree = tree
        self.walker = _Walker(tree)
        self.regret: Strategy = []
        self.total: Strategy = []
        for s in uniform_strategy(tree):
            self.regret.append(None if s is None else np.zeros_like(s))
            self.total.append(None if s is None else np.zeros_like(s))
        self.iterations = 0
        self.best_iteration = 0

    def current(self) -> Strategy:
        return [None if r is None else _matching(r) for r in self.regret]

    def average(self) -> Strategy:
        # uniform where an information set was never reached by its own seat's play
        return [None if t is None else _matching(t) for t in self.total]

    def iterate(self) -> None:
        self.iterations += 1
        ones = np.ones(self.tree.num_hands)
        for seat in (0, 1):
            self._update(0, seat, [ones, ones], self._weight())

    def _weight(self) -> float:
        return float(self.iterations)  # linear averaging

    def _update(self, v: int, seat: int, reach: list[np.ndarray], weight: int) -> np.ndarray:
        tree = self.tree
        p = tree.player[v]
        if p < 0:
            return self.walker.pay.value(tree.payoff[v], seat, reach[1 - seat])
        kids = tree.children[v]
        regret = self.regret[v]
        assert regret is not None
        sigma = _matching(regret)
        rows = _as_rows(sigma, tree.num_hands)
        if p != seat:
            total = np.zeros(tree.num_hands)
            for i, (_, child) in enumerate(kids):
                total += self._update(child, seat, _with_reach(reach, p, rows[:, i]), weight)
            return total
        # the seat's own reach goes down with its own actions: it weighs the average strategy
        # (a counterfactual value itself uses only the other seat's reach)
        vals = np.stack(
            [
                self._update(c, seat, _with_reach(reach, p, rows[:, i]), weight)
                for i, (_, c) in enumerate(kids)
            ],
            axis=1,
        )
        value = (rows * vals).sum(axis=1)
        gain = vals - value[:, None]
        own = reach[p]
        avg = self.total[v]
        assert avg is not None
        if sigma.ndim == 2:
            regret += gain
            avg += weight * own[:, None] * sigma
        else:
            regret += gain.sum(axis=0)
            avg += weight * own.sum() * sigma
        self._discount(regret)
        return value

    def _discount(self, regret: np.ndarray) -> None:
        np.maximum(regret, 0.0, out=regret)  # CFR+: regrets floored at zero

    def solve(
        self,
        target: float,
        max_iterations: int,
        check_every: int = 50,
        log: Callable[[str], None] | None = None,
    ) -> Exploitability:
        """Iterate until the average strategy's NashConv is at most ``target`` (checked every
        ``check_every`` iterations) or ``max_iterations`` ran. The average can get worse for a
        while, so the best one measured is kept: ``best`` and its measure (returned)."""
        started = time.perf_counter()
        self.best = self.average()
        result = evaluate(self.tree, self.best)
        while self.iterations < max_iterations and result.nash_conv > target:
            self.iterate()
            if self.iterations % check_every == 0 or self.iterations == max_iterations:
                average = self.average()
                now = evaluate(self.tree, average)
                if log is not None:
                    log(
                        f"iteration {self.iterations}: NashConv {now.nash_conv:.6f} "
                        f"({time.perf_counter() - started:.1f} s)"
                    )
                if now.nash_conv < result.nash_conv:
                    self.best, result, self.best_iteration = average, now, self.iterations
        return result


class DCFR(CFRPlus):
    """Discounted CFR (Brown and Sandholm 2019), alpha 1.5, beta 0, gamma 2: after each update
    positive regrets are scaled by t^1.5 / (t^1.5 + 1), negative ones halved, and iteration t's
    strategy weighs t^2 in the average (the same thing as discounting the sum so far)."""

    def _discount(self, regret: np.ndarray) -> None:
        t = self.iterations**1.5
        regret *= np.where(regret > 0, t / (t + 1.0), 0.5)

    def _weight(self) -> float:
        return float(self.iterations) ** 2
