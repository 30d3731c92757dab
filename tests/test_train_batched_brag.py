"""The batched self-play VecEnv on Brag: VsPoolEnv's contract on BatchedBrag."""

import numpy as np
import pytest
from lockstep import play_lockstep, play_random
from tiny_snapshot import save_tiny_snapshot
from unloadable_kernels import kernels_that_cannot_load

from brag_env.brag.batched import BatchedBrag
from brag_env.brag.observation import observation_layout
from brag_env.brag.rules import FIRST_RAISE, FOLD, LOOK, STAY, BragConfig
from brag_env.training.batched import BatchedSelfPlayVecEnv, make_engine
from brag_env.training.config import config_from_dict

OPPONENTS = ["random", "brag:caller", "brag:tight", "brag:bluffer", "brag:blind", "brag:tips"]
HEADS_UP = {"num_players": 2, "ante": 1, "min_stake": 2, "max_stake": 32, "raise_sizes": [2]}


def _venv(options=HEADS_UP, seed=3, tables=8, **kw):
    return BatchedSelfPlayVecEnv("brag", options, tables, opponents=OPPONENTS, seed=seed, **kw)


def test_engine_is_the_batched_brag_and_same_seed_sameplay_random():
    assert isinstance(_venv().engine, BatchedBrag)
    a, _, _ = play_random(_venv(seed=3), 60, 0)
    b, _, _ = play_random(_venv(seed=3), 60, 0)
    c, _, _ = play_random(_venv(seed=4), 60, 0)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_learner_acts_at_every_step_seats_rotate_and_rewards_are_chips():
    options = {**HEADS_UP, "num_players": 3}
    venv = _venv(options, reward_scale=0.1)
    to_act = observation_layout(BragConfig.from_dict(options)).offset("seat_to_act")
    obs = venv.reset()
    assert [info["learner_seat"] for info in venv.reset_infos] == [i % 3 for i in range(8)]
    rng = np.random.default_rng(0)
    returns, seen = [], {i: set() for i in range(8)}
    for _ in range(150):
        assert (obs[:, to_act] == 1.0).all()  # relative seat 0: the learner's own decision
        masks = venv.action_masks()
        obs, reward, done, infos = venv.step(
            np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        )
        for i in np.flatnonzero(done):
            seen[i].add(infos[i]["learner_seat"])
        returns += reward[done].tolist()
        assert (reward[~done] == 0).all()  # one-hand sessions: paid when the session ends
    assert len(returns) > 20
    # the seat rotates per episode (hands the learner never acts in are skipped, VsPoolEnv's rule)
    assert all(len(s) >= 2 for s in seen.values())
    assert all(abs(r * 10 - round(r * 10)) < 1e-4 for r in returns)  # whole chips / 10


def test_batched_brag_config_errors_are_one_line():
    base = {"name": "x", "game": "brag", "vec_env": "batched"}
    five = {"num_players": 2, "cards_dealt": 5, "allow_blind": False}
    with pytest.raises(ValueError, match=r"cards_dealt=5 .*use vec_env: dummy"):
        config_from_dict({**base, "env": five})
    with pytest.raises(ValueError, match="cards_dealt=5"):
        BatchedSelfPlayVecEnv("brag", five, 2)
    config_from_dict({**base, "env": {"num_players": 2, "hands_per_session": 3}})  # B17: fine


def test_B17_sessions_pay_each_hand_and_end_with_the_session():
    # Several hands per episode: the learner is paid each hand's chip change when it ends
    # (rewards without done), and an episode's return is its chip change over the session.
    options = {**HEADS_UP, "num_players": 3, "hands_per_session": 4, "starting_chips": 12}
    venv = _venv(options, tables=4)
    rng = np.random.default_rng(1)
    venv.reset()
    paid_mid_episode, returns = 0, []
    total = np.zeros(4)
    for _ in range(300):
        masks = venv.action_masks()
        _, reward, done, _ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        paid_mid_episode += int(((reward != 0) & ~done).sum())
        total += reward
        for i in np.flatnonzero(done):
            returns.append(total[i])
            total[i] = 0.0
        assert all(abs(r - round(r)) < 1e-6 for r in reward)
    assert paid_mid_episode > 0 and len(returns) > 10
    assert all(-12 <= r <= 24 for r in returns)  # one stack lost at most, two won


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_snapshot_opponents_play_brag_in_one_batched_forward_pass(tmp_path):
    save_tiny_snapshot(tmp_path, _venv(), "brag")
    venv = BatchedSelfPlayVecEnv("brag", HEADS_UP, 8, opponents=["random"], snapshot_prob=1.0)
    venv.env_method("add_snapshot", str(tmp_path / "snap.zip"))
    _, returns, _ = play_random(venv, 60, 0)
    assert returns
    assert [s for s in venv._agents if s.endswith(".zip")]


