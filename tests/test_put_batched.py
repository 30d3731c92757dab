"""The batched Put engine against put_v0, move for move: same deals, same actions (P1-P6).

Every step compares, on every table, both seats' observation vectors (bit for bit), the mask
of the seat to act and both seats' rewards; the scalar env is the reference. With
``perfect_recall`` (an option put_v1 added, heads-up the same game) the reference is put_v1.
"""

import numpy as np
import pytest

from brag_env import put_v0, put_v1
from brag_env.put.batched import BatchedPut
from brag_env.put.rules import ACTION_NAMES, PutConfig


class _Mirrored(BatchedPut):
    """Deals what the scalar tables dealt: their current hand's deck and first dealer."""

    def __init__(self, envs, config):
        super().__init__(len(envs), config, seed=0)
        self.envs = envs

    def _draw_dealers(self, rows):
        return np.array([self.envs[r].game.dealer for r in rows])

    def _draw_deals(self, rows):
        return np.array([self.envs[r].game.record.deck for r in rows])


def _play_both(config: dict, tables: int, hands: int, seed: int) -> int:
    """Random legal play on both engines until ``hands`` hands finished; returns the count."""
    cfg = PutConfig.from_dict(config)
    module = put_v1 if cfg.perfect_recall else put_v0
    envs = [module.raw_env(**config) for _ in range(tables)]
    for i, env in enumerate(envs):
        env.reset(seed=seed * 100_003 + i)
    batched = _Mirrored(envs, cfg)
    batched.new_session()
    rng = np.random.default_rng(seed)
    matches = np.zeros(tables, np.int64)
    rows = np.arange(tables)
    finished = 0
    while finished < hands:
        for seat in (0, 1):
            got = batched.observe(rows, np.full(tables, seat))
            for i, env in enumerate(envs):
                want = env.observe(f"player_{seat}")["observation"]
                assert got[i].tobytes() == want.tobytes(), (i, seat)
        masks = batched.legal_mask(rows)
        actions = np.empty(tables, np.int64)
        for i, env in enumerate(envs):
            assert env.game.current_player == batched.current_player[i]
            mask = env.observe(env.agent_selection)["action_mask"]
            assert np.array_equal(masks[i], mask), i
            legal = np.flatnonzero(mask)
            actions[i] = legal[rng.integers(legal.size)]
            env.step(int(actions[i]))
        hands_before = batched.hands_played.sum()
        rewards, over = batched.step(rows, actions)
        for i, env in enumerate(envs):
            want = [env.rewards[a] for a in env.possible_agents]
            assert rewards[i].tolist() == want, (i, rewards[i], want)
            assert bool(over[i]) == all(env.terminations.values())
        finished += int(batched.hands_played.sum() - hands_before)
        done = np.flatnonzero(over)
        if done.size:
            for seat in (0, 1):  # the final view, then a new match on both sides
                got = batched.observe(done, np.full(done.size, seat))
                for j, i in enumerate(done):
                    want = envs[i].observe(f"player_{seat}")["observation"]
                    assert got[j].tobytes() == want.tobytes()
            for i in done:
                matches[i] += 1
                envs[i].reset(seed=seed * 100_003 + tables * int(matches[i]) + int(i))
            batched.new_session(done)
    return finished


CONFIGS = [
    {},  # put_ppo.yaml: target 5, seen Put 2, match reward
    {"target_points": 7, "seen_put_points": "game", "reward": "points"},
    {"target_points": 3, "seen_put_points": 3, "put_draw_to_opponent": True},
    {"deck_ranks": 2, "target_points": 3},  # eight cards: most tricks tie (P3)
]
# perfect_recall: the event block of this and the last hand (the tables' other options vary)
RECALL_CONFIGS = [
    {"perfect_recall": True},
    {"perfect_recall": True, "target_points": 1, "reward": "points"},  # every hand ends a match
    {"perfect_recall": True, "target_points": 7, "seen_put_points": "game", "reward": "points"},
    {"perfect_recall": True, "deck_ranks": 4, "reward": "points"},  # the small-deck runs' table
]


@pytest.mark.parametrize("config", CONFIGS + RECALL_CONFIGS)
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_batched_put_equals_put_v0_move_for_move_P1_P6(config):
    assert _play_both(config, tables=32, hands=600, seed=1) >= 600


@pytest.mark.slow
@pytest.mark.long  # left out of the default run: .ci/run runs -m long as its own step
@pytest.mark.parametrize("config", CONFIGS + RECALL_CONFIGS)
def test_batched_put_equals_put_v0_over_10000_hands(config):
    assert _play_both(config, tables=256, hands=10_000, seed=2) >= 10_000


