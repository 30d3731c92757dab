"""Put under random legal play: zero-sum, termination, masks, replayable histories, no leaks,
and the fast observation encoder against a reference built from the hand history."""

from __future__ import annotations

import random

import numpy as np
import pytest

from brag_env import put_v1
from brag_env.put import (
    FOLD,
    PASS,
    PASS_NONE,
    PLAY,
    PUT_RANK,
    SEE,
    PutConfig,
    PutGame,
    PutObserver,
    replay_hand,
)
from brag_env.put.game import PHASE_OVER
from brag_env.put.rules import NUM_RANKS


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("reward", ["match", "points"])
def test_random_legal_matches(num_players, reward):
    """P6/rewards: every match ends, rewards are zero-sum, the acting agent always has a move,
    and every hand history replays to itself."""
    config = PutConfig(num_players=num_players, reward=reward)
    env = put_v1.env(num_players=num_players, reward=reward)
    rng = np.random.default_rng(num_players)
    hands = 0
    for match in range(120):
        env.reset(seed=1000 * num_players + match)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        decisions = 0
        for agent in env.agent_iter():
            obs, reward_, term, trunc, _ = env.last()
            totals[agent] += reward_
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            assert legal.size > 0, "the acting agent must have a legal action"
            env.step(int(legal[int(rng.random() * legal.size)]))
            assert sum(env.unwrapped.rewards.values()) == pytest.approx(0.0)
            decisions += 1
            assert decisions < 20_000, "a match must end"
        assert sum(totals.values()) == pytest.approx(0.0)
        game = env.unwrapped.game
        if reward == "match":
            winners = {f"player_{s}" for s in game.winners()}
            loss = -0.5 if num_players == 3 else -1.0
            assert totals == {a: (1.0 if a in winners else loss) for a in totals}
        else:
            scores = game.seat_scores()
            for seat in range(num_players):
                gained = sum(
                    rec["result"]["points"]
                    for rec in game.history()
                    if rec["result"]["unit"] == game.unit_of[seat]
                )
                assert gained == scores[seat]
            assert max(scores) >= config.target_points
        for rec in game.history():
            assert replay_hand(rec, config) == rec
        hands += len(game.history())
    assert hands >= 500


def _prefix(game: PutGame, pick: random.Random, length: int) -> list[int]:
    actions = []
    while len(actions) < length and not game.records:
        legal = game.legal_actions()
        action = legal[int(pick.random() * len(legal))]
        game.apply(action)
        actions.append(action)
    return actions


def _observations(config, deck, dealer, actions, seat):
    game = PutGame(config)
    observer = PutObserver(config)
    game.new_session(np.random.default_rng(0), deck=deck, dealer=dealer)
    seen = [
        (
            observer.set_from(game, seat).copy(),
            game.legal_mask().copy() if game.current_player == seat else 0,
        )
    ]
    for action in actions:
        game.apply(action)
        seen.append(
            (
                observer.set_from(game, seat).copy(),
                game.legal_mask().copy() if game.current_player == seat else 0,
            )
        )
    return seen


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_no_leak_of_other_players_unplayed_cards(num_players):
    """Changing any other player's unplayed (and, for P8, unknown) cards changes nothing in an
    observation, at any step of the hand, nor in the next hand's view of the finished one (the
    last-hand block shows only cards played face up: after a folded Put (P4) the rest stays
    hidden)."""
    config = PutConfig(num_players=num_players)
    pick = random.Random(num_players)
    checked = ended = folded = 0
    for trial in range(150):
        game = PutGame(config)
        game.new_session(np.random.default_rng(trial))
        deck, dealer = list(game.record.deck), game.dealer
        actions = _prefix(game, pick, pick.randrange(0, 4 * num_players + 8))
        shown = set()  # a card played by the action that ended the hand is face up
        if game.records:  # the hand ended: read the hands just before its last action
            ended += 1
            _, last_action, last_card = game.records[0].actions[-1]
            folded += last_action == FOLD
            if last_action < NUM_RANKS:
                shown.add(last_card)
            game = PutGame(config)
            game.new_session(np.random.default_rng(0), deck=deck, dealer=dealer)
            for action in actions[:-1]:
                game.apply(action)
        observer_seat = pick.randrange(num_players)
        # Everything the others hold, except the card the observer passed to its partner (P8).
        unknown = {
            c
            for seat in range(num_players)
            if seat != observer_seat
            for c in game.hands[seat]
            if c != game.pass_card[observer_seat] and c not in shown
        }
        if not unknown:
            continue
        spare = [c for c in range(52) if c not in deck]
        pick.shuffle(spare)
        swap = dict(zip(sorted(unknown), spare, strict=False))
        other_deck = [swap.get(c, c) for c in deck]
        # A swapped card that another player chose to pass is now passed by its new rank.
        other_actions = list(actions)
        for i, (_, action, card) in enumerate(game.record.actions):
            if action >= PASS and card in swap:
                other_actions[i] = PASS + PUT_RANK[swap[card]]
        assert other_deck != deck
        a = _observations(config, deck, dealer, actions, observer_seat)
        b = _observations(config, other_deck, dealer, other_actions, observer_seat)
        for (obs_a, mask_a), (obs_b, mask_b) in zip(a, b, strict=True):
            np.testing.assert_array_equal(obs_a, obs_b)
            np.testing.assert_array_equal(mask_a, mask_b)
        checked += 1
    assert checked >= 100 and ended >= 30 and folded >= 5


