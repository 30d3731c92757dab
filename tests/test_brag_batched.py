"""The batched Brag engine against brag_v1, move for move: same deals, same actions (B1-B16).

Every table's deal is stacked on top of a brag_v1 env's deck (``reset`` options ``deck`` and
``dealer``), then both play the same random legal actions. Every step compares, on every
table, the acting seat's observation vector (bit for bit), its mask and every seat's reward,
and every seat's observation on all tables (quick tests) or on a quarter of them, another
quarter each step (the 10,000-hand tests), and at every session's end; the scalar env is the
reference.
"""

import functools
import os
import pickle
import subprocess
import sys
from copy import deepcopy

import numpy as np
import pytest

from brag_env import brag_v1
from brag_env.brag.batched import BatchedBrag
from brag_env.brag.observation import decode_observation
from brag_env.brag.reference_observation import ReferenceObserver
from brag_env.brag.rules import BragConfig
from brag_env.cards import NUM_CARDS, parse_cards


class _MirrorShuffle:
    """A scalar game's generator after its first deal: each B18 shuffle puts its deck in
    the order of the batched table's deck before that table's deal (the batched engine
    steps first). Nothing else draws from it, and a shuffle the batched table did not make
    fails."""

    def __init__(self, batched, row):
        self.batched, self.row = batched, row

    def shuffle(self, cards):
        b, i = self.batched, self.row
        assert b.shuffled[i], (i, "the scalar game shuffled, the batched table did not")
        deck = b.deck_top(i) + b.deck_cards(i)
        assert sorted(deck) == sorted(cards), (i, deck, cards)
        cards[:] = deck


def _stack(envs, batched, rows, seed):
    """Each table's deal on top of its env's deck; in a session the whole deck (B18: its
    later hands are dealt from it), and the env's later shuffles mirror the table's."""
    sessions = batched.config.hands_per_session > 1
    for i in rows.tolist():
        deck = batched.deck_top(i) + (batched.deck_cards(i) if sessions else [])
        envs[i].reset(seed=seed + i, options={"deck": deck, "dealer": int(batched.dealer[i])})
        if sessions:
            envs[i].unwrapped.game._rng = _MirrorShuffle(batched, i)


@functools.lru_cache(maxsize=8)
def _reference(config: BragConfig) -> ReferenceObserver:
    return ReferenceObserver(config)


def _compare_views(envs, batched, rows):
    n = batched.num_players
    for seat in range(n):
        got = batched.observe(rows, np.full(rows.size, seat))
        for j, i in enumerate(rows.tolist()):
            want = envs[i].observe(f"player_{seat}")["observation"]
            assert np.array_equal(got[j], want), (i, seat, np.flatnonzero(got[j] != want))
            assert got[j].tobytes() == want.tobytes()
            if seat == i % n:  # and one seat per table against the readable reference
                readable = _reference(batched.config).set_from(envs[i].unwrapped.game, seat)
                assert got[j].tobytes() == readable.tobytes(), (i, seat)