class _MirroredEngine(BatchedBrag):
    """Deals what a VsPoolEnv's brag_v1 dealt: its dealer and its hands, in deal order."""

    def __init__(self, scalar):
        super().__init__(1, BragConfig.from_dict(scalar.env_config), seed=0)
        self.scalar = scalar

    def _draw_dealers(self, rows):
        return np.array([self.scalar.aec.game.dealer])

    def _draw_deals(self, rows):
        game = self.scalar.aec.game
        n, d = game.num_players, game.dealer
        order = [(d + 1 + j) % n for j in range(n)]
        return np.array([[game.hands[s][i] for i in range(3) for s in order]])


# Opponents that never fold before the learner's first decision: an episode VsPoolEnv skips
# would deal again on its side only, and the mirror would lose step.
@pytest.mark.parametrize("opponent", ["brag:caller", "brag:never_look", "brag:bluffer:bluff=1.0"])
@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_same_run_as_vs_pool_env_on_the_same_deals(opponent, players):
    # VsPoolEnv's contract, step for step: seat rotation, observations, masks, the learner's
    # rewards (including those of hands an opponent ends) and episode ends.
    from brag_env.selfplay import VsPoolEnv

    options = {**HEADS_UP, "num_players": players, "starting_chips": 24}
    scalar = VsPoolEnv(game="brag", env_config=options, opponents=[opponent], seed=0)
    venv = BatchedSelfPlayVecEnv("brag", options, 1, opponents=[opponent], seed=0)
    venv.engine = _MirroredEngine(scalar)
    assert play_lockstep(scalar, venv, 1500) > 100


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_a_folded_learner_ends_its_episode_with_the_reward_vs_pool_env_pays(players):
    # A learner that folds at a table of three or more has its result (BatchedBrag.settled):
    # the batched env ends the episode at once; VsPoolEnv plays the hand out first. Rewards,
    # episode ends and the next deals stay in step.
    from brag_env.selfplay import VsPoolEnv

    options = {**HEADS_UP, "num_players": players, "starting_chips": 24}
    scalar = VsPoolEnv(game="brag", env_config=options, opponents=["brag:caller"], seed=0)
    venv = BatchedSelfPlayVecEnv("brag", options, 1, opponents=["brag:caller"], seed=0)
    venv.engine = _MirroredEngine(scalar)
    assert play_lockstep(scalar, venv, 1500, fold_every=3) > 300


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_a_folding_learner_loses_what_it_put_in_once(players):
    # Whether its fold leaves the hand to the others (settled: the episode ends there) or ends
    # the hand (two were in: the hand's end pays it), the learner's reward is the chips it put
    # in, lost once.
    options = {**HEADS_UP, "num_players": players}
    venv = BatchedSelfPlayVecEnv("brag", options, 64, opponents=["random"], seed=0)
    venv.reset()
    engine, rng = venv.engine, np.random.default_rng(0)
    folds = {"leave": 0, "end": 0}
    for _ in range(120):
        masks = venv.action_masks()
        fold = masks[:, FOLD] & (rng.random(len(masks)) < 0.4)
        actions = np.where(fold, FOLD, np.array([np.flatnonzero(m)[-1] for m in masks]))
        seat, tables = venv._seat.copy(), np.arange(len(masks))
        lost = engine.contributed[tables, seat].copy()
        two_in = engine.active == 2
        _, reward, done, _ = venv.step(actions)
        assert done[fold].all() and np.array_equal(reward[fold], -lost[fold])
        folds["end"] += int((fold & two_in).sum())
        folds["leave"] += int((fold & ~two_in).sum())
    assert min(folds.values()) > 20, folds


def test_settled_is_a_fold_without_cover_or_bonus_due():
    config = BragConfig.from_dict({**HEADS_UP, "num_players": 3})
    game = BatchedBrag(2, config, seed=0)
    game.new_session()
    rows = np.arange(2)
    assert not game.settled(rows, game.current_player).any()
    seat = game.current_player.copy()
    game.step(rows, np.array([FOLD, FOLD]))
    assert game.settled(rows, seat).all()  # two still in: the hand goes on without them
    assert (game.chips[rows, seat] - game.chips_before[rows, seat] == -1).all()  # the ante
    bonus = BatchedBrag(1, BragConfig.from_dict({**HEADS_UP, "num_players": 3, "prial_bonus": 2}))
    bonus.new_session()
    first = bonus.current_player.copy()
    bonus.step(np.arange(1), np.array([FOLD]))
    assert not bonus.settled(np.arange(1), first).any()  # B20 may still ask it for the bonus


def test_a_coverer_is_not_settled():
    config = BragConfig.from_dict({**HEADS_UP, "num_players": 3, "starting_chips": 3})
    game = BatchedBrag(1, config, seed=0)
    game.new_session()
    row, a = np.arange(1), int(game.current_player[0])
    for action in (LOOK, STAY, FIRST_RAISE, STAY):  # a: look, stay; b: raise blind; c: stay
        game.step(row, np.array([action]))
    assert game.current_player[0] == a
    assert game.legal_mask(row)[0, config.cover_action] == 1  # B16: short
    game.step(row, np.array([config.cover_action]))
    assert not game.settled(row, np.array([a])).any()  # its hand is still compared (B16)


