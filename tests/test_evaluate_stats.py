"""Confidence intervals against hand calculations; seat rotation and duplicate schedules."""

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from brag_env.evaluation.runner import MetricStore, unit_totals
from brag_env.evaluation.schedule import (
    agent_seeds,
    base_orders,
    design_size,
    make_schedule,
    seating_design,
)
from brag_env.evaluation.stats import mean_ci, ratio_ci, z_value


def test_mean_ci_matches_a_hand_calculation():
    # x = 1, 2, 3, 4: mean 2.5; sample variance ((1.5^2 + 0.5^2) * 2) / 3 = 5/3.
    e = mean_ci([1, 2, 3, 4])
    sd = math.sqrt(5 / 3)
    assert e.mean == 2.5 and e.n == 4
    assert e.std == pytest.approx(sd)
    assert e.half_width == pytest.approx(1.959964 * sd / 2, rel=1e-6)
    assert (e.low, e.high) == pytest.approx((2.5 - 1.265151, 2.5 + 1.265151), abs=1e-5)
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert z_value(0.99) == pytest.approx(2.575829, abs=1e-6)


def test_mean_ci_of_a_rate_and_edge_cases():
    wins = [1] * 60 + [0] * 40  # p = 0.6, sd with n - 1 = sqrt(0.24 * 100 / 99)
    e = mean_ci(wins)
    assert e.mean == pytest.approx(0.6)
    assert e.half_width == pytest.approx(1.959964 * math.sqrt(0.24 * 100 / 99) / 10, rel=1e-6)
    assert e.excludes(0.5) and not e.excludes(0.55)
    one = mean_ci([3.0])
    assert one.n == 1 and math.isnan(one.half_width) and not one.excludes(0.0)
    assert mean_ci([]).n == 0
    assert mean_ci([2.0, 2.0]).half_width == 0.0
    d = e.to_dict()
    assert d["ci_low"] == pytest.approx(e.low) and d["n"] == 100
    assert one.to_dict()["half_width"] is None  # JSON-safe, no NaN
    with pytest.raises(ValueError, match="confidence"):
        z_value(1.5)


def test_ratio_ci_matches_a_hand_calculation():
    """Units of unequal size: sessions of 2, 1 and 3 hands."""
    # Totals Y = 3, 3, 6 over N = 2, 1, 3 hands: R = 12 / 6 = 2; residuals Y - R N = -1, 1, 0;
    # s^2 = (1 + 1 + 0) / 2 = 1; mean N = 2; SE = sqrt(1 / 3) / 2.
    e = ratio_ci([3.0, 3.0, 6.0], [2, 1, 3])
    assert e.mean == 2.0 and e.n == 6 and e.units == 3
    assert e.std == pytest.approx(0.5)
    assert e.half_width == pytest.approx(1.959964 * math.sqrt(1 / 3) / 2, rel=1e-6)
    assert e.to_dict()["units"] == 3
    # One sample per unit: the textbook interval.
    plain = ratio_ci([1.0, 2.0, 3.0, 4.0], [1, 1, 1, 1])
    assert plain == mean_ci([1, 2, 3, 4])
    assert ratio_ci([], []).n == 0 and ratio_ci([5.0], [2]).mean == 2.5


def test_metric_store_estimates_over_units():
    store = MetricStore(1)
    # Unit 7 holds two samples (1, 2), unit 3 one (3), unit 5 three (0, 0, 6).
    for unit, seat, value in [(7, 0, 1.0), (7, 1, 2.0), (3, 0, 3.0), (5, 1, 0.0), (5, 0, 0.0)]:
        store.add("payoff", 0, unit, seat, value)
    store.add("payoff", 0, 5, 0, 6.0)
    assert store.estimate("payoff", 0) == ratio_ci([3.0, 6.0, 3.0], [1, 3, 2])
    assert store.seat_means("payoff", 0, 2) == [2.5, 1.0]
    sums, counts = unit_totals([5, 5, 2], [1.0, 3.0, 7.0])
    np.testing.assert_allclose(sums, [7.0, 4.0])
    np.testing.assert_allclose(counts, [1.0, 2.0])