def _play_both(
    config: dict, tables: int, hands: int, seed: int, covers: int = 0, every: int = 1
) -> dict:
    """Random legal play on both engines until ``hands`` hands finished; returns counts.
    Each step compares the acting seat's view on every table and every seat's view on every
    ``every``-th table (a different share each step), and every seat's at each session end."""
    cfg = BragConfig.from_dict(config)
    envs = [brag_v1.raw_env(**config) for _ in range(tables)]
    batched = BatchedBrag(tables, cfg, seed=seed)
    batched.new_session()
    rows = np.arange(tables)
    _stack(envs, batched, rows, seed * 1000)
    rng = np.random.default_rng(seed)
    stats = {"hands": 0, "covers": 0, "sees": 0, "sessions": 0, "sit_outs": 0, "carries": 0}
    stats["choices"] = stats["early_ends"] = stats["shuffles"] = stats["cycles"] = 0
    cover_id, keep_id = cfg.cover_action, cfg.keep_old_hand_action
    steps = 0
    while stats["hands"] < hands:
        _compare_views(envs, batched, rows[steps % every :: every])
        steps += 1
        masks = batched.legal_mask(rows)
        views = batched.observe(rows, batched.current_player)
        actions = np.empty(tables, np.int64)
        for i, env in enumerate(envs):
            assert env.game.current_player == batched.current_player[i]
            seen = env.observe(env.agent_selection)
            mask = seen["action_mask"]
            assert np.array_equal(masks[i], mask), (i, masks[i], mask)
            assert views[i].tobytes() == seen["observation"].tobytes(), i
            legal = np.flatnonzero(mask)
            # lean towards bets so that stacks run short and covers (B16) happen
            bets = legal[legal != 0]
            pool = bets if bets.size and rng.random() < 0.8 else legal
            actions[i] = pool[rng.integers(pool.size)]
        stats["covers"] += int((actions == cover_id).sum())
        stats["sees"] += int((actions == 3).sum())
        stats["choices"] += int((actions == keep_id).sum() + (actions == keep_id + 1).sum())
        before = batched.hands_played.copy()
        rewards, over = batched.step(rows, actions)  # first: the env's shuffles mirror it
        for i, env in enumerate(envs):
            env.step(int(actions[i]))
            want = [env.rewards[a] for a in env.possible_agents]
            assert rewards[i].tolist() == want, (i, rewards[i], want)
            assert bool(over[i]) == all(env.terminations.values())
        ended = np.flatnonzero(batched.hands_played > before)
        stats["hands"] += ended.size
        for i in ended[~over[ended]].tolist():  # B18: the next hand dealt from the same deck
            game = envs[i].unwrapped.game
            assert game.deck_cards == batched.deck_cards(i), i
            stats["carries"] += game.hand_results[-1].carried > 0
            stats["shuffles"] += bool(batched.shuffled[i])
            stats["cycles"] += bool(batched.shuffled[i] and not batched.prev_prial[i])
            stats["sit_outs"] += sum(s == 0 for s in game.status)
        done = np.flatnonzero(over)
        if done.size:
            stats["sessions"] += done.size
            # B17: ended early, fewer than two players able to pay the ante
            stats["early_ends"] += sum(
                envs[i].unwrapped.game.hand_number + 1 < cfg.hands_per_session
                for i in done.tolist()
            )
            _compare_views(envs, batched, done)  # the final view of the session
            batched.new_session(done)
            _stack(envs, batched, done, seed * 1000 + stats["hands"] * tables)
    return stats


# The training configs (brag_headsup_ppo.yaml, brag_ppo.yaml) at 2, 3, 4 and 8 players.
TRAINING = {"ante": 1, "min_stake": 2, "max_stake": 32, "raise_sizes": [2], "hands_per_session": 1}
# Short stacks: covers (B16), several per hand at big tables, with side pots.
SHORT = {**TRAINING, "starting_chips": 12}
VARIANTS = [
    {"num_players": 3, "starting_chips": 9, "raise_sizes": [2, 3], "max_stake": 36},
    {"num_players": 4, "lowball": True, "prial_bonus": 2, "starting_chips": 15},
    {"num_players": 2, "allow_blind": False, "pot_limit": True, "blind_alone": "carries"},
    {"num_players": 3, "blind_may_see_open": False, "ante_mode": "none", "cover_pot": False},
]


# Multi-hand sessions (B8, B15-B19) on short stacks, so that covers and sit-outs happen: each
# carry option (B15) and shuffle mode (B18), the no-shuffle deck included.
SESSIONS = [
    {**SHORT, "num_players": 2, "hands_per_session": 10, "unopened_pot": "carries"},
    {
        **SHORT,
        "num_players": 4,
        "hands_per_session": 10,
        "blind_alone": "carries",
        "ante_mode": "after_prial",
        "shuffle": "after_prial_or_cycle",
    },
    {
        **SHORT,
        "num_players": 4,
        "hands_per_session": 3,
        "starting_chips": 20,
        "blind_alone": "carries",
        "unopened_pot": "carries",
        "shuffle": "every_hand",
        "prial_bonus": 2,
    },
    {
        **SHORT,
        "num_players": 3,
        "hands_per_session": 10,
        "shuffle": "after_prial_or_cycle",
        "blind_keep_hand": False,
        "lowball": True,
        "ante_mode": "none",
        "cover_pot": False,
    },
    {  # open play from the deal (B10), an ante of 2 (B8), a pot limit (B13), six seats
        **SHORT,
        "num_players": 6,
        "hands_per_session": 20,
        "ante": 2,
        "starting_chips": 16,
        "allow_blind": False,
        "blind_keep_hand": False,
        "unopened_pot": "carries",
        "pot_limit": True,
    },
]
# B1 short decks (deck_ranks): the deck as a ring of 12 or 16 cards, cycles every few hands.
SHORT_DECKS = [
    {
        **SHORT,
        "num_players": 2,
        "deck_ranks": 3,
        "hands_per_session": 10,
        "shuffle": "after_prial_or_cycle",
    },
    {**SHORT, "num_players": 3, "deck_ranks": 4, "hands_per_session": 10, "blind_alone": "carries"},
    {**SHORT, "num_players": 2, "deck_ranks": 2, "lowball": True},
]
SESSION_IDS = [
    "2p_10_unopened_carries",
    "4p_10_blind_carries_cycle",
    "4p_3_every_hand",
    "3p_10_no_ante",
    "6p_20_ante2_open_pot_limit",
]


