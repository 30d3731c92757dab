"""Brag baselines for many tables: ``act_batch`` decides exactly as ``act`` does per table.

The agent under test holds every seat of 24 batched tables (state row = table * n + seat, as
in the batched self-play VecEnv); one scalar agent per (table, seat) is the reference. With
parameters whose random draws cannot change a decision, every style is deterministic and the
two must agree move for move, per-hand state (bets, a bluff) included.
"""

import numpy as np
import pytest

from agents import make_agent, table_info
from brag_env.brag.batched import BatchedBrag
from brag_env.brag.rules import BragConfig

DETERMINISTIC = [
    "brag:caller",
    "brag:tight",
    "brag:bluffer:bluff=1.0",
    "brag:bluffer:bluff=0.0",
    "brag:blind:blind_raise=0.0",
    "brag:blind:blind_raise=1.0",
    "brag:tips:blind_raise=0.0",
    "brag:tips:blind_raise=1.0,fear_raises=1",
    "brag:never_look",
    "brag:planted_never_fold",
    "brag:planted_fold_to_raise",
]


def _play(spec: str, options: dict, tables: int, decisions: int, seed: int = 0, mixed=False):
    """(batch actions, reference actions) of every decision of ``decisions`` steps; the batch
    decides with the array rules at every step, or (``mixed``) every other step row by row."""
    config = BragConfig.from_dict(options)
    n = config.num_players
    table = table_info("brag", **options)
    engine = BatchedBrag(tables, config, seed=seed)
    engine.new_session()
    batch = make_agent(spec, table, seed)
    batch.vector_min_rows = 1
    scalar = [make_agent(spec, table, seed) for _ in range(tables * n)]
    rows = np.arange(tables)
    batch.reset_rows(np.arange(tables * n))
    got, want = [], []
    for step in range(decisions):
        if mixed:  # both paths share the per-table state
            batch.vector_min_rows = 1 if step % 2 else 10**9
        seats = engine.current_player[rows]
        obs, masks = engine.observe(rows, seats), engine.legal_mask(rows)
        state_rows = rows * n + seats
        actions = batch.act_batch(obs, masks, state_rows)
        got += actions.tolist()
        want += [scalar[r].act(o, m) for r, o, m in zip(state_rows, obs, masks, strict=True)]
        _, over = engine.step(rows, actions)
        done = np.flatnonzero(over)
        if done.size:
            engine.new_session(done)
            for t in done.tolist():
                batch.reset_rows(np.arange(t * n, (t + 1) * n))
                for s in range(n):
                    scalar[t * n + s].reset()
    return got, want


@pytest.mark.parametrize("spec", DETERMINISTIC)
@pytest.mark.parametrize("players", [2, 4])
def test_brag_act_batch_decides_as_act_per_table(spec, players):
    options = {"num_players": players, "starting_chips": 20}  # short stacks: covers (B16)
    got, want = _play(spec, options, tables=24, decisions=40)
    assert got == want


@pytest.mark.parametrize(
    "spec", ["brag:bluffer:bluff=1.0", "brag:tight", "brag:tips:blind_raise=0.0"]
)
def test_array_and_row_paths_share_the_per_table_state(spec):
    got, want = _play(spec, {"num_players": 3, "starting_chips": 20}, 24, 40, mixed=True)
    assert got == want


class _RowByRow:
    """The same agent deciding row after row (``act`` per table, state swapped per row)."""

    def __init__(self, agent):
        self.agent = agent

    def act_batch(self, obs, masks, rows):
        return self.agent._act_rows(obs, masks, rows)

    def reset_rows(self, rows):
        self.agent.reset_rows(rows)


@pytest.mark.parametrize(
    "spec",
    ["brag:bluffer", "brag:blind:blind_raise=0.5", "brag:never_look:raise=0.3", "brag:tips"],
)
def test_vector_rules_draw_as_act_row_after_row(spec):
    # one generator for the batch: the array rules must draw the numbers act() would draw,
    # in row order, and decide the same with them
    config = BragConfig(num_players=3, starting_chips=20)
    table = table_info("brag", num_players=3, starting_chips=20)
    engine = BatchedBrag(40, config, seed=1)
    engine.new_session()
    vector, rowwise = make_agent(spec, table, 3), _RowByRow(make_agent(spec, table, 3))
    vector.vector_min_rows = 1  # the array rules at any batch size
    rows = np.arange(40)
    for agent in (vector, rowwise):
        agent.reset_rows(np.arange(120))
    for _ in range(40):
        seats = engine.current_player[rows]
        obs, masks = engine.observe(rows, seats), engine.legal_mask(rows)
        got = vector.act_batch(obs, masks, rows * 3 + seats)
        assert got.tolist() == rowwise.act_batch(obs, masks, rows * 3 + seats).tolist()
        _, over = engine.step(rows, got)
        done = np.flatnonzero(over)
        engine.new_session(done)
        for agent in (vector, rowwise):
            agent.reset_rows((done[:, None] * 3 + np.arange(3)).reshape(-1))


@pytest.mark.parametrize("spec", ["brag:bluffer", "brag:blind", "brag:tips", "random"])
def test_random_styles_repeat_with_their_seed_and_play_legally(spec):
    a, _ = _play(spec, {"num_players": 3}, tables=32, decisions=40, seed=5)
    b, _ = _play(spec, {"num_players": 3}, tables=32, decisions=40, seed=5)
    assert a == b


def test_never_look_batch_raises_blind_with_its_probability():
    got, _ = _play("brag:never_look:raise=0.5", {"num_players": 2}, tables=64, decisions=20)
    assert 4 in got and 1 in got and 2 not in got  # raises and stays, never looks (B10)


def _recorded(players: int, decisions: int, seed: int = 2):
    """(observations, masks) of random legal play on short stacks, every seat's decisions."""
    config = BragConfig(num_players=players, starting_chips=30)
    engine = BatchedBrag(256, config, seed=seed)
    engine.new_session()
    rng = np.random.default_rng(seed)
    rows = np.arange(256)
    obs, masks = [], []
    while sum(len(o) for o in obs) < decisions:
        o, m = engine.observe(rows, engine.current_player[rows]), engine.legal_mask(rows)
        obs.append(o)
        masks.append(m)
        pick = (rng.random(256) * m.sum(axis=1)).astype(np.int64)
        _, over = engine.step(rows, (m.cumsum(axis=1) > pick[:, None]).argmax(axis=1))
        engine.new_session(np.flatnonzero(over))
    return np.concatenate(obs), np.concatenate(masks)


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
@pytest.mark.parametrize("players", [2, 5])
def test_every_rule_of_every_style_on_recorded_decisions(players):
    # each row its own table (fresh per-hand state): thousands of decisions reach the rare
    # branches (prials, flushes, covers, sees)
    obs, masks = _recorded(players, 6000)
    table = table_info("brag", num_players=players, starting_chips=30)
    rows = np.arange(len(obs))
    for spec in DETERMINISTIC:
        batch, scalar = make_agent(spec, table, 0), make_agent(spec, table, 0)
        batch.reset_rows(rows)
        want = []
        for o, m in zip(obs, masks, strict=True):
            scalar.reset()
            want.append(scalar.act(o, m))
        assert batch.act_batch(obs, masks, rows).tolist() == want, spec