def test_metric_store_keeps_samples_in_order_across_add_and_extend():
    """Samples added one by one (past a chunk's worth), in bulk and one by one again come back
    in the order they came, equal to plain lists of them; the arrays handed out are read-only."""
    rng = np.random.default_rng(0)
    store = MetricStore(2)
    want: tuple[list, list, list] = ([], [], [])
    first = 5000  # more than one pending chunk
    for i in range(first):
        g, seat, v = int(rng.integers(300)), i % 2, float(rng.normal())
        store.add("payoff", 1, g, seat, v)
        for column, x in zip(want, (g, seat, v), strict=True):
            column.append(x)
    g, seats, v = rng.integers(300, size=700), rng.integers(2, size=700), rng.normal(size=700)
    store.extend("payoff", 1, g, seats, v)
    for column, x in zip(want, (g.tolist(), seats.tolist(), v.tolist()), strict=True):
        column.extend(x)
    store.add("payoff", 1, 3, 0, True)  # a flag counts as 1.0
    for column, x in zip(want, (3, 0, 1.0), strict=True):
        column.append(x)
    assert store.values("payoff", 1).tolist() == want[2]
    assert store.estimate("payoff", 1) == ratio_ci(*unit_totals(want[0], want[2]))
    seat_sums = [sum(x for x, s_ in zip(want[2], want[1], strict=True) if s_ == k) for k in (0, 1)]
    means = store.seat_means("payoff", 1, 2)
    assert means == pytest.approx([seat_sums[k] / want[1].count(k) for k in (0, 1)])
    assert store.values("payoff", 0).size == 0
    with pytest.raises(ValueError, match="read-only"):
        store.values("payoff", 1)[0] = 9.0


def test_the_design_sizes():
    assert [design_size(n) for n in range(2, 9)] == [2, 6, 24, 20, 60, 42, 56]
    assert sorted(seating_design(4)) == sorted(itertools.permutations(range(4)))
    with pytest.raises(ValueError, match="1 to 8 agents"):
        base_orders(9)


@pytest.mark.parametrize("n", range(2, 9))
def test_the_design_balances_seats_and_left_hand_neighbours(n):
    design = seating_design(n)
    assert len(set(design)) == len(design)
    assert all(sorted(seats) == list(range(n)) for seats in design)
    in_seat = Counter((seats[s], s) for seats in design for s in range(n))
    assert len(in_seat) == n * n and len(set(in_seat.values())) == 1
    # Who acts right after whom: the agent in seat s + 1 (round the table) follows seat s.
    follows = Counter((seats[s], seats[(s + 1) % n]) for seats in design for s in range(n))
    assert len(follows) == n * (n - 1) and len(set(follows.values())) == 1


def test_four_put_players_meet_every_partner_equally_often():
    """P8 partners sit opposite (seats 0 and 2, 1 and 3): every pair is partners as often."""
    partners = Counter(
        frozenset(pair) for seats in seating_design(4) for pair in (seats[0::2], seats[1::2])
    )
    assert len(partners) == 6 and set(partners.values()) == {8}


def test_schedule_walks_whole_designs():
    for n in (2, 3, 4, 8):
        size = design_size(n)
        schedule = make_schedule(n, 2 * size - 1, seed=0)
        assert len(schedule) == 2 * size  # rounded up to whole designs
        assert [e.seats for e in schedule] == list(seating_design(n)) * 2
        assert [e.seating for e in schedule] == list(range(size)) * 2
        assert len({e.reset_seed for e in schedule}) == 2 * size


def test_duplicate_schedule_replays_each_deal_under_every_seating():
    schedule = make_schedule(3, 13, seed=4, duplicate=True)
    groups: dict[int, list] = {}
    for e in schedule:
        groups.setdefault(e.group, []).append(e)
    assert len(groups) == 3 and len(schedule) == 18
    for episodes in groups.values():
        assert len({e.reset_seed for e in episodes}) == 1
        assert [e.seats for e in episodes] == list(seating_design(3))
    assert len({episodes[0].reset_seed for episodes in groups.values()}) == 3


def test_schedules_and_agent_seeds_are_deterministic():
    assert make_schedule(4, 40, seed=9) == make_schedule(4, 40, seed=9)
    assert make_schedule(4, 40, seed=9) != make_schedule(4, 40, seed=10)
    a = [g.integers(1 << 30) for g in agent_seeds(3, 4)]
    assert a == [g.integers(1 << 30) for g in agent_seeds(3, 4)]
    assert len(set(a)) == 4
    with pytest.raises(ValueError, match="at least 1"):
        make_schedule(2, 0, seed=0)