@pytest.mark.parametrize("config", SESSIONS, ids=SESSION_IDS)
def test_B15_B19_batched_sessions_equal_brag_v1_move_for_move(config):
    stats = _play_both(config, tables=8, hands=40, seed=3)
    assert stats["hands"] >= 40 and stats["sessions"] > 0


@pytest.mark.slow
@pytest.mark.long  # left out of the default run: .ci/run runs -m long as its own step
@pytest.mark.parametrize("config", SESSIONS, ids=SESSION_IDS)
def test_B15_B19_batched_sessions_equal_brag_v1_over_10000_hands(config):
    cfg = BragConfig.from_dict(config)
    stats = _play_both(config, tables=128, hands=10_000, seed=11, every=4)
    assert stats["hands"] >= 10_000 and stats["early_ends"] > 0 and stats["sees"] > 0
    assert stats["sit_outs"] > 0 or cfg.num_players == 2  # heads-up, one out ends it
    assert stats["covers"] > 0 or not cfg.cover_pot
    assert stats["carries"] > 0 or not cfg.carries
    assert stats["choices"] > 0 or not cfg.blind_keep_hand
    assert stats["shuffles"] > 0  # B18: after a shown prial, or every hand
    assert stats["cycles"] > 0 or cfg.shuffle == "after_prial"  # ... or a cycle


@pytest.mark.parametrize("config", SHORT_DECKS, ids=["2p_3ranks", "3p_4ranks", "2p_2ranks"])
def test_B1_short_decks_batched_equal_brag_v1_move_for_move(config):
    stats = _play_both(config, tables=8, hands=40, seed=5)
    assert stats["hands"] >= 40 and stats["sees"] > 0
    assert stats["cycles"] > 0 or config.get("shuffle") != "after_prial_or_cycle"


# One-hand tables (B9) on short decks: each deal resets only what the last hand wrote
# (``deal_hands``), so these mix what a hand can write there: open play (every private block
# set, B10), blind looks, sees (B14), covers' side pots and shown hands (B16), lowball (B21),
# the prial bonus (B20) and a pot limit (B13), at 3 seats (sees happen) and 7 (covers end most
# hands at big tables on short stacks).
ONE_HAND_SHORT_DECKS = [
    {**SHORT, "num_players": 3, "deck_ranks": 4, "allow_blind": False, "prial_bonus": 2},
    {**SHORT, "num_players": 7, "deck_ranks": 6, "lowball": True, "pot_limit": True},
]


@pytest.mark.parametrize("config", ONE_HAND_SHORT_DECKS, ids=["3p_4ranks_open", "7p_6ranks_low"])
def test_B9_B16_one_hand_short_decks_batched_equal_brag_v1_move_for_move(config):
    stats = _play_both(config, tables=8, hands=48, seed=11)
    assert stats["hands"] >= 48 and stats["covers"] > 0
    assert stats["sees"] > 0 or config["num_players"] == 7


@pytest.mark.parametrize("players", [2, 3, 4, pytest.param(8, marks=pytest.mark.slow)])
def test_B1_B16_batched_brag_equals_brag_v1_move_for_move(players):
    stats = _play_both({**SHORT, "num_players": players}, tables=8, hands=24, seed=players)
    assert stats["hands"] >= 24 and stats["covers"] > 0
    assert stats["sees"] > 0 or players > 3  # short stacks at big tables: covers end hands


