"""One-deal best response in heads-up Seven-card Brag (B24) against a fixed opponent policy.

The game is one deal between two players (``num_players=2``; the ante is the unit): each
antes, arranges seven cards, and a player who wins both hands takes the pot of two antes
(+1 ante), otherwise the pot is shared back (0). So the value of an arrangement ``a`` of my
seven cards ``H`` against the opponent's arrangement ``b`` of its cards ``O`` is
``+1`` if ``a`` beats ``b`` in both hands, ``-1`` if ``b`` beats ``a`` in both, else ``0``.
The opponent's policy maps its seven cards to a distribution over the 140 arrangements; it
does not see my cards or choice (B24), and ``O`` is uniform over the cards I do not hold, so

    EV(a | H) = mean over O of  sum_b  policy(O)[b] * value(a, b)

and the best response plays ``argmax_a EV(a | H)`` in every deal. Its value, the mean over
``H`` of ``max_a EV(a | H)``, is the most any player can win per deal against that policy.

``exact_best_response`` enumerates every ``H`` and every ``O``: feasible on a short deck
(``deck_ranks=4``, 16 cards: 11,440 hands and 36 opponent hands each). On larger decks
``sampled_best_response`` estimates it: a response chosen from sampled opponent hands, then
measured on fresh, independent deals, so the figure is an unbiased estimate (with a 95% CI) of
a strategy's value: a LOWER bound on the best response, up to sampling error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from math import comb

import numpy as np

from brag_env.brag.hands import hand_strength_batch
from brag_env.brag7.rules import CARDS_EACH, NUM_ARRANGEMENTS, Brag7Config, arrangement_hands
from brag_env.cards import make_rng

#: cards (7 sorted card ids) -> probabilities over the 140 arrangement ids
Policy = Callable[[tuple[int, ...]], np.ndarray]

#: hands x opponent hands x support above which ``exact_best_response`` refuses
EXACT_LIMIT = 200_000_000


class TooLargeError(ValueError):
    """The exact enumeration would take more than ``EXACT_LIMIT`` comparisons."""


@dataclass(frozen=True)
class ResponseResult:
    """The best response's value per deal in antes, and how it was found."""

    value: float  # mean payoff per deal, in antes (exact, or the sampled estimate)
    scoop_rate: float  # the share of deals it wins both hands
    loss_rate: float  # the share of deals the opponent wins both
    exact: bool
    deals: int  # (my hand, opponent hand) pairs enumerated, or fresh deals measured
    ci_low: float | None = None  # 95% CI of the sampled estimate (None when exact)
    ci_high: float | None = None

    def to_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def arrangement_strengths(cards: Sequence[int], lowball: bool) -> np.ndarray:
    """int [140, 2]: the strengths of the first and second hand of every arrangement."""
    first, second = arrangement_hands(cards)
    return np.stack(
        (hand_strength_batch(first, lowball), hand_strength_batch(second, lowball)), axis=1
    ).astype(np.int16)


def _check(config: Brag7Config) -> None:
    if config.num_players != 2:
        raise ValueError(
            f"the one-deal best response is heads-up: num_players must be 2, got "
            f"{config.num_players}"
        )


