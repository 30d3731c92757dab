"""The seed's Put variants (P7 simultaneous answers, P8 optional exchange), the deck option's
errors, and put_v1 / put_v0 side by side. Scripted hands are in seeds/scenarios/put_*.json."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from brag_env import put_v0, put_v1
from brag_env.cards import parse_cards
from brag_env.put import (
    FOLD,
    PASS_NONE,
    PHASE_ANSWER,
    PHASE_PASS,
    PHASE_PLAY,
    PUT,
    SEE,
    PutConfig,
    PutGame,
    PutObserver,
    action_id,
    replay_hand,
)
from brag_env.put.render import render_table

NAMES = ["p0", "p1", "p2", "p3"]
THREE_DECK = (
    "3s 4h 7d 2s 5h 8d As 6h 9d"  # dealer 0: seat 1 holds 3 2 A, seat 2 4 5 6, seat 0 7 8 9
)
FOUR_DECK = (
    "3s Ks 3h Kh 4s 6s Ts Qs 8s 7s 9s 8h"  # dealer 3: seat 0 3 4 8, 1 K 6 7, 2 3 10 9, 3 K Q 8
)


def three_after_put(**options) -> PutGame:
    """Three players, seat 1 to lead has just called Put: seat 2 answers first."""
    game = PutGame(PutConfig(num_players=3, **options))
    game.new_session(np.random.default_rng(0), deck=THREE_DECK, dealer=0)
    game.apply(PUT)
    return game


def everything_seen(game: PutGame) -> list:
    """Each seat's observation, the public and the revealed render, the mask, the record so far."""
    observer = PutObserver(game.config)
    views = [observer.set_from(game, s).copy() for s in range(game.n)]
    return [
        *views,
        render_table(game, NAMES[: game.n]),
        render_table(game, NAMES[: game.n], reveal=True),
        game.legal_mask().tobytes(),
        game.current_player,
        list(game.record.actions),
        list(game.record.answers),
        game.history(),
    ]


# ---------------------------------------------------------------------------- P7
def test_P7_simultaneous_second_answer_sees_nothing_of_the_first():
    """No leak: whatever the first opponent answered, the second (and everyone) sees the same."""
    game = three_after_put()
    assert game.phase == PHASE_ANSWER and game.current_player == 2
    seen, folded = copy.deepcopy(game), copy.deepcopy(game)
    seen.apply(SEE)
    folded.apply(FOLD)
    assert seen.current_player == folded.current_player == 0, (
        "both opponents are asked, the caller's left first"
    )
    a, b = everything_seen(seen), everything_seen(folded)
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y, err_msg=f"item {i}")
        else:
            assert x == y, f"item {i}"
    # ... and it is what they saw before the first answer, but for whose turn it is
    observer = PutObserver(game.config)
    before = everything_seen(game)
    for s in range(3):
        then, now = observer.decode(before[s]), observer.decode(a[s])
        assert then.pop("acting") != now.pop("acting")
        assert then == now, s


@pytest.mark.parametrize(
    ("first", "second", "seen", "folded", "to_act"),
    [
        (SEE, SEE, True, [], 1),
        (SEE, FOLD, True, [0], 1),
        (FOLD, SEE, True, [2], 1),
    ],
)
def test_P7_simultaneous_answers_take_effect_together(first, second, seen, folded, to_act):
    game = three_after_put()
    game.apply(first)
    assert game.put_seen is False and game.put_folded == [] and game.record.answers == []
    game.apply(second)
    assert game.phase == PHASE_PLAY and game.current_player == to_act  # the caller plays its card
    assert game.put_seen is seen and game.put_folded == folded
    assert game.record.answers == [(2, first), (0, second)]


def test_P7_simultaneous_both_fold_scores_1_to_the_caller():
    game = three_after_put()
    game.apply(FOLD)
    assert not game.records
    game.apply(FOLD)
    assert game.records[0].result == ("fold", 1, 1) and game.scores == [0, 1, 0]


def test_P7_in_turn_first_see_ends_the_answers_and_a_fold_is_public():
    """The original rules (put_answers="in_turn"): the second opponent is asked only after the
    first folded, and sees that fold."""
    game = three_after_put(put_answers="in_turn")
    game.apply(SEE)
    assert game.phase == PHASE_PLAY and game.current_player == 1
    game = three_after_put(put_answers="in_turn")
    game.apply(FOLD)
    assert game.current_player == 0 and game.put_folded == [2]
    view = PutObserver(game.config).decode(PutObserver(game.config).set_from(game, 0))
    assert view["put"]["folded"] == [2]


