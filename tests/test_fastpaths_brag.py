"""Brag fast paths agree with straightforward ones on many random states (issue 7).

- ``IncrementalObserver.observation`` (the env's observation, updated event by event) equals
  ``BragObserver.fill`` (rebuilt from the game at every call), which in turn equals a slow
  reference written field by field from the engine's state and the rules (B10, B14, B19).
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
from brag_env.brag.game import FOLDED, OPEN, BragGame
from brag_env.brag.hands import (
    ALL_HANDS,
    CATEGORY_NAMES,
    hand_category,
    hand_strength,
    strength_percentile,
)
from brag_env.brag.incremental_observation import IncrementalObserver
from brag_env.brag.observation import HISTORY_LEN, BragObserver, observation_layout
from brag_env.brag.rules import LOOK, BragConfig
from brag_env.brag.wild import WILD_CARDS, config_ranking

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


def slow_observation(game: BragGame, me: int) -> np.ndarray:
    """The observation written field by field through the layout's named views."""
    cfg = game.config
    layout = observation_layout(cfg)
    buf = np.zeros(layout.size, dtype=np.float32)
    v = layout.views(buf)
    n, start = cfg.num_players, cfg.starting_chips

    def rel(seat: int) -> int:
        return (seat - me) % n

    # B10: a player knows its cards once open, or if it looked before folding; always without
    # blind play.
    status = game.status[me]
    looked_this_hand = any(s == me and a == LOOK for s, a, _ in game.betting)
    knows = status == OPEN or (status == FOLDED and (looked_this_hand or not cfg.allow_blind))
    order = config_ranking(cfg)
    if knows and cfg.wild_cards == "none":
        hand = game.hands[me]
        v["own_cards"][hand] = 1.0
        v["own_category"][CATEGORY_NAMES.index(hand_category(hand))] = 1.0
        v["own_strength"][0] = strength_percentile(hand_strength(hand, cfg.lowball), cfg.lowball)
    elif knows:  # B25: the reading's category; hands strictly weaker, counted one by one
        hand = game.hands[me]
        v["own_cards"][hand] = 1.0
        v["own_category"][CATEGORY_NAMES.index(order.category(hand))] = 1.0
        v["own_strength"][0] = np.mean(order.strength_batch(ALL_HANDS) < order.strength(hand))
        v["own_wild"][[c for c in hand if c in WILD_CARDS[cfg.wild_cards]]] = 1.0
    for seat in range(n):
        v["seat_status"][rel(seat), game.status[seat]] = 1.0
        v["seat_chips"][rel(seat)] = game.chips[seat] / start
        v["seat_chips_in"][rel(seat)] = game.contributed[seat] / start
        if game.last_action[seat] >= 0:
            v["seat_last_action"][rel(seat), game.last_action[seat]] = 1.0
    if game.dealer >= 0:
        v["seat_dealer"][rel(game.dealer)] = 1.0
    if game.current_player >= 0:
        v["seat_to_act"][rel(game.current_player)] = 1.0
    v["stake"][0] = game.stake / cfg.max_stake
    v["pot"][0] = game.pot / start
    v["hand_number"][0] = game.hand_number / cfg.hands_per_session
    v["choice_pending"][0] = float(game.choosing)
    v["shown_cards"][game.shown_cards] = 1.0
    previous = game.previous_result  # the session's hand before this one
    if previous is not None:
        for seat, delta in enumerate(previous.deltas):
            v["prev_seat_change"][rel(seat), 0 if delta > 0 else 1] = abs(delta) / start
        if previous.by_see:  # B14: both hands were shown
            v["prev_by_see"][0] = 1.0
            v["prev_seat_see"][rel(previous.seer), 0] = 1.0
            v["prev_seat_see"][rel(previous.seen), 1] = 1.0
            v["prev_shown_cards"][0, previous.shown[previous.seer]] = 1.0
            v["prev_shown_cards"][1, previous.shown[previous.seen]] = 1.0
            if cfg.wild_cards != "none":  # B25: what each shown hand counted as
                v["prev_shown_reading"][0, order.reading(previous.shown[previous.seer])] = 1.0
                v["prev_shown_reading"][1, order.reading(previous.shown[previous.seen])] = 1.0
    for k, (seat, action, paid) in enumerate(reversed(game.betting[-HISTORY_LEN:])):
        v["history_seat"][k, rel(seat)] = 1.0
        v["history_action"][k, action] = 1.0
        v["history_paid"][k] = paid / start
    if cfg.cover_pot:  # B16: who covered, the pots they closed, the side pot
        for seat, closed in game.covers:
            v["seat_covered"][rel(seat)] = 1.0
            v["seat_covered_pot"][rel(seat)] = closed / start
        if game.covers and game.pot:
            v["side_pot"][0] = (game.pot - game.covers[-1][1]) / start
    return buf


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
    fast, reference = IncrementalObserver(cfg), BragObserver(cfg)
    pick = random.Random(cfg.num_players)
    seen = {"choice": 0, "see": 0, "previous see": 0, "long history": 0, "checks": 0}
    for game in random_walk(cfg, seed=cfg.num_players, sessions=40):
        if pick.random() < 0.5:
            continue
        for seat in pick.sample(range(cfg.num_players), pick.randint(1, 2)):
            got = fast.observation(game, seat)
            np.testing.assert_array_equal(got, reference.fill(game, seat), err_msg=f"seat {seat}")
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
            np.testing.assert_array_equal(fast.observation(game, seat), reference.fill(game, seat))


@pytest.mark.parametrize("cfg", [*CONFIGS[:4], *CONFIGS[6:]], ids=lambda c: f"{c.num_players}p")
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_fill_equals_slow_reference(cfg: BragConfig) -> None:
    reference = BragObserver(cfg)
    checks = 0
    for i, game in enumerate(random_walk(cfg, seed=100 + cfg.num_players, sessions=15)):
        seat = i % cfg.num_players
        np.testing.assert_array_equal(
            reference.fill(game, seat), slow_observation(game, seat), err_msg=f"state {i}"
        )
        checks += 1
    assert checks > 100


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
        expected = reference.fill(env.game, seat).copy()
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
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert not mask.flags.writeable
        np.testing.assert_array_equal(mask, np.array(env.game.legal_mask(), dtype=np.int8))
        assert env.game.current_player == env.possible_agents.index(agent)
        for other in env.possible_agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert len(env_masks) > 3  # several distinct legal sets were met
