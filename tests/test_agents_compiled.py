"""The compiled batch paths (``agents.put_kernel``, ``agents.brag_kernel``,
``brag_env.training.pool_draws``) decide and draw exactly as the scalar code does.

The lockstep tests of ``test_agents_brag_batched`` compare the batch with one scalar agent
per table, so they need parameters whose draws cannot change a decision; here one agent of
each kind plays every row from the same seed, the row path's ``act`` in the batch's row order,
so the random styles must draw the same stream too (the Put bluffer's stream:
``test_fastpaths_agents``).
"""

from typing import ClassVar

import numpy as np
import pytest

from agents import make_agent, table_info, table_info_from_env
from agents.brag import CompiledStyle, Tight
from agents.put import PutBatchView, PutView
from brag_env import put_v0
from brag_env.brag.batched import BatchedBrag
from brag_env.brag.rules import BragConfig
from brag_env.selfplay import OpponentPool
from brag_env.training.pool_draws import draw_opponents
from tests.test_fastpaths_agents import _record


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_put_view_rows_reads_what_put_view_reads_P1_P8(num_players):
    env = put_v0.raw_env(num_players=num_players)
    samples = _record(env, 800, 5)
    table = table_info_from_env(env)
    view = PutView(table)
    batch = PutBatchView(view)
    batch.load(np.stack([o for o, _ in samples]))
    for i, (o, _) in enumerate(samples):
        view.load(o)
        assert batch.trick[i] == view.trick
        assert batch.best_rank[i] == view.best_rank and batch.best_seat[i] == view.best_seat
        assert batch.leading[i] == view.leading and batch.held[i] == len(view.ranks)
        assert batch.tricks_ahead[i] == view.tricks_ahead
        assert batch.strength[i] == view.strength()


RANDOM_STYLES = [
    "brag:bluffer",
    "brag:blind",
    "brag:tips",
    "brag:tips:blind_hands=3,blind_raise=0.5",
    "brag:never_look:raise=0.3",
]


def _lockstep(spec: str, options: dict, tables: int, decisions: int, seed: int = 0):
    """Actions of the kernel and of the row path (``act`` row after row), both agents seeded
    alike and holding every seat of the same tables."""
    config = BragConfig.from_dict(options)
    n = config.num_players
    table = table_info("brag", **options)
    engine = BatchedBrag(tables, config, seed=seed)
    engine.new_session()
    kernel, rows_path = make_agent(spec, table, seed), make_agent(spec, table, seed)
    rows_path.vector_min_rows = 10**9
    for agent in (kernel, rows_path):
        agent.reset_rows(np.arange(tables * n))
    live = np.arange(tables)
    got, want = [], []
    for _ in range(decisions):
        seats = engine.current_player[live]
        obs, masks = engine.observe(live, seats), engine.legal_mask(live)
        state_rows = live * n + seats
        actions = kernel.act_batch(obs, masks, state_rows)
        got += actions.tolist()
        want += rows_path.act_batch(obs, masks, state_rows).tolist()
        _, over = engine.step(live, actions)
        done = np.flatnonzero(over)
        if done.size:
            engine.new_session(done)
            for agent in (kernel, rows_path):
                agent.reset_rows((done[:, None] * n + np.arange(n)).ravel())
    return got, want


@pytest.mark.parametrize("spec", RANDOM_STYLES)
@pytest.mark.parametrize("players", [2, 4])
def test_brag_kernel_draws_as_act_row_after_row_B10_B16(spec, players):
    options = {"num_players": players, "starting_chips": 20, "hands_per_session": 3}
    got, want = _lockstep(spec, options, tables=24, decisions=60)
    assert got == want
    assert len(set(got)) >= 3  # several kinds of move (never_look: fold, stay, raise)


def test_brag_kernel_small_deck_and_several_raises_B1_B13():
    options = {"num_players": 3, "deck_ranks": 8, "raise_sizes": [2, 4, 8]}
    for spec in ("brag:tight", "brag:tips", "brag:bluffer", "brag:planted_fold_to_raise"):
        got, want = _lockstep(spec, options, tables=16, decisions=50, seed=2)
        assert got == want


def test_a_compiled_style_that_changes_its_rules_must_say_how_the_kernel_plays_them():
    with pytest.raises(TypeError, match="changes preferences"):

        class Looser(Tight):
            def preferences(self, v, mask):
                return [0]

    # the helpers ``act`` decides with count as well: the kernel would not play them
    for name in ("open_play", "biggest_raise", "smallest_raise", "new_hand", "act"):
        with pytest.raises(TypeError, match=f"changes {name}"):
            type("Looser", (Tight,), {name: lambda self, *args: [0]})

    class Marked(Tight):  # the same rules: the kernel's tight
        marked: ClassVar[bool] = True

    assert issubclass(Marked, CompiledStyle)