def _reference_observation(game: PutGame, player: int, observer: PutObserver) -> np.ndarray:
    """The observation rebuilt from the hand history record and the public state, by name."""
    n = game.n
    buf = np.zeros(observer.size, dtype=np.float32)
    views = {}
    offset = 0
    for name, shape in observer.layout:
        size = int(np.prod(shape))
        views[name] = buf[offset : offset + size].reshape(shape)
        offset += size
    rec = game.record
    rel = [(s - player) % n for s in range(n)]

    def mark_put(record, prefix: str) -> None:
        """A hand's Put call and its answers, in the views named ``prefix`` + put_*."""
        if record.put_caller >= 0:
            views[prefix + "put_caller"][rel[record.put_caller]] = 1
            for s, answer in record.answers:
                if answer == SEE:
                    views[prefix + "put_seen"][0] = 1
                else:
                    views[prefix + "put_folded"][rel[s]] = 1

    hand = list(rec.deck[(player - rec.dealer - 1) % n :: n])
    passes = [(s, a - PASS, c) for s, a, c in rec.actions if PASS <= a < PASS_NONE]
    nothing = {s for s, a, _ in rec.actions if a == PASS_NONE}  # P8 optional pass
    plays = [(s, a - PLAY, c) for s, a, c in rec.actions if a < 13]
    for s, r, _ in passes:
        if s == player:
            views["passed"][r] = 1
    if len(passes) + len(nothing) == n:
        for s, r, c in passes:
            if (s + 2) % n in nothing:
                continue  # no swap: both partners keep their cards
            if "exchanged" in views:
                views["exchanged"][0 if s % 2 == player % 2 else 1] = 1
            if s == player:
                hand.remove(c)
            if (s + 2) % n == player:
                hand.append(c)
                views["received"][r] = 1
    for k, (s, r, c) in enumerate(plays):
        views["played"][k // n, rel[s], r] = 1
        if s == player:
            hand.remove(c)
    for c in hand:
        views["hand"][PUT_RANK[c]] += 1
    leader = (rec.dealer + 1) % n
    for t, (trick_leader, _, winner) in enumerate(rec.tricks):
        assert trick_leader == leader
        views["trick_leader"][t, rel[leader]] = 1
        if winner >= 0:
            views["trick_winner"][t, rel[winner]] = 1
            views["tricks_won"][rel[winner]] += 1
            leader = winner
        else:
            views["trick_tied"][t] = 1
    if game.phase != PHASE_OVER:
        t = len(rec.tricks)
        views["trick_leader"][t, rel[leader]] = 1
        views["current_trick"][t] = 1
        views["acting"][rel[game.current_player]] = 1
        views["phase"][game.phase] = 1
    mark_put(rec, "")
    for s in range(n):
        views["scores"][rel[s]] = game.scores[game.unit_of[s]] / game.target
    views["dealer"][rel[rec.dealer]] = 1
    if game.records:  # the last finished hand, from its record
        last = game.records[-1]
        views["last_hand"][0] = 1
        last_plays = [(s, a - PLAY) for s, a, _ in last.actions if a < NUM_RANKS]
        for k, (s, r) in enumerate(last_plays):
            views["last_played"][k // n, rel[s], r] = 1
        for t, (_, _, winner) in enumerate(last.tricks):
            if winner >= 0:
                views["last_trick_winner"][t, rel[winner]] = 1
            else:
                views["last_trick_tied"][t] = 1
        mark_put(last, "last_")
        _, unit, points = last.result
        for s in range(n):
            if game.unit_of[s] == unit:
                views["last_points"][rel[s]] = points / game.target
    return buf


@pytest.mark.parametrize(
    ("num_players", "variant"),
    [
        (2, {}),
        (3, {}),
        (3, {"put_answers": "in_turn"}),
        (4, {}),
        (4, {"partner_exchange": "always"}),
    ],
)
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_fast_observation_matches_the_reference(num_players, variant):
    config = PutConfig(num_players=num_players, **variant)
    game, observer = PutGame(config), PutObserver(config)
    rng, pick = np.random.default_rng(7), random.Random(7)
    states = 0
    while states < 1200:
        game.new_session(rng)
        while True:
            for seat in range(num_players):
                fast = observer.set_from(game, seat)
                np.testing.assert_array_equal(
                    fast, _reference_observation(game, seat, observer), err_msg=f"seat {seat}"
                )
            if states % 10 == 0:
                decoded = observer.decode(fast)
                assert len(decoded["hand"]) == len(game.hands[num_players - 1])
            states += 1
            if game.session_over:
                break
            legal = game.legal_actions()
            assert 0 < len(legal) <= config.num_actions
            game.apply(legal[int(pick.random() * len(legal))])
