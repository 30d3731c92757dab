"""Where a profile loses, and what averaging several profiles is worth (``docs/solver.md``).

``regret_table`` splits a profile's immediate counterfactual regrets against itself by layer,
role and kind of decision. At an information set the regret is how much the player would gain
by switching to its best single action there, the rest of the profile unchanged, weighted by
the deal and the opponent's reach (CFR's quantity: their sum over one player bounds that
player's best-response gain, so the total bounds twice the exploitability). Weighted by the
player's own reach too it is what the player gains in play from that one switch: the signal an
on-policy learner sampling its own games gets. Regret where the player's own reach is 0 costs
nothing (it never plays there); regret in play at decisions every hand reaches (layers 0 and 1)
is a learner failing to follow a signal it sees all the time.

``average`` is the behaviour form of the mixture "pick one profile per hand with these weights"
(Kuhn's theorem): at each information set the profiles' action probabilities weighted by each
profile's own reach there. The average of a learner's snapshots is what fictitious play and
NFSP's average policy aim at.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from brag_env.put.solver.passes import backward, forward
from brag_env.put.solver.strategy import Strategy, legal_slots
from brag_env.put.solver.tree import DEPTH, PutTree

ROLE_NAMES = ("non-dealer", "dealer")


@dataclass(frozen=True)
class RegretRow:
    layer: int  # cards played before the decision (0..5)
    role: int  # 0 non-dealer, 1 dealer: who decides
    kind: str  # "free" (play a card or call Put), "seen" (play after a seen Put), "answer"
    regret: float  # counterfactual: deal x opponent's reach
    in_play: float  # also x the decider's own reach


def regret_table(tree: PutTree, strategy: Strategy, points: np.ndarray) -> list[RegretRow]:
    """Immediate regrets of ``strategy`` against itself (module docstring), one row per layer,
    role and kind."""
    reach = forward(tree, strategy)
    values = backward(tree, strategy, reach, points, keep=True)
    own_actor, own_other = reach
    rows: list[RegretRow] = []
    for d in range(DEPTH):
        actor = tree.layers[d].actor
        q = np.where(legal_slots(tree, d)[None, None], values.q_play[d], -np.inf)
        best = q.max(axis=3)
        best[0] = np.maximum(best[0], values.q_put[d])  # the free state may call Put
        play = np.where(np.isfinite(best), np.maximum(best - values.v_act[d], 0.0), 0.0)
        see = strategy.see[d]
        answered = see * values.q_see[d] + (1.0 - see) * values.q_fold[d]
        answer = np.maximum(np.maximum(values.q_see[d], values.q_fold[d]) - answered, 0.0)
        for role in (0, 1):
            acts = actor == role
            for kind, states in (("free", slice(0, 1)), ("seen", slice(1, None))):
                r = play[states][:, acts]
                own = own_actor[d][states][:, acts]
                rows.append(RegretRow(d, role, kind, float(r.sum()), float((r * own).sum())))
            answers = actor != role  # the answer to a Put is the other player's
            r = answer[answers]
            own = own_other[d][0][answers]
            rows.append(RegretRow(d, role, "answer", float(r.sum()), float((r * own).sum())))
    return rows


def average(
    tree: PutTree, strategies: Sequence[Strategy], weights: Sequence[float] | None = None
) -> Strategy:
    """The reach-weighted average of ``strategies`` (module docstring); equal weights unless
    given. Where no profile reaches an information set the last one's probabilities stand."""
    if not strategies:
        raise ValueError("average needs at least one strategy")
    weights = [1.0] * len(strategies) if weights is None else list(weights)
    if len(weights) != len(strategies) or min(weights) < 0 or sum(weights) <= 0:
        raise ValueError("average: one weight >= 0 per strategy, not all 0")
    reaches = [forward(tree, s) for s in strategies]
    last = strategies[-1]
    put, play, see = [], [], []
    for d in range(DEPTH):
        own_a = [w * r[0][d] for w, r in zip(weights, reaches, strict=True)]  # (S, N, Ha)
        own_o = [w * r[1][d][0] for w, r in zip(weights, reaches, strict=True)]  # (N, Ho)
        za, zo = sum(own_a), sum(own_o)

        def mean(num: np.ndarray, z: np.ndarray, fallback: np.ndarray) -> np.ndarray:
            return np.where(z > 0, num / np.where(z > 0, z, 1.0), fallback)

        pairs = list(zip(own_a, strategies, strict=True))
        put.append(mean(sum(r[0] * s.put[d] for r, s in pairs), za[0], last.put[d]))
        answers = zip(own_o, strategies, strict=True)
        see.append(mean(sum(r * s.see[d] for r, s in answers), zo, last.see[d]))
        if last.play[d] is None:
            play.append(None)
            continue
        num = sum(r[..., None] * s.play[d] for r, s in pairs)
        play.append(mean(num, za[..., None], last.play[d]))
    return Strategy(put, play, see)


def format_regrets(rows: Sequence[RegretRow], exploitability: float, least: float = 0.002) -> str:
    """The table ``python -m brag_env.exploit put AGENT --breakdown`` prints: rows whose
    counterfactual regret is at least ``least``, then the totals."""
    lines = [
        "immediate regrets against itself (points/hand; in play = x the decider's own reach):",
        f"{'layer':>5}  {'decider':<10}  {'decision':<8}  {'regret':>8}  {'in play':>8}",
    ]
    for row in rows:
        if row.regret >= least:
            lines.append(
                f"{row.layer:>5}  {ROLE_NAMES[row.role]:<10}  {row.kind:<8}  "
                f"{row.regret:>8.4f}  {row.in_play:>8.4f}"
            )
    total = sum(row.regret for row in rows)
    in_play = sum(row.in_play for row in rows)
    lines.append(
        f"total {total:.4f} (in play {in_play:.4f}); it bounds twice the exploitability, "
        f"{2 * exploitability:.4f}"
    )
    return "\n".join(lines)


def pair(tree: PutTree, non_dealer: Strategy, dealer: Strategy) -> Strategy:
    """One profile in which the non-dealer plays ``non_dealer``'s choices and the dealer
    ``dealer``'s (Put calls and cards at the nodes where that role acts, answers where the
    other acts): how two different agents meet in the solver's passes."""
    put, play, see = [], [], []
    for d in range(DEPTH):
        nd_acts = (tree.layers[d].actor == 0)[:, None]
        put.append(np.where(nd_acts, non_dealer.put[d], dealer.put[d]))
        see.append(np.where(nd_acts, dealer.see[d], non_dealer.see[d]))
        if non_dealer.play[d] is None:
            play.append(None)
        else:
            play.append(np.where(nd_acts[None, :, :, None], non_dealer.play[d], dealer.play[d]))
    return Strategy(put, play, see)