def _payoffs(mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """value(a, b) for my arrangements [A, 2] against theirs [..., 2]: shape [..., A]."""
    m_first, m_second = mine[:, 0], mine[:, 1]
    t_first, t_second = theirs[..., 0, None], theirs[..., 1, None]
    win = (m_first > t_first) & (m_second > t_second)
    lose = (m_first < t_first) & (m_second < t_second)
    return win.astype(np.int8) - lose.astype(np.int8)


def _opponent_points(strengths: np.ndarray, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    support = np.flatnonzero(probs > 0)
    return strengths[support], probs[support]


def _expected_values(
    mine: np.ndarray, opponents: list[tuple[np.ndarray, np.ndarray]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per arrangement of mine: EV, P(win both) and P(lose both), over the opponent hands
    (equally likely), each (its points, its probabilities): one comparison of every point."""
    points = np.concatenate([p for p, _ in opponents])
    weights = np.concatenate([w for _, w in opponents]) / len(opponents)
    value = _payoffs(mine, points)  # [all opponent points, A]
    return weights @ value, weights @ (value > 0), weights @ (value < 0)


@lru_cache(maxsize=4)
def _enumeration(
    deck_ranks: int, lowball: bool
) -> tuple[list[tuple[int, ...]], dict[tuple[int, ...], int], list[np.ndarray]]:
    """Every seven-card hand of the deck, its index, and its arrangements' strengths."""
    deck = Brag7Config(num_players=2, deck_ranks=deck_ranks).deck_cards()
    hands = list(combinations(deck, CARDS_EACH))
    index = {h: i for i, h in enumerate(hands)}
    return hands, index, [arrangement_strengths(h, lowball) for h in hands]


def _opponents_by_hand(
    config: Brag7Config, policy: Policy
) -> tuple[list[tuple[int, ...]], list[np.ndarray], list[tuple[np.ndarray, np.ndarray]]]:
    hands, _, strengths = _enumeration(config.deck_ranks, config.lowball)
    others = comb(config.deck_size - CARDS_EACH, CARDS_EACH)
    points = [
        _opponent_points(strengths[i], _check_probs(policy(h), h)) for i, h in enumerate(hands)
    ]
    work = len(hands) * others * max(len(p) for _, p in points) * NUM_ARRANGEMENTS
    if work > EXACT_LIMIT:
        raise TooLargeError(
            f"an exact best response here takes {work:,} comparisons (limit {EXACT_LIMIT:,}): "
            "use a shorter deck (deck_ranks=4) or sampled_best_response"
        )
    return hands, strengths, points


def _opponent_hands(
    config: Brag7Config, hand: tuple[int, ...], points: list[tuple[np.ndarray, np.ndarray]]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The opponent's (points, probabilities) for every hand of the cards ``hand`` leaves."""
    _, index, _ = _enumeration(config.deck_ranks, config.lowball)
    rest = sorted(set(config.deck_cards()) - set(hand))
    return [points[index[o]] for o in combinations(rest, CARDS_EACH)]


def exact_best_response(config: Brag7Config, policy: Policy) -> ResponseResult:
    """The exact one-deal best-response value against ``policy`` by enumeration (module doc)."""
    _check(config)
    hands, strengths, points = _opponents_by_hand(config, policy)
    total = win_total = lose_total = 0.0
    for i, h in enumerate(hands):
        ev, win, lose = _expected_values(strengths[i], _opponent_hands(config, h, points))
        best = int(np.argmax(ev))
        total += float(ev[best])
        win_total += float(win[best])
        lose_total += float(lose[best])
    n = len(hands)
    others = comb(config.deck_size - CARDS_EACH, CARDS_EACH)
    return ResponseResult(total / n, win_total / n, lose_total / n, True, n * others)


def policy_value(config: Brag7Config, mine: Policy, opponent: Policy) -> float:
    """The exact one-deal value (antes per deal) of policy ``mine`` against ``opponent``."""
    _check(config)
    hands, strengths, points = _opponents_by_hand(config, opponent)
    total = 0.0
    for i, h in enumerate(hands):
        ev, _, _ = _expected_values(strengths[i], _opponent_hands(config, h, points))
        total += float(_check_probs(mine(h), h) @ ev)
    return total / len(hands)


def expected_values(
    config: Brag7Config, hand: Sequence[int], opponent: Policy
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For one seven-card ``hand``: per arrangement id, the exact EV (antes) against
    ``opponent`` and the chances of winning and of losing both hands."""
    _check(config)
    mine = tuple(sorted(int(c) for c in hand))
    rest = sorted(set(config.deck_cards()) - set(mine))
    opponents = []
    for o in combinations(rest, CARDS_EACH):
        s = arrangement_strengths(o, config.lowball)
        opponents.append(_opponent_points(s, _check_probs(opponent(o), o)))
    return _expected_values(arrangement_strengths(mine, config.lowball), opponents)


def sampled_best_response(
    config: Brag7Config,
    policy: Policy,
    hands: int = 200,
    choose_with: int = 200,
    measure_with: int = 200,
    seed: int | None = 0,
) -> ResponseResult:
    """A sampled best response (module docstring): for each of ``hands`` random seven-card
    hands, the arrangement best against ``choose_with`` sampled opponent hands, measured
    against ``measure_with`` fresh ones; the CI is over the ``hands`` independent hands."""
    _check(config)
    for name, value in (
        ("hands", hands),
        ("choose_with", choose_with),
        ("measure_with", measure_with),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 2:
            raise ValueError(f"{name} must be a whole number >= 2, got {value!r}")
    rng = make_rng(seed)
    deck = np.array(config.deck_cards())
    values, wins, losses = [], [], []
    for _ in range(hands):
        cards = rng.permutation(deck)
        mine = tuple(sorted(cards[:CARDS_EACH].tolist()))
        rest = cards[CARDS_EACH:]
        strengths = arrangement_strengths(mine, config.lowball)

        def opponents(count: int, rest: np.ndarray = rest) -> list[tuple[np.ndarray, np.ndarray]]:
            out = []
            for _ in range(count):
                o = tuple(sorted(rng.choice(rest, CARDS_EACH, replace=False).tolist()))
                probs = _check_probs(policy(o), o)
                out.append(_opponent_points(arrangement_strengths(o, config.lowball), probs))
            return out

        ev, _, _ = _expected_values(strengths, opponents(choose_with))
        best = int(np.argmax(ev))
        ev, win, lose = _expected_values(strengths, opponents(measure_with))
        values.append(float(ev[best]))
        wins.append(float(win[best]))
        losses.append(float(lose[best]))
    v = np.array(values)
    half = 1.96 * v.std(ddof=1) / np.sqrt(len(v))
    return ResponseResult(
        float(v.mean()),
        float(np.mean(wins)),
        float(np.mean(losses)),
        False,
        hands * measure_with,
        float(v.mean() - half),
        float(v.mean() + half),
    )


def _check_probs(probs: np.ndarray, cards: Sequence[int]) -> np.ndarray:
    p = np.asarray(probs, dtype=np.float64)
    if p.shape != (NUM_ARRANGEMENTS,) or (p < 0).any() or not np.isclose(p.sum(), 1.0):
        raise ValueError(
            f"a policy must give 140 probabilities summing to 1 for the cards {list(cards)}"
        )
    return p