def test_perfect_recall_rows_follow_the_hand_and_move_to_the_last_hand_block():
    """The event rows as put_v1 decodes them: a Put, its answer and the cards in order,
    relative seats; at the next deal they are the last hand's and the hand in play has none."""
    config = PutConfig(perfect_recall=True)
    game = BatchedPut(1, config, seed=3)
    game.new_session()
    first = int(game.current_player[0])
    plays = []
    for action in (13, 14):  # the leader calls Put, the other sees it
        game.step(np.array([0]), np.array([action]))
    while game.hands_played[0] == 0:
        legal = np.flatnonzero(game.legal_mask(np.array([0]))[0])
        plays.append((int(game.current_player[0]), int(legal[-1])))
        game.step(np.array([0]), np.array([legal[-1]]))
    view = put_v1.decode_observation(game.observe(np.array([0]), np.array([first]))[0], config)
    want = [(0, "put"), (1, "see")] + [(seat ^ first, ACTION_NAMES[a]) for seat, a in plays]
    assert [(e["seat"], e["action"]) for e in view["last_history"]] == want
    assert view["history"] == []


def test_unsupported_options_are_named():
    with pytest.raises(ValueError, match="num_players=3 is not supported"):
        BatchedPut(4, PutConfig(num_players=3))
    with pytest.raises(ValueError, match="num_tables"):
        BatchedPut(0)


def test_illegal_action_is_refused_and_changes_nothing():
    game = BatchedPut(3, seed=0)
    game.new_session()
    before = game.counts.copy(), game.current_player.copy()
    with pytest.raises(ValueError, match="illegal action 14 on table 0"):
        game.step(np.arange(3), np.array([14, 13, 13]))  # SEE without a Put
    assert np.array_equal(game.counts, before[0]) and np.array_equal(game.current_player, before[1])


def test_deals_are_reproducible_and_legal():
    a, b = BatchedPut(64, seed=5), BatchedPut(64, seed=5)
    a.new_session()
    b.new_session()
    assert np.array_equal(a.counts, b.counts) and np.array_equal(a.dealer, b.dealer)
    assert (a.counts.sum(axis=(1, 2)) == 6).all()
    assert (a.counts.sum(axis=1) <= 4).all()  # four suits per rank


def test_P2_full_pack_draws_are_the_ones_before_short_decks_and_short_decks_deal_their_cards():
    """Seed reproducibility across the deck_ranks change: a full pack's deal is still the first
    six Fisher-Yates steps over card ids 0..51 from the same draws; a short deck (P1) deals
    distinct cards of its own ranks only."""
    from brag_env.cards import NUM_CARDS
    from brag_env.put import batched_kernel as kernel

    rows = np.arange(64)
    game = BatchedPut(64, seed=0)
    game.rng = np.random.default_rng(11)
    picks = np.random.default_rng(11).integers(np.arange(6), NUM_CARDS, size=(64, 6))
    assert np.array_equal(game._draw_deals(rows), kernel.fisher_yates_top(picks, NUM_CARDS))
    config = PutConfig(deck_ranks=3)
    cards = BatchedPut(64, config, seed=11)._draw_deals(rows)
    assert set(cards.ravel().tolist()) <= set(config.deck_cards())
    assert all(len(set(row)) == 6 for row in cards.tolist())


def test_rows_seats_and_actions_that_are_not_table_numbers_are_refused():
    """No silent cast (1.7 -> 1) or wrap-around (-1 -> the last table or seat)."""
    game = BatchedPut(4, seed=0)
    game.new_session()
    legal = int(np.flatnonzero(game.legal_mask(np.array([0]))[0])[0])
    with pytest.raises(ValueError, match=r"rows must be table numbers 0\.\.3"):
        game.legal_mask(np.array([-1]))
    with pytest.raises(ValueError, match=r"rows must be table numbers 0\.\.3"):
        game.step(np.array([4]), np.array([legal]))
    with pytest.raises(ValueError, match="rows must be a 1-d array of table numbers, got float64"):
        game.observe(np.array([1.7]), np.array([0]))
    with pytest.raises(ValueError, match=r"seats must be one seat 0\.\.1 per row"):
        game.observe(np.array([0]), np.array([-1]))  # a finished match's seat to act
    with pytest.raises(ValueError, match="actions must be one integer action per row"):
        game.step(np.array([0]), np.array([legal + 0.5]))
    with pytest.raises(ValueError, match="rows must be a 1-d array"):
        game.new_session(np.array([[0]]))
