"""The collectors' records: the scalar evaluator writes them one decision and one hand at a
time, the batched evaluator as rows of many tables; on the same games both hand the collector
the same rows, so each behaviour statistic has one definition (the collector's count)."""

import io

import numpy as np
import pytest
from test_evaluate_batched import _deals_of as put_deals_of
from test_evaluate_batched_brag import _deals_of as brag_deals_of

from agents.registry import parse_spec
from brag_env.brag.rules import FIRST_RAISE, LOOK, STAY
from brag_env.evaluation import evaluate
from brag_env.evaluation.batched import _brag_tournament, _put_tournament
from brag_env.evaluation.brag_stats import BET, COVERED, LOOKED, action_column, raises_faced
from brag_env.evaluation.brag_stats import DECISION_FIELDS as BRAG_DECISIONS
from brag_env.evaluation.brag_stats import HAND_FIELDS as BRAG_HANDS
from brag_env.evaluation.put_stats import DECISION_FIELDS as PUT_DECISIONS
from brag_env.evaluation.put_stats import HAND_FIELDS as PUT_HANDS
from brag_env.evaluation.records import Records
from brag_env.evaluation.stats import decile


def _counted_rows(monkeypatch) -> dict[tuple[str, ...], list[tuple[float, ...]]]:
    """Every record row a collector counts from now on, by its fields."""
    rows: dict[tuple[str, ...], list[tuple[float, ...]]] = {}
    take = Records.take

    def spy(self):
        taken = take(self)
        if taken is not None:
            rows.setdefault(self.fields, []).extend(map(tuple, taken.tolist()))
        return taken

    monkeypatch.setattr(Records, "take", spy)
    return rows


def _both_runs(monkeypatch, game, specs, episodes, options, runner, deals_of):
    rows = _counted_rows(monkeypatch)
    history = io.StringIO()
    scalar = evaluate(game, specs, episodes, seed=5, options=options, history=history)
    scalar_rows = {fields: sorted(r) for fields, r in rows.items()}
    rows.clear()
    parsed = [parse_spec(s, game) for s in specs]
    deals = deals_of(history.getvalue().splitlines())
    batched = runner(parsed, episodes, 5, dict(options), make_engine=deals)
    batched_rows = {fields: sorted(r) for fields, r in rows.items()}
    return scalar, scalar_rows, batched, batched_rows


def test_P4_P6_put_collector_gets_the_same_rows_from_both_evaluators(monkeypatch):
    specs = ["put:caller:put_at=0.3", "put:caller:see_at=0.8"]
    scalar, want, batched, got = _both_runs(
        monkeypatch, "put", specs, 4, {"target_points": 3}, _put_tournament, put_deals_of
    )
    assert set(want) == set(got) == {PUT_DECISIONS, PUT_HANDS}
    assert got == want
    hands = np.array(want[PUT_HANDS])
    assert hands[:, 1].any() and hands[:, 2].any() and not hands[:, 2].all()  # Puts, folds
    assert [a.behaviour for a in batched.agents] == [a.behaviour for a in scalar.agents]


@pytest.mark.parametrize(
    "specs, options, kinds",
    [
        # B10/B14 at two seats: blind play, looks, raises, sees
        (
            ["brag:blind:blind_raise=0", "brag:tight:play=0.05,raise_at=0.1,see_at=0.2"],
            {},
            {LOOKED, BET},
        ),
        # B16: covers at three seats short of chips
        (
            ["brag:never_look", "brag:caller", "brag:tips:blind_raise=0"],
            {"starting_chips": 9},
            {COVERED, BET},
        ),
    ],
)
def test_B10_B16_brag_collector_gets_the_same_rows_from_both_evaluators(
    monkeypatch, specs, options, kinds
):
    options = {"num_players": len(specs), **options}
    scalar, want, batched, got = _both_runs(
        monkeypatch, "brag", specs, 6, options, _brag_tournament, brag_deals_of
    )
    assert set(want) == set(got) == {BRAG_DECISIONS, BRAG_HANDS}
    assert got == want
    assert kinds <= {row[1] for row in want[BRAG_DECISIONS]}  # the case reaches them
    assert [a.behaviour for a in batched.agents] == [a.behaviour for a in scalar.agents]


def test_the_shared_rules_take_one_value_or_an_array():
    actions = np.array([0, 1, 3, 4, 5])  # fold, stay, see, two raise sizes
    assert action_column(actions).tolist() == [0, 1, 3, 2, 2]
    assert [action_column(int(a)) for a in actions] == [0, 1, 3, 2, 2]
    values = np.array([0.0, 0.0999, 0.1, 0.95, 1.0])
    assert decile(values).tolist() == [0, 0, 1, 9, 9]
    assert [decile(float(v)) for v in values] == [0, 0, 1, 9, 9]


def test_B13_a_raise_is_faced_by_the_other_seats_until_their_next_move():
    from brag_env.brag.rules import BragConfig

    config = BragConfig(num_players=3)
    keep_ids = (config.keep_old_hand_action, config.take_new_hand_action)

    def seats(bits):
        return [bool(bits >> s & 1) for s in range(3)]

    faced = raises_faced(0, 0, FIRST_RAISE, keep_ids, 3)  # seat 0 raises
    assert seats(faced) == [False, True, True]
    faced = raises_faced(faced, 1, LOOK, keep_ids, 3)  # a look keeps seat 1's turn open
    assert seats(faced) == [False, True, True]
    faced = raises_faced(faced, 1, keep_ids[0], keep_ids, 3)  # so does a B19 choice
    assert seats(faced) == [False, True, True]
    faced = raises_faced(faced, 1, STAY, keep_ids, 3)  # seat 1 has answered it
    assert seats(faced) == [False, False, True]
    # the same moves at two tables at once, int64 arrays
    tables = raises_faced(
        np.array([0, 6]), np.array([0, 2]), np.array([FIRST_RAISE, STAY]), keep_ids, 3
    )
    assert [seats(int(t)) for t in tables] == [[False, True, True], [False, True, False]]
