"""Brag fast paths agree with straightforward ones on many random states (issue 7).

- ``IncrementalObserver.observation`` (the env's observation, updated event by event) and
  ``BragObserver.set_from`` (rebuilt from the game at every call) both equal the readable reference
  ``brag_env.brag.reference_observation``, written field by field from the engine's state and
  the rules (B10, B14, B19, B22 discards, the perfect-recall block, B1 short decks).
- ``brag_v1`` returns those vectors as independent arrays: a kept observation never changes.
- The legal set cached by the engine per decision equals one recomputed from the current state,
  and the env's shared masks match it.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from brag_env import brag_v1
from brag_env.brag import observation, rules
from brag_env.brag.game import BragGame
from brag_env.brag.incremental_observation import IncrementalObserver
from brag_env.brag.observation import HISTORY_LEN, BragObserver
from brag_env.brag.reference_observation import FIELD_WRITERS, ReferenceObserver
from brag_env.brag.rules import BragConfig
from tests.env_turns import live_turns

CONFIGS = [
    BragConfig(num_players=4),
    BragConfig(num_players=2, hands_per_session=20, starting_chips=40),
    BragConfig(num_players=8, hands_per_session=4, allow_blind=False, ante_mode="after_prial"),
    BragConfig(
        num_players=3,
        hands_per_session=25,
        prial_bonus=5,
        lowball=True,
        raise_sizes=(2, 3, 4),
        shuffle="every_hand",
    ),
    BragConfig(num_players=5, hands_per_session=10, pot_limit=True, blind_may_see_open=False),
    BragConfig(num_players=6, hands_per_session=30, min_stake=4, max_stake=16, starting_chips=30),
    # B15/B16/B18: covers, both carry options, the cycle shuffle; and the original B16 ruling.
    BragConfig(
        num_players=4,
        hands_per_session=30,
        starting_chips=12,
        blind_alone="carries",
        unopened_pot="carries",
        shuffle="after_prial_or_cycle",
    ),
    BragConfig(num_players=7, hands_per_session=15, starting_chips=20, cover_pot=False),
    # B25: wild cards (the own_wild and prev_shown_reading fields), also under lowball.
    BragConfig(num_players=3, hands_per_session=20, wild_cards="nines"),
    BragConfig(num_players=2, hands_per_session=20, wild_cards="braggers", lowball=True),
]
# The options only BragObserver.set_from serves (brag_v1 uses it, not the incremental observer, for
# B22 deals and perfect recall), and a B1 short deck.
FILL_ONLY_CONFIGS = [
    BragConfig(num_players=3, hands_per_session=6, cards_dealt=4, allow_blind=False),
    BragConfig(num_players=2, hands_per_session=4, cards_dealt=5, allow_blind=False),
    BragConfig(num_players=3, hands_per_session=5, starting_chips=20, perfect_recall=True),
    BragConfig(num_players=3, hands_per_session=8, deck_ranks=5, lowball=True),
]


def random_walk(cfg: BragConfig, seed: int, sessions: int) -> Any:
    """Yield the game at every state of seeded random legal play (several sessions)."""
    game = BragGame(cfg)
    rng = np.random.default_rng(seed)
    for _ in range(sessions):
        game.new_session(rng)
        yield game
        while not game.session_over:
            legal = game.legal_actions()
            game.apply(legal[int(rng.integers(len(legal)))])
            yield game


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"{c.num_players}p")
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_incremental_observation_equals_fill(cfg: BragConfig) -> None:
    """Observed at random moments (often skipping several decisions), by random seats."""
    fast, direct, reference = IncrementalObserver(cfg), BragObserver(cfg), ReferenceObserver(cfg)
    pick = random.Random(cfg.num_players)
    seen = {"choice": 0, "see": 0, "previous see": 0, "long history": 0, "checks": 0}
    for game in random_walk(cfg, seed=cfg.num_players, sessions=40):
        if pick.random() < 0.5:
            continue
        for seat in pick.sample(range(cfg.num_players), pick.randint(1, 2)):
            got = fast.observation(game, seat)
            np.testing.assert_array_equal(got, direct.set_from(game, seat), err_msg=f"seat {seat}")
            if seen["checks"] % 4 == 0:  # the readable reference too, on a quarter of them
                want = reference.set_from(game, seat)
                np.testing.assert_array_equal(got, want, err_msg=f"seat {seat}")
            seen["checks"] += 1
        seen["choice"] += game.choosing
        seen["see"] += bool(game.shown_cards)
        seen["long history"] += len(game.betting) > HISTORY_LEN
        seen["previous see"] += game.previous_result is not None and game.previous_result.by_see
    assert seen["checks"] > 200
    # The walk reaches the states whose updates differ from a plain betting step.
    if cfg.hands_per_session > 1:
        assert seen["previous see"] > 0
        if cfg.allow_blind:
            assert seen["choice"] > 0
    assert seen["see"] > 0


def test_incremental_observer_follows_several_games() -> None:
    """One observer switching between games (and sessions) rebuilds rather than mixing them."""
    cfg = CONFIGS[1]
    fast, reference = IncrementalObserver(cfg), BragObserver(cfg)
    walks = [random_walk(cfg, seed, sessions=5) for seed in (1, 2)]
    for step in range(400):
        game = next(walks[step % 2], None)
        if game is None:
            break
        for seat in range(cfg.num_players):
            np.testing.assert_array_equal(
                fast.observation(game, seat), reference.set_from(game, seat)
            )


@pytest.mark.parametrize(
    "cfg", [*CONFIGS[:4], *CONFIGS[6:], *FILL_ONLY_CONFIGS], ids=lambda c: f"{c.num_players}p"
)
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_fill_equals_the_reference_observation(cfg: BragConfig) -> None:
    direct, reference = BragObserver(cfg), ReferenceObserver(cfg)
    checks = 0
    for i, game in enumerate(random_walk(cfg, seed=100 + cfg.num_players, sessions=15)):
        seat = i % cfg.num_players
        np.testing.assert_array_equal(
            direct.set_from(game, seat), reference.set_from(game, seat), err_msg=f"state {i}"
        )
        checks += 1
    assert checks > 100


def test_the_reference_refuses_a_layout_field_it_cannot_write(monkeypatch) -> None:
    monkeypatch.delitem(FIELD_WRITERS, "side_pot")
    with pytest.raises(ValueError, match="no writer for side_pot: add one to FIELD_WRITERS"):
        ReferenceObserver(BragConfig())
    ReferenceObserver(BragConfig(cover_pot=False))  # no side_pot field: nothing missing


def test_env_observations_are_independent_arrays() -> None:
    """A kept observation stays as it was; each equals the reference fill of its state."""
    env = brag_v1.raw_env(num_players=3, hands_per_session=6)
    env.reset(seed=5)
    reference = BragObserver(env.config)
    rng = np.random.default_rng(5)
    kept: list[tuple[np.ndarray, np.ndarray]] = []
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        seat = env.possible_agents.index(agent)
        expected = reference.set_from(env.game, seat).copy()
        np.testing.assert_array_equal(obs["observation"], expected)
        kept.append((obs["observation"], expected))
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert len(kept) > 20
    for got, expected in kept:
        np.testing.assert_array_equal(got, expected)


def _recomputed_bits(game: BragGame) -> int:
    """The legal set recomputed from the current state (the engine caches it per decision).

    ``_update_mask`` writes only the cached bit set, so recomputing in place is harmless when
    the cache is right, and a wrong cache fails the test anyway."""
    if game.session_over:
        return 0
    if game.choosing:  # B19: only keep or take
        return (1 << game.config.keep_old_hand_action) | (1 << game.config.take_new_hand_action)
    cached = game.legal_bits
    game._update_mask()
    recomputed = game.legal_bits
    game._bits = cached
    return recomputed


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"{c.num_players}p")
def test_cached_legal_set_equals_recomputed(cfg: BragConfig) -> None:
    env_masks: dict[int, np.ndarray] = {}
    for i, game in enumerate(random_walk(cfg, seed=7, sessions=6)):
        bits = game.legal_bits
        assert bits == _recomputed_bits(game), f"state {i}"
        mask = game.legal_mask()
        assert [a for a in range(cfg.num_actions) if bits >> a & 1] == game.legal_actions()
        assert [a for a, ok in enumerate(mask) if ok] == game.legal_actions()
        env_masks.setdefault(bits, np.array(mask, dtype=np.int8))
    # The env hands out one shared read-only array per legal set, equal to the engine's mask.
    env = brag_v1.raw_env(config=cfg)
    rng = np.random.default_rng(7)
    for seat, _, mask in live_turns(env, [7]):
        assert not mask.flags.writeable
        np.testing.assert_array_equal(mask, np.array(env.game.legal_mask(), dtype=np.int8))
        assert env.game.current_player == seat
        for other in env.possible_agents:
            if other != env.agent_selection:
                assert not env.observe(other)["action_mask"].any()
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert len(env_masks) > 3  # several distinct legal sets were met


def test_seat_status_columns_are_the_engine_ids() -> None:
    """The observation's seat_status one-hot is indexed by SeatStatus (B10, B16)."""
    assert observation.STATUS_NAMES == rules.STATUS_NAMES
    assert [rules.STATUS_NAMES.index(s.name.lower()) for s in rules.SeatStatus] == [0, 1, 2, 3]