def _python_draws(pool: OpponentPool, learners: np.ndarray, p: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    out = []
    for learner in learners.tolist():
        out.append([pool.draw(rng) if seat != learner else None for seat in range(p)])
    return out, rng.random()


@pytest.mark.parametrize("sampling", ["uniform", "latest"])
@pytest.mark.parametrize("snapshots", [0, 3])
def test_draw_opponents_draws_the_pool_stream(sampling, snapshots):
    baselines = ["random", "brag:tight", "random", "brag:tips"]
    paths = [f"/tmp/snap{i}.zip" for i in range(snapshots)]
    pool = OpponentPool(baselines, paths, snapshot_prob=0.4, sampling=sampling)
    p, learners = 4, np.random.default_rng(1).integers(0, 4, 300)
    entries = [*pool.baselines, *pool.snapshots]
    want, after = _python_draws(pool, learners, p, seed=7)
    rng = np.random.default_rng(7)
    drawn = np.full((learners.size, p), -1, np.int64)
    b = len(baselines)
    ready = np.ones(len(entries), bool)
    at = draw_opponents(
        learners, p, np.arange(b), np.arange(b, len(entries)), 0.4, sampling == "latest",
        ready, rng, drawn, 0,
    )  # fmt: skip
    assert at == -1
    got = [[entries[e] if e >= 0 else None for e in row] for row in drawn.tolist()]
    assert got == want
    assert rng.random() == after  # the caller's generator moved on as the Python loop's


def test_draw_opponents_stops_at_a_spec_not_built_yet():
    learners = np.array([0, 1, 0])
    drawn = np.full((3, 2), -1, np.int64)
    ready = np.array([True, False])
    rng = np.random.default_rng(0)
    none = np.arange(2, 2)  # no snapshots
    at = draw_opponents(learners, 2, np.arange(2), none, 0.0, False, ready, rng, drawn, 0)
    first = int(drawn.flat[at])
    assert first == 1 and drawn.flat[at + 1 :].tolist() == [-1] * (5 - at)
    assert (drawn.ravel()[:at] != 1).all()


def test_put_act_rows_is_view_rows_then_decide_with_the_same_draws_P4():
    from agents.put import _CARD_VALUES, _PERCENTILE_GRID
    from agents.put_kernel import act_rows, decide, view_rows

    env = put_v0.raw_env()
    samples = _record(env, 600, 2)
    view = PutView(table_info_from_env(env))
    obs = np.stack([o for o, _ in samples])
    masks = np.stack([m for _, m in samples]).astype(bool)
    tables = np.arange(len(samples)) % 7
    shared = (view._won, view._cur, view._played, view.n, view.partnerships)
    fields = view_rows(obs, *shared, view.opponent_seats, _PERCENTILE_GRID, _CARD_VALUES)
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    flags_a, flags_b = np.zeros(7, bool), np.zeros(7, bool)
    want = decide(masks, *fields[1:], tables, flags_a, 0.8, 0.3, 0.5, view.partnerships, rng_a)
    got = act_rows(
        obs, *shared, view.opponent_seats, _PERCENTILE_GRID, _CARD_VALUES, masks, tables,
        flags_b, 0.8, 0.3, 0.5, rng_b,
    )  # fmt: skip
    assert got.tolist() == want.tolist() and np.array_equal(flags_a, flags_b)
    assert rng_a.random() == rng_b.random()  # as many draws


# Table options that change what the styles read (the prices, the mask, the statuses) and
# parameters away from each style's defaults: the kernel's copy of every branch must follow.
# (Four- and five-card Brag, wild cards and perfect recall have no batched engine, so no
# act_batch is ever called there.)
OPTION_TABLES = [
    {"num_players": 3, "allow_blind": False},  # B10: nobody blind, every seat looks at once
    {"num_players": 2, "pot_limit": True, "raise_sizes": [2, 3]},  # B13
    {"num_players": 4, "blind_may_see_open": False, "starting_chips": 16},  # B14, B16
    {"num_players": 3, "cover_pot": False, "starting_chips": 14},  # B16: short seats must fold
    {"num_players": 3, "blind_alone": "carries", "unopened_pot": "carries"},  # B15
    {"num_players": 2, "ante_mode": "after_prial", "hands_per_session": 4},  # B8
    {"num_players": 3, "blind_keep_hand": False, "hands_per_session": 3},  # B19
    {"num_players": 3, "lowball": True, "prial_bonus": 2},  # B20, B21
    {"num_players": 2, "max_stake": 8, "min_stake": 4},  # B11, B13: the cap reached at once
    {"num_players": 5, "shuffle": "every_hand", "hands_per_session": 2},  # B18
]
TUNED_STYLES = [
    "brag:tight:play=0.2,raise_at=0.5,see_at=0.6,patience=1",
    "brag:planted_fold_to_raise",
    "brag:bluffer:bluff=0.7,bluff_bets=1,play=0.5",
    "brag:blind:look_stake=2,blind_raise=0.8,see_at=0.5",
    "brag:tips:blind_hands=2,look_pot=4,fear_raises=1,max_share=0.6,slowplay_pot=4",
    "brag:never_look:raise=0.6",
    "brag:caller",
]


def _option_id(options: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())


@pytest.mark.parametrize("options", OPTION_TABLES, ids=_option_id)
def test_brag_kernel_follows_every_style_at_every_table_option_B8_B21_B23(options):
    moves = set()
    for spec in TUNED_STYLES:
        got, want = _lockstep(spec, options, tables=12, decisions=40, seed=3)
        assert got == want, spec
        moves |= set(got)
    assert len(moves) >= 3  # the table let the styles play at least three kinds of move