@pytest.mark.parametrize("num_players", [2, 4])
def test_P7_put_answers_changes_nothing_but_three_player_play(num_players):
    """Only three players have two answers; the option is inert otherwise."""
    for answers in ("simultaneous", "in_turn"):
        game = PutGame(PutConfig(num_players=num_players, put_answers=answers))
        game.new_session(np.random.default_rng(1), dealer=0)
        while game.phase == PHASE_PASS:
            game.apply(game.legal_actions()[0])
        game.apply(PUT)
        game.apply(SEE)
        assert game.phase == PHASE_PLAY and game.current_player == game.put_caller


# ---------------------------------------------------------------------------- P8
def four(**options) -> PutGame:
    game = PutGame(PutConfig(num_players=4, **options))
    game.new_session(np.random.default_rng(0), deck=FOUR_DECK, dealer=3)
    return game


def test_P8_pass_none_is_legal_only_in_the_pass_and_only_when_optional():
    game = four()
    assert game.legal_mask().shape == (30,) and game.legal_mask()[PASS_NONE] == 1
    always = four(partner_exchange="always")
    assert always.legal_mask().shape == (29,)
    with pytest.raises(ValueError, match=r"pass_none|not an action id"):
        always.apply(PASS_NONE)
    for _ in range(4):
        game.apply(PASS_NONE)
    assert game.phase == PHASE_PLAY and game.legal_mask()[PASS_NONE] == 0
    with pytest.raises(ValueError, match="illegal action pass_none"):
        game.apply(PASS_NONE)


def test_P8_nobody_passes_every_hand_stays_as_dealt():
    game = four()
    dealt = [sorted(h) for h in game.hands]
    for _ in range(4):
        game.apply(PASS_NONE)
    assert [sorted(h) for h in game.hands] == dealt
    assert game.received == [-1] * 4 and game.exchanged == [False, False]
    assert game.current_player == 0, "after the pass, play starts on the dealer's left (P8)"


@pytest.mark.parametrize(
    ("passes", "hands", "exchanged"),
    [
        # seat 2 passes nothing: seat 0 keeps its 4; seats 1 and 3 swap
        (
            ("pass_4", "pass_6", "pass_none", "pass_8"),
            ("3s 4s 8s", "Ks 7s 8h", "3h Ts 9s", "Kh Qs 6s"),
            [False, True],
        ),
        # everyone chooses: as with the original rules
        (
            ("pass_4", "pass_6", "pass_10", "pass_8"),
            ("3s 8s Ts", "Ks 7s 8h", "3h 9s 4s", "Kh Qs 6s"),
            [True, True],
        ),
    ],
)
def test_P8_partners_swap_only_when_both_chose_a_card(passes, hands, exchanged):
    game = four()
    before = [sorted(h) for h in game.hands]
    for name in passes[:3]:
        game.apply(action_id(name))
        assert [sorted(h) for h in game.hands] == before, "nothing moves before all four chose"
    game.apply(action_id(passes[3]))
    assert [sorted(h) for h in game.hands] == [sorted(parse_cards(h)) for h in hands]
    assert game.exchanged == exchanged


def test_P8_optional_pass_privacy():
    """During the pass nobody learns another's choice; afterwards a player who passed nothing
    cannot tell whether the partner had chosen a card, and the other side sees only that a
    side swapped (the exchanged view), never which cards."""
    observer = PutObserver(PutConfig(num_players=4))

    def views_after(names):
        game = four()
        out = []
        for name in names:
            game.apply(action_id(name))
            out.append([observer.set_from(game, s).copy() for s in range(4)])
        return game, out

    _game_a, a = views_after(("pass_4", "pass_none", "pass_none", "pass_8"))
    _game_b, b = views_after(("pass_none", "pass_none", "pass_none", "pass_8"))
    _game_c, c = views_after(("pass_8", "pass_none", "pass_none", "pass_8"))
    # seat 2 (seat 0's partner, who passed nothing) sees the same at every step
    for step in range(4):
        np.testing.assert_array_equal(a[step][2], b[step][2])
        np.testing.assert_array_equal(a[step][2], c[step][2])
        for s in (1, 3):  # the opponents too
            np.testing.assert_array_equal(a[step][s], b[step][s])
    decoded = observer.decode(a[3][0])
    assert decoded["passed"] == "4" and decoded["received"] is None
    assert decoded["exchanged"] == [False, False]
    # a swap by one side is public, the cards stay private
    _game_d, d = views_after(("pass_4", "pass_6", "pass_10", "pass_8"))
    _game_e, e = views_after(("pass_8", "pass_7", "pass_9", "pass_Q"))
    for s in range(4):
        view_d, view_e = observer.decode(d[3][s]), observer.decode(e[3][s])
        assert view_d["exchanged"] == view_e["exchanged"] == [True, True]