class _MirroredSessions(BatchedBrag):
    """Deals what a VsPoolEnv's brag_v1 dealt in a session: its first dealer, its deck and
    its later shuffles (B18), as ``shuffles`` recorded them: (whether it is a session's
    first deck, the cards in their new order)."""

    def __init__(self, scalar, shuffles):
        super().__init__(1, BragConfig.from_dict(scalar.env_config), seed=0)
        self.scalar, self.shuffles = scalar, shuffles

    def _draw_dealers(self, rows):
        return np.array([self.scalar.aec.game._first_dealer])

    def new_session(self, rows=None, decks=None, dealers=None):
        start = max(k for k, (first, _) in enumerate(self.shuffles) if first)
        deck = self.shuffles[start][1]
        del self.shuffles[: start + 1]  # the shuffles of the scalar's new session follow
        super().new_session(rows, decks=[deck])

    def _shuffle(self, rows):
        _, deck = self.shuffles.pop(0)
        assert sorted(deck) == sorted(self.deck_cards(0))
        self.deck[0, : len(deck)] = deck
        self.deck_head[0] = 0


@pytest.mark.parametrize("players,fold_every", [(2, 0), (3, 3)])
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_B17_sessions_same_run_as_vs_pool_env_on_the_same_deals(players, fold_every, monkeypatch):
    # VsPoolEnv's contract over sessions of several hands: rewards per hand, the button, the
    # kept hands (B19), sit-outs and the session's end, step for step on the same cards.
    from brag_env.brag.game import BragGame
    from brag_env.selfplay import VsPoolEnv

    shuffles = []
    shuffled_deck = BragGame._shuffled_deck

    def recording(game, cards):
        deck = shuffled_deck(game, cards)
        shuffles.append((game.session_over, deck.cards()))  # over: the next session's deck
        return deck

    monkeypatch.setattr(BragGame, "_shuffled_deck", recording)
    options = {**HEADS_UP, "num_players": players, "starting_chips": 16, "hands_per_session": 5}
    scalar = VsPoolEnv(game="brag", env_config=options, opponents=["brag:caller"], seed=0)
    venv = BatchedSelfPlayVecEnv("brag", options, 1, opponents=["brag:caller"], seed=0)
    venv.engine = _MirroredSessions(scalar, shuffles)
    assert play_lockstep(scalar, venv, 1500, fold_every=fold_every) > 50, "episodes"


def test_batched_kernels_that_cannot_load_are_a_one_line_error(monkeypatch):
    """vec_env: batched is asked for: no scalar fallback, one line (no traceback)."""
    error = r"^vec_env: batched: the batched Brag engine cannot load \(.*; or use vec_env: dummy$"
    with kernels_that_cannot_load(monkeypatch), pytest.raises(ValueError, match=error):
        make_engine("brag", {}, 2, 0)


class _DrawsSeatBySeat(BatchedSelfPlayVecEnv):
    """The opponents drawn as before the list-built draws: one numpy element at a time."""

    def _start_episodes(self, tables):
        p = self.num_players
        self._seat[tables] = (tables + self._episodes[tables]) % p
        self._episodes[tables] += 1
        for t in tables.tolist():
            for seat in range(p):
                if seat == self._seat[t]:
                    self._specs[t, seat] = -1
                    continue
                spec = self.pool.draw(self._rng)
                self._specs[t, seat] = sid = self._spec_id(spec)
                if spec not in self._agents:
                    self._agent(sid)
        drawn = self._specs[tables]
        for sid in np.unique(drawn[drawn >= 0]).tolist():
            k, seat = np.nonzero(drawn == sid)
            self._agent(sid).reset_rows(tables[k] * p + seat)
        self._pending[tables] = 0.0
        self.engine.new_session(tables)


@pytest.mark.parametrize("players", [2, 4])
def test_opponents_are_drawn_table_after_table_and_seat_after_seat(players):
    options = {**HEADS_UP, "num_players": players}
    a = BatchedSelfPlayVecEnv("brag", options, 16, opponents=OPPONENTS, seed=5)
    b = _DrawsSeatBySeat("brag", options, 16, opponents=OPPONENTS, seed=5)
    runs = [play_random(venv, 80, 0) for venv in (a, b)]
    assert np.array_equal(a._specs, b._specs) and a._spec_names == b._spec_names
    assert a._spec_ids == {spec: i for i, spec in enumerate(a._spec_names)}
    assert (a._specs[np.arange(16), a._seat] == -1).all()  # the learner's seat: no opponent
    assert len(set(a._spec_names)) == len(OPPONENTS)  # every baseline drawn, each id once
    for x, y in zip(runs[0][0], runs[1][0], strict=True):
        assert np.array_equal(x, y)
    assert runs[0][1] == runs[1][1]


def test_env_method_action_masks_every_table_or_the_ones_asked():
    venv = _venv()
    venv.reset()
    masks = venv.action_masks()
    every = venv.env_method("action_masks")
    some = venv.env_method("action_masks", indices=[5, 1])
    assert len(every) == 8 and np.array_equal(np.stack(every), masks)
    assert len(some) == 2 and np.array_equal(np.stack(some), masks[[5, 1]])
    assert masks.dtype == bool and masks.any(axis=1).all()