@pytest.mark.slow
@pytest.mark.long  # left out of the default run: .ci/run runs -m long as its own step
@pytest.mark.parametrize("players", [2, 3, 4, 8])
@pytest.mark.parametrize("base", [TRAINING, SHORT], ids=["training", "short_stacks"])
def test_batched_brag_equals_brag_v1_over_10000_hands(players, base):
    stats = _play_both(
        {**base, "num_players": players}, tables=128, hands=10_000, seed=players, every=4
    )
    assert stats["hands"] >= 10_000 and stats["sees"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("config", VARIANTS)
def test_B10_B21_batched_brag_options_equal_brag_v1(config):
    stats = _play_both(config, tables=64, hands=2_000, seed=7)
    assert stats["hands"] >= 2_000


def test_unsupported_options_are_named():
    with pytest.raises(ValueError, match=r"cards_dealt=4 .*use vec_env: dummy"):
        BatchedBrag(4, BragConfig(cards_dealt=4, allow_blind=False))
    with pytest.raises(ValueError, match="num_tables"):
        BatchedBrag(0)


def test_illegal_action_is_refused_and_changes_nothing():
    game = BatchedBrag(3, BragConfig(num_players=2), seed=0)
    game.new_session()
    before = game.chips.copy(), game.current_player.copy(), game.events.copy()
    with pytest.raises(ValueError, match="illegal action 5 on table 0"):
        game.step(np.arange(3), np.array([5, 1, 1]))  # keep_old_hand: no B19 choice is due
    assert np.array_equal(game.chips, before[0]) and np.array_equal(game.current_player, before[1])
    assert np.array_equal(game.events, before[2])


def test_B9_deals_are_reproducible_and_distinct_cards():
    a, b = BatchedBrag(64, seed=5), BatchedBrag(64, seed=5)
    a.new_session()
    b.new_session()
    assert np.array_equal(a.hands, b.hands) and np.array_equal(a.dealer, b.dealer)
    cards = a.hands.reshape(64, -1)
    assert all(len(set(row)) == len(row) for row in cards.tolist())


# 600 tables: observe works in blocks of rows; 6 players: its other gather path
@pytest.mark.parametrize("tables, players", [(16, 3), (600, 2), (600, 6)])
def test_observe_is_the_same_for_any_choice_and_order_of_rows(tables, players):
    game = BatchedBrag(tables, BragConfig(num_players=players), seed=2)
    game.new_session()
    rng = np.random.default_rng(0)
    rows = np.arange(tables)
    for _ in range(5):  # a few random moves: looks, bets, folds, some hands over
        live = rows[game.current_player >= 0]
        masks = game.legal_mask(live)
        pick = (rng.random(live.size) * masks.sum(axis=1)).astype(np.int64)
        game.step(live, (masks.cumsum(axis=1) > pick[:, None]).argmax(axis=1))
    seats = rng.integers(players, size=tables)
    every = game.observe(rows, seats)
    one_by_one = [game.observe(np.array([r]), seats[r : r + 1])[0] for r in range(0, tables, 37)]
    assert np.array_equal(np.array(one_by_one), every[::37])
    order = rng.permutation(tables)
    assert np.array_equal(game.observe(order, seats[order]), every[order])
    assert np.array_equal(game.observe(order[:5], seats[order[:5]]), every[order[:5]])


def test_observe_refuses_rows_and_seats_out_of_range():
    game = BatchedBrag(4, BragConfig(num_players=3), seed=0)
    game.new_session()
    with pytest.raises(ValueError, match=r"rows must be table numbers 0\.\.3"):
        game.observe(np.array([0, 4]), np.array([0, 0]))
    with pytest.raises(ValueError, match=r"seats must be one seat 0\.\.2 per row"):
        game.observe(np.array([0, 1]), np.array([0, -1]))  # -1: a finished session's seat
    with pytest.raises(ValueError, match="seats must be one seat"):
        game.observe(np.array([0, 1]), np.array([0]))
    with pytest.raises(ValueError, match="seats must be one seat"):
        game.observe(np.array([1]), np.array([1.7]))  # not cast to seat 1
    with pytest.raises(ValueError, match="rows must be a 1-d array of table numbers, got float64"):
        game.observe(np.array([1.7]), np.array([0]))  # not cast to table 1
    with pytest.raises(ValueError, match=r"rows must be table numbers 0\.\.3"):
        game.legal_mask(np.array([-1]))  # not the last table
    legal = int(np.flatnonzero(game.legal_mask(np.array([0]))[0])[0])
    with pytest.raises(ValueError, match=r"rows must be table numbers 0\.\.3"):
        game.step(np.array([-1]), np.array([legal]))
    with pytest.raises(ValueError, match="actions must be one integer action per row"):
        game.step(np.array([0]), np.array([legal + 0.5]))
    with pytest.raises(ValueError, match="actions must be one integer action per row"):
        game.step(np.array([0, 1]), np.array([legal]))
    with pytest.raises(ValueError, match="rows must be a 1-d array"):
        game.new_session(np.array([[0]]))


def _session(config, top, dealer):
    """One batched table, ``top`` (card text) on a deck whose other cards follow in id
    order, ``dealer`` dealing the first hand."""
    game = BatchedBrag(1, BragConfig.from_dict(config), seed=0)
    cards = parse_cards(top)
    deck = cards + [c for c in range(52) if c not in cards]
    game.new_session(decks=[deck], dealers=[dealer])
    return game, deck


def _play(game, *actions):
    """Scripted actions on table 0; returns the rewards of each and the last ``over``."""
    rewards, over = [], False
    for a in actions:
        r, o = game.step(np.array([0]), np.array([a]))
        rewards.append(r[0].tolist())
        over = bool(o[0])
    return rewards, over


def test_B15_B19_blind_alone_carries_the_pot_and_keeps_the_hand():
    config = {"num_players": 2, "hands_per_session": 3, "starting_chips": 20}
    config["blind_alone"] = "carries"
    game, deck = _session(config, "2c 3d 5h 7s 9c Jd", dealer=0)
    keep, take = game.config.keep_old_hand_action, game.config.take_new_hand_action
    assert game.current_player[0] == 1 and game.pot[0] == 2
    rewards, over = _play(game, 0)  # seat 1 folds: seat 0 is left alone, blind
    assert rewards == [[-1, -1]] and not over  # B15: nobody wins, the pot stays
    assert game.hand_number[0] == 1 and game.dealer[0] == 1
    assert game.pot[0] == 4  # carried 2 + 2 antes
    seen = decode_observation(game.observe(np.array([0]), np.array([1]))[0], game.config)
    assert seen["pot"] == 4 and seen["hand_number"] == 1 and seen["choice_pending"]
    assert seen["previous_hand"]["chip_changes"] == [-1, -1]
    # B19: seat 0 kept its unseen hand (deck 2, 4, 6) and was dealt a new one (7, 9, 11)
    assert game.current_player[0] == 0
    assert np.flatnonzero(game.legal_mask(np.array([0]))[0]).tolist() == [keep, take]
    assert game.kept[0].tolist() == [deck[1], deck[3], deck[5]]
    assert game.deck_cards(0) == deck[12:] + deck[0:6:2]  # B18: seat 1's cards under
    rewards, over = _play(game, take)
    assert game.deck_cards(0) == deck[12:] + deck[0:6:2] + deck[1:6:2]  # the old hand under
    assert game.hands[0, 0].tolist() == deck[6:12:2] and game.current_player[0] == 0
    rewards, over = _play(game, 2, 1, 0)  # seat 0 looks and stays (2); seat 1 folds
    assert rewards[-1] == [3, -1] and not over  # open, alone: it wins 4 + 2 antes + its 2
    rewards, over = _play(game, 0)  # the last hand: seat 1 folds, seat 0 blind, alone
    assert rewards == [[1, -1]] and over  # B15: a pot never carries out of a session
    assert game.chips[0].tolist() == [23, 17] and game.current_player[0] == -1


def test_B16_B17_a_broke_player_sits_out_and_the_button_skips_it():
    config = {"num_players": 3, "hands_per_session": 5, "starting_chips": 3}
    # dealt from seat 1: seat 1 gets 2c 5d 9h, seat 2 3c 6d Th, seat 0 As Ah Kd
    game, _ = _session(config, "2c 3c As 5d 6d Ah 9h Th Kd", dealer=0)
    cover = game.config.cover_action
    # seat 1 looks and stays open (2, broke), seat 2 folds, seat 0 stays blind (1); seat 1
    # cannot stay: it covers with 0 chips, which leaves seat 0 alone: the hands are compared
    rewards, over = _play(game, 2, 1, 0, 1, cover)
    assert rewards[-1] == [4, -3, -1] and not over  # seat 0's aces take the covered 6
    assert game.chips_before[0].tolist() == [7, 0, 2]  # B8: the next antes are paid
    assert game.chips[0].tolist() == [6, 0, 1]
    assert game.status[0].tolist() == [2, 0, 2]  # B16: seat 1 sits out, seat 0 blind again
    assert game.dealer[0] == 2 and game.current_player[0] == 0  # the button skipped seat 1
    assert game.pot[0] == 2 and game.in_hand[0] == 2
    assert game.settled(np.array([0]), np.array([1])).tolist() == [True]  # no more changes
    seen = decode_observation(game.observe(np.array([0]), np.array([0]))[0], game.config)
    assert [s["status"] for s in seen["seats"]] == ["blind", "sitting_out", "blind"]
    assert seen["seats"][1]["chips_in"] == 0 and seen["pot"] == 2
    assert set(parse_cards(seen["shown_cards"])) == set(parse_cards("2c 5d 9h As Ah Kd"))
    rewards, over = _play(game, 0)  # seat 0 folds: seat 2 wins the antes
    assert rewards == [[-1, 0, 1]] and not over and game.chips_before[0].tolist() == [6, 0, 3]


def test_B16_settled_waits_for_the_last_hand_of_a_session():
    config = BragConfig(num_players=3, hands_per_session=2, blind_keep_hand=False)
    game = BatchedBrag(1, config, seed=4)
    game.new_session()
    seat = int(game.current_player[0])
    _play(game, 0)  # a fold on the first hand: the second may still change its chips
    assert game.settled(np.array([0]), np.array([seat])).tolist() == [False]
    while game.hand_number[0] == 0:
        _play(game, 0)
    seat = int(game.current_player[0])
    _play(game, 0)  # a fold on the last hand: final
    assert game.settled(np.array([0]), np.array([seat])).tolist() == [True]


def test_new_session_refuses_decks_and_dealers_that_are_not_a_stacked_deal():
    game = BatchedBrag(2, BragConfig(num_players=3, hands_per_session=5), seed=0)
    deck = np.arange(NUM_CARDS)
    decks = np.stack([deck, deck[::-1]])
    game.new_session(decks=decks, dealers=np.array([0, 2]))  # accepted: two permutations
    assert game.deck_top(0)[:3] == [0, 1, 2] and int(game.dealer[1]) == 2
    with pytest.raises(ValueError, match="decks must be integers, got float64"):
        game.new_session(decks=decks + 0.5)
    with pytest.raises(ValueError, match="dealers must be integers"):
        game.new_session(decks=decks, dealers=np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="decks must be permutations"):
        game.new_session(decks=np.stack([deck, deck]) % 51)
    with pytest.raises(ValueError, match=r"dealers must be seats 0\.\.2"):
        game.new_session(decks=decks, dealers=np.array([0, 3]))
    with pytest.raises(ValueError, match=r"decks must have shape \(2, 52\), got \(1, 52\)"):
        game.new_session(decks=decks[:1])
    with pytest.raises(ValueError, match=r"dealers must have shape \(2,\)"):
        game.new_session(decks=decks, dealers=np.array([0, 1, 2]))
    one_hand = BatchedBrag(2, BragConfig(num_players=3), seed=0)
    with pytest.raises(ValueError, match="only for hands_per_session > 1"):
        one_hand.new_session(decks=decks)


def test_a_refused_new_session_draws_nothing():
    """The checks come before the draws: the deal stream goes on as if the call never was."""
    config = BragConfig(num_players=3, hands_per_session=5)
    refused, fresh = BatchedBrag(2, config, seed=4), BatchedBrag(2, config, seed=4)
    with pytest.raises(ValueError, match="dealers must be integers"):
        refused.new_session(dealers=np.array([0.5, 1.0]))
    with pytest.raises(ValueError, match="decks must be permutations"):
        refused.new_session(decks=np.zeros((2, NUM_CARDS), np.int64))
    refused.new_session()
    fresh.new_session()
    assert refused.deck.tolist() == fresh.deck.tolist()
    assert refused.dealer.tolist() == fresh.dealer.tolist()
    assert refused.hands.tolist() == fresh.hands.tolist()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_B12_history_longer_than_its_16_slots_equals_brag_v1(players):
    # The history keeps the last 16 public events; the batched engine writes them into a ring
    # and reads it back most recent first. Blind stays (B11/B12) until well past 16 events,
    # every seat's view compared with brag_v1's at every step, the oldest events dropping off.
    # A slot a wrapped ring reuses must lose its old event: two early blind raises (B13) are
    # overwritten by stays, and at three seats (16 not a multiple) by another seat too.
    config = {"num_players": players, "starting_chips": 400, "min_stake": 2, "max_stake": 32}
    cfg = BragConfig.from_dict(config)
    envs = [brag_v1.raw_env(**config) for _ in range(3)]
    batched = BatchedBrag(3, cfg, seed=5)
    batched.new_session()
    rows = np.arange(3)
    _stack(envs, batched, rows, 77)
    raise_2x = cfg.action_names.index("raise_2x")
    for step in range(40):
        _compare_views(envs, batched, rows)
        action = raise_2x if step in (0, 3) else 1
        assert (batched.legal_mask(rows)[:, action] == 1).all()  # blind: still legal
        batched.step(rows, np.full(3, action))
        for env in envs:
            env.step(action)
    assert (batched.events == 40).all()
    _compare_views(envs, batched, rows)


def test_observe_into_any_float_buffer_gives_the_same_rows():
    # observe's ``out`` may be a float64 or column-ordered buffer: the same values land in it
    batched = BatchedBrag(6, BragConfig(num_players=3), seed=2)
    batched.new_session()
    rows = np.array([4, 0, 2])
    want = batched.observe(rows, np.array([1, 2, 0]))
    for out in (np.zeros((3, batched.obs_size)), np.zeros((3, batched.obs_size), np.float32, "F")):
        assert np.array_equal(batched.observe(rows, np.array([1, 2, 0]), out), want)
        assert np.array_equal(out, want)


def test_an_empty_numba_cache_is_seen_as_not_cached(tmp_path):
    """``cached`` reads Numba's index of each kernel (in a fresh interpreter, the cache in an
    empty folder): False, so the first use there is announced."""
    script = "from brag_env.brag import batched_kernel as k; print(k.cached())"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.split() == ["False"]


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_pickled_or_copied_engine_plays_on_as_the_original(how):
    """The kernels' structs are rebuilt over the copy's own arrays: the same next step, and
    stepping the copy leaves the original as it was."""
    config = BragConfig.from_dict({"num_players": 3, "hands_per_session": 4})
    engine = BatchedBrag(8, config, seed=2)
    engine.new_session()
    rng = np.random.default_rng(0)
    rows = np.arange(8)
    for _ in range(5):  # into the session: some hands over, some mid-betting
        masks = engine.legal_mask(rows)
        engine.step(rows, np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    copy = pickle.loads(pickle.dumps(engine)) if how == "pickle" else deepcopy(engine)
    before = engine.state.copy()
    actions = np.array([np.flatnonzero(m)[-1] for m in engine.legal_mask(rows)])
    got = copy.step(rows, actions)
    np.testing.assert_array_equal(engine.state, before)  # the copy has arrays of its own
    want = engine.step(rows, actions)
    for mine, theirs in zip(got, want, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    seats = engine.current_player.clip(0)
    np.testing.assert_array_equal(copy.observe(rows, seats), engine.observe(rows, seats))
    np.testing.assert_array_equal(copy.legal_mask(rows), engine.legal_mask(rows))


def test_rebinding_an_array_the_kernels_share_is_refused():
    """The kernels keep views of ``chips``, ``state`` ...: a new array there would go unseen."""
    engine = BatchedBrag(2)
    engine.new_session()
    chips = engine.chips
    with pytest.raises(AttributeError, match=r"^BatchedBrag.chips is shared .*in place"):
        engine.chips = np.zeros_like(chips)
    assert engine.chips is chips
    engine.chips[...] = 7  # in place: what the kernels read
    engine.note = "any other attribute"  # still free


def _three_seat_brag():
    return BatchedBrag(4, BragConfig(num_players=3), seed=0)


def _put():
    from brag_env.put.batched import BatchedPut

    return BatchedPut(4, seed=0)


@pytest.mark.parametrize("make", [_three_seat_brag, _put], ids=["brag", "put"])
@pytest.mark.parametrize("shape", [(1, None), (3, 7), (3,)])
def test_observe_refuses_an_out_of_the_wrong_size(make, shape):
    """Both batched engines: a too-small or mis-shaped ``out`` is one line naming what fits,
    not a numpy broadcast error; a larger one is filled in its first rows (a VecEnv's
    buffer)."""
    game = make()
    game.new_session()
    rows = np.array([0, 1])
    seats = game.current_player[rows]
    size = game.observe(rows, seats).shape[1]
    bad = np.zeros(tuple(size if n is None else n for n in shape), np.float32)
    expected = rf"out must be an array of at least 2 rows of {size} values"
    with pytest.raises(ValueError, match=expected):
        game.observe(rows, seats, bad)
    big = np.full((4, size), -1.0, np.float32)
    game.observe(rows, seats, big)
    assert np.array_equal(big[:2], game.observe(rows, seats)) and (big[2:] == -1).all()
    with pytest.raises(ValueError, match="out must be a float array, got int64"):
        game.observe(rows, seats, np.zeros((2, size), np.int64))  # not truncated silently
    wide = np.zeros((2, size), np.float64)  # another float dtype gets the values cast
    assert np.array_equal(game.observe(rows, seats, wide), game.observe(rows, seats))


@pytest.mark.parametrize("lowball", [False, True])
def test_the_deals_ranking_table_gives_hands_py_values_for_every_ordered_hand(lowball):
    """B2-B5, B21: the kernels' table by set of three cards (``hand_index``) holds, for every
    ordered triple of distinct cards, hands.py's strength (lowball's when asked) and the
    standard category."""
    from brag_env.brag import batched_kernel as kernel
    from brag_env.brag.batched import _ranked
    from brag_env.brag.hands import CATEGORY_OF_STRENGTH, LOWBALL_STRENGTH_TABLE, STRENGTH_TABLE

    a, b, c = np.indices((NUM_CARDS,) * 3).reshape(3, -1)
    distinct = (a != b) & (b != c) & (a != c)
    a, b, c = a[distinct], b[distinct], c[distinct]
    index = np.array([kernel.hand_index(x, y, z) for x, y, z in zip(a, b, c, strict=True)])
    entry = _ranked(lowball)[index].astype(np.int64)
    flat = (a * NUM_CARDS + b) * NUM_CARDS + c
    table = LOWBALL_STRENGTH_TABLE if lowball else STRENGTH_TABLE
    np.testing.assert_array_equal(entry & ((1 << kernel.RANK_BITS) - 1), table[flat])
    np.testing.assert_array_equal(
        entry >> kernel.RANK_BITS, CATEGORY_OF_STRENGTH[STRENGTH_TABLE[flat]]
    )


@pytest.mark.parametrize("deck_ranks, players", [(13, 6), (3, 2)])
def test_B9_B18_each_tables_deal_is_drawn_from_the_pack_in_order(deck_ranks, players):
    """B9/B18: ``draw_deals`` gives each table the first steps of its own Fisher-Yates shuffle
    of the ordered pack (the kernel undoes one table's swaps before the next), so a seed deals
    the same cards whatever the tables before it drew."""
    from brag_env.brag import batched_kernel as kernel

    pack = np.array(BragConfig(deck_ranks=deck_ranks).deck_cards(), np.int64)
    dealt, tables = 3 * players, 64
    uniforms = np.random.default_rng(3).random((dealt, tables))
    want = np.empty((tables, dealt), np.int64)
    for t in range(tables):
        deck = pack.copy()
        for i in range(dealt):
            there = i + int(uniforms[i, t] * (pack.size - i))
            deck[i], deck[there] = deck[there], deck[i]
        want[t] = deck[:dealt]
    np.testing.assert_array_equal(kernel.draw_deals(pack, uniforms), want)