def test_P8_always_has_no_exchanged_view_and_the_v0_size():
    assert PutObserver(PutConfig(num_players=4, partner_exchange="always")).size == 438
    assert PutObserver(PutConfig(num_players=4)).size == 440


# ------------------------------------------------------------------ histories
def test_a_history_without_the_new_options_replays_under_the_original_rules():
    """Histories written before put_answers/partner_exchange existed were played in turn."""
    game = three_after_put(put_answers="in_turn")
    for name in ("see", "play_3", "play_4", "play_7", "play_2", "play_5", "play_8"):
        game.apply(action_id(name))
    for name in ("play_A", "play_6", "play_9"):
        game.apply(action_id(name))
    record = game.history()[0]
    old = json.loads(json.dumps(record))
    del old["config"]["put_answers"], old["config"]["partner_exchange"]
    again = replay_hand(old)
    assert again["put"] == record["put"] and again["result"] == record["result"]
    with pytest.raises(ValueError, match="put_answers"):
        replay_hand(record, PutConfig(num_players=3))


# ------------------------------------------------------------- deck option
@pytest.mark.parametrize("deck", [42, 4.5, b"As", object()])
def test_stacked_deck_that_is_not_cards_is_a_one_line_value_error(deck):
    for make in (put_v1.raw_env, put_v0.raw_env):
        with pytest.raises(ValueError, match=r"deck must be card text") as info:
            make().reset(seed=0, options={"deck": deck})
        assert "\n" not in str(info.value)


def test_stacked_deck_holds_the_first_hand_only():
    env = put_v1.raw_env(num_players=3)
    with pytest.raises(ValueError, match="at most 9 cards"):
        env.reset(seed=0, options={"deck": THREE_DECK + " Kc"})
    env.reset(seed=0, options={"deck": [c for c in parse_cards(THREE_DECK)], "dealer": 0})
    assert sorted(env.unwrapped.game.hands[1]) == sorted(parse_cards("3s 2s As"))


# ------------------------------------------------------------- put_v1 / put_v0
@pytest.mark.parametrize("num_players", [3, 4])
def test_put_v1_api_test(num_players):
    with pytest.warns(UserWarning):
        api_test(put_v1.env(num_players=num_players), num_cycles=300)


@pytest.mark.parametrize("num_players", [3, 4])
def test_put_v1_seed_test(num_players):
    seed_test(lambda: put_v1.env(num_players=num_players), num_cycles=300)


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 3, "put_answers": "in_turn"},
        {"num_players": 4, "partner_exchange": "always"},
    ],
)
def test_put_v1_with_the_original_options_passes_api_and_seed_tests(options):
    with pytest.warns(UserWarning):
        api_test(put_v1.env(**options), num_cycles=200)
    seed_test(lambda: put_v1.env(**options), num_cycles=200)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_put_v0_api_and_seed_tests(num_players):
    with pytest.warns(UserWarning):
        api_test(put_v0.env(num_players=num_players), num_cycles=200)
    seed_test(lambda: put_v0.env(num_players=num_players), num_cycles=200)


def test_put_v0_is_the_original_rules_and_spaces():
    env = put_v0.raw_env(num_players=4)
    assert env.metadata["name"] == "put_v0" and env.action_space("player_0").n == 29
    assert env.config.put_answers == "in_turn" and env.config.partner_exchange == "always"
    assert env.observation_space("player_0")["observation"].shape == (438,)
    assert put_v1.raw_env(num_players=4).action_space("player_0").n == 30
    for options in ({"put_answers": "simultaneous"}, {"config": PutConfig(num_players=3)}):
        with pytest.raises(ValueError, match="put_v0 plays the original rules only"):
            put_v0.raw_env(**options)
    assert put_v0.raw_env(config=PutConfig(put_answers="in_turn", partner_exchange="always"))


def test_put_v1_registered():
    import pettingzoo

    env = pettingzoo.make("aec", "brag_env/put_v1", num_players=3)
    assert isinstance(env.unwrapped, put_v1.raw_env) and env.unwrapped.config.num_players == 3
    assert env.unwrapped.metadata["name"] == "put_v1"
