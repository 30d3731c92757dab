"""The rule functions of ``brag_env.brag.rules`` one by one (B8, B11, B13-B18), at
their boundaries, and the batched kernel's use of them: it compiles these same functions and
keeps no copy of its own."""

import ast
import inspect
import itertools
import os

import numpy as np
import pytest

from brag_env.batched_input import frozen_constants
from brag_env.brag import batched_kernel as kernel
from brag_env.brag import rules
from brag_env.brag.rules import (
    ANTE_AFTER_PRIAL,
    ANTE_EVERY_HAND,
    ANTE_NONE,
    BLIND,
    FIRST_RAISE,
    FOLD,
    FOLDED,
    LOOK,
    OPEN,
    SEE,
    SHUFFLE_AFTER_PRIAL,
    SHUFFLE_EVERY_HAND,
    SHUFFLE_OR_CYCLE,
    SITTING_OUT,
    STAY,
    BragConfig,
)
from brag_env.cards import format_card, stacked_cards

RULE_NAMES = (
    "ante_due",
    "seat_threshold",
    "shuffle_due",
    "next_dealer",
    "deal_order",
    "next_to_act",
    "sit_out_short",
    "session_continues",
    "keep_offered",
    "pot_carries",
    "stay_price",
    "raised_stake",
    "see_price",
    "cover_price",
    "legal_bits",
    "see_winner",
    "collect_bonus",
    "settle_covers",
)
COVER = 7  # a cover action id (FIRST_RAISE + one raise + the two B19 choices)


def bits_of(*actions: int) -> int:
    return sum(1 << a for a in actions)


def mask(chips, stake=4, blind=False, active=3, opponent=-1, pot=100, mults=(2,), **kw):
    """``legal_bits`` with the default table's options unless given."""
    return rules.legal_bits(
        chips,
        stake,
        blind,
        active,
        opponent,
        pot,
        mults,
        kw.get("max_stake", 32),
        kw.get("pot_limit", False),
        kw.get("blind_may_see_open", True),
        kw.get("cover", -1),
    )


# ---------------------------------------------------------------------------- B8 antes
def test_B8_mode_ids_follow_the_config_names():
    assert [BragConfig(ante_mode=m).ante_mode_id for m in rules.ANTE_MODES] == [
        ANTE_EVERY_HAND,
        ANTE_AFTER_PRIAL,
        ANTE_NONE,
    ]
    assert [BragConfig(shuffle=m).shuffle_id for m in rules.SHUFFLE_MODES] == [
        SHUFFLE_AFTER_PRIAL,
        SHUFFLE_EVERY_HAND,
        SHUFFLE_OR_CYCLE,
    ]


@pytest.mark.parametrize("first,prial", list(itertools.product([False, True], repeat=2)))
def test_B8_ante_due_every_hand_and_none(first, prial):
    assert rules.ante_due(ANTE_EVERY_HAND, 3, first, prial) == 3
    assert rules.ante_due(ANTE_NONE, 3, first, prial) == 0


def test_B8_ante_due_after_prial_on_the_first_hand_and_after_a_prial_only():
    assert rules.ante_due(ANTE_AFTER_PRIAL, 5, True, False) == 5
    assert rules.ante_due(ANTE_AFTER_PRIAL, 5, False, True) == 5
    assert rules.ante_due(ANTE_AFTER_PRIAL, 5, False, False) == 0


def test_B8_B16_seat_threshold_is_the_ante_due_and_at_least_one_chip():
    assert rules.seat_threshold(ANTE_EVERY_HAND, 4, False) == 4
    assert rules.seat_threshold(ANTE_EVERY_HAND, 0, False) == 1  # no chips: sit out even ante-free
    assert rules.seat_threshold(ANTE_AFTER_PRIAL, 4, True) == 4
    assert rules.seat_threshold(ANTE_AFTER_PRIAL, 4, False) == 1
    assert rules.seat_threshold(ANTE_NONE, 4, True) == 1


# ------------------------------------------------------------------------- B18 shuffles
def test_B18_shuffle_due_per_mode():
    assert rules.shuffle_due(SHUFFLE_EVERY_HAND, False, 0, 52)
    assert not rules.shuffle_due(SHUFFLE_AFTER_PRIAL, False, 51, 52)
    assert rules.shuffle_due(SHUFFLE_AFTER_PRIAL, True, 0, 52)
    assert not rules.shuffle_due(SHUFFLE_AFTER_PRIAL, False, 52, 52)  # no cycle without the option
    assert rules.shuffle_due(SHUFFLE_OR_CYCLE, True, 0, 52)


def test_B18_cycle_shuffles_once_the_whole_deck_was_dealt():
    assert not rules.shuffle_due(SHUFFLE_OR_CYCLE, False, 51, 52)
    assert rules.shuffle_due(SHUFFLE_OR_CYCLE, False, 52, 52)
    assert rules.shuffle_due(SHUFFLE_OR_CYCLE, False, 20, 20)  # a short deck (deck_ranks=5)


def test_B18_shuffle_due_on_arrays_matches_the_scalar_rule():
    prial = np.array([False, True, False, False])
    dealt = np.array([0, 0, 51, 52])
    for mode in (SHUFFLE_AFTER_PRIAL, SHUFFLE_EVERY_HAND, SHUFFLE_OR_CYCLE):
        got = rules.shuffle_due(mode, prial, dealt, 52)
        want = [
            rules.shuffle_due(mode, bool(p), int(d), 52) for p, d in zip(prial, dealt, strict=True)
        ]
        assert got.dtype == bool and got.tolist() == want


# ------------------------------------------------------------------ B15 / B17 sessions
def test_B9_deal_order_starts_left_of_the_dealer_and_skips_seats_sitting_out():
    order = [9] * 4
    assert rules.deal_order(1, [False] * 4, 4, order) == 4 and order == [2, 3, 0, 1]
    # B16: seat 3 sits out; the tail past the seats dealt in is -1
    assert rules.deal_order(2, [False, False, False, True], 4, order) == 3
    assert order == [0, 1, 2, -1]
    row = np.full(3, 9, np.int64)  # an array row, as the kernel passes
    assert rules.deal_order(2, np.array([False, True, False]), 3, row) == 2
    assert row.tolist() == [0, 2, -1]


def test_B12_the_turn_passes_to_the_next_seat_still_in():
    assert rules.next_to_act(0, [BLIND, OPEN, BLIND], 3) == 1
    assert rules.next_to_act(2, [OPEN, OPEN, BLIND], 3) == 0  # wraps
    # past a fold and a seat sitting out (B16)
    assert rules.next_to_act(0, [OPEN, FOLDED, SITTING_OUT, BLIND], 4) == 3
    assert rules.next_to_act(3, np.array([FOLDED, BLIND, OPEN, OPEN]), 4) == 1
    assert rules.next_to_act(1, [FOLDED, OPEN, FOLDED], 3) == 1  # only the actor is in


def test_B19_a_blind_player_left_alone_may_keep_the_hand():
    offered = (True, True, False, False, True, False)  # option, follows, seen, covered, blind, out
    assert rules.keep_offered(*offered)
    for i, flipped in enumerate((False, False, True, True, False, True)):
        assert not rules.keep_offered(*offered[:i], flipped, *offered[i + 1 :]), i


def test_B16_a_seat_short_of_the_threshold_sits_out_for_good():
    out = [False, False, True, False]
    assert rules.sit_out_short(out, [4, 1, 9, 2], 2, 4) == 2  # seat 1 is short; 2 stays out
    assert out == [False, True, True, False]
    row = np.array([False, False, False])
    assert rules.sit_out_short(row, np.array([0, 5, 5]), 0, 3) == 3  # no ante: nobody short
    assert not row.any()


def test_B7_B16_the_button_moves_to_the_next_seat_still_playing():
    assert rules.next_dealer(0, [False] * 4, 4) == 1
    assert rules.next_dealer(3, [False] * 4, 4) == 0  # wraps
    assert rules.next_dealer(0, [False, True, True, False], 4) == 3  # past two that sit out
    assert rules.next_dealer(2, np.array([False, True, False, True]), 4) == 0
    assert rules.next_dealer(1, [True, False, True], 3) == 1  # the dealer alone is left
    assert rules.next_dealer(1, [True, True], 2) == -1


def test_B17_session_continues_while_hands_and_two_seats_are_left():
    assert rules.session_continues(0, 2, 2)
    assert not rules.session_continues(1, 2, 4)  # hand 2 of 2 was the last
    assert not rules.session_continues(0, 5, 1)  # one seat left to play
    assert not rules.session_continues(0, 1, 4)  # one-hand sessions


def test_B15_a_blind_lone_player_carries_only_under_blind_alone_carries():
    assert rules.pot_carries(True, False, True, True, False)
    assert not rules.pot_carries(True, False, False, False, False)  # open: it wins
    assert not rules.pot_carries(False, False, True, False, False)  # the default: it wins


def test_B15_an_unopened_pot_carries_only_under_unopened_pot_carries():
    assert rules.pot_carries(False, True, False, False, False)
    assert not rules.pot_carries(False, True, False, True, False)  # someone paid a stake


def test_B15_B16_a_covered_pot_never_carries():
    assert not rules.pot_carries(True, True, True, False, True)


# ---------------------------------------------------------------------------- prices
def test_B11_stay_price_is_the_stake_open_and_half_blind():
    assert rules.stay_price(8, False) == 8 and rules.stay_price(8, True) == 4
    assert rules.stay_price(2, True) == 1  # the smallest stake


def test_B13_raise_multiplies_the_stake():
    assert rules.raised_stake(4, 2) == 8 and rules.raised_stake(4, 3) == 12
    # a blind raiser pays half the new stake
    assert rules.stay_price(rules.raised_stake(4, 3), True) == 6


def test_B14_see_costs_twice_the_stay():
    assert rules.see_price(6, False) == 12 and rules.see_price(6, True) == 6


def test_B16_cover_puts_in_every_chip_left():
    assert rules.cover_price(7) == 7 and rules.cover_price(0) == 0


# ---------------------------------------------------------------------------- the mask
def test_B11_open_seat_may_fold_or_stay_and_never_look():
    assert mask(4, mults=()) == bits_of(FOLD, STAY)


def test_B10_blind_seat_may_also_look():
    assert mask(2, blind=True, mults=()) == bits_of(FOLD, STAY, LOOK)


def test_B16_short_of_the_stay_price_only_fold():
    assert mask(3) == bits_of(FOLD)  # open: 3 chips < S = 4
    assert mask(1, blind=True) == bits_of(FOLD)  # blind: 1 < S/2 = 2 (no look either)
    assert mask(2, blind=True, mults=()) == bits_of(FOLD, STAY, LOOK)  # exactly S/2: may stay


def test_B16_short_with_cover_pot_may_cover_and_a_blind_seat_look_first():
    assert mask(3, cover=COVER) == bits_of(FOLD, COVER)
    assert mask(1, blind=True, cover=COVER) == bits_of(FOLD, LOOK, COVER)
    assert mask(4, cover=COVER, mults=()) == bits_of(FOLD, STAY)  # can stay: no cover


def test_B14_see_heads_up_only_and_open_needs_two_stakes():
    assert not mask(8, active=3, opponent=OPEN) >> SEE & 1
    assert not mask(7, active=2, opponent=OPEN) >> SEE & 1  # 2S - 1 chips
    assert mask(8, active=2, opponent=OPEN) >> SEE & 1  # exactly 2S


def test_B14_nobody_sees_a_blind_seat_from_open():
    assert not mask(100, active=2, opponent=BLIND) >> SEE & 1


def test_B14_blind_sees_blind_and_open_only_when_allowed():
    assert mask(4, blind=True, active=2, opponent=BLIND, mults=()) >> SEE & 1
    assert not mask(3, blind=True, active=2, opponent=BLIND) >> SEE & 1  # S - 1 chips
    assert mask(4, blind=True, active=2, opponent=OPEN) >> SEE & 1
    shut = mask(4, blind=True, active=2, opponent=OPEN, blind_may_see_open=False)
    assert not shut >> SEE & 1
    assert mask(4, blind=True, active=2, opponent=BLIND, blind_may_see_open=False) >> SEE & 1


def test_B13_raise_ladder_up_to_max_stake():
    bits = mask(100, stake=8, mults=(2, 4, 8), max_stake=32)  # to 16 and 32, not 64
    assert [bits >> (FIRST_RAISE + i) & 1 for i in range(3)] == [1, 1, 0]


def test_B13_pot_limit_caps_the_new_stake_at_the_pot():
    assert mask(100, stake=4, pot=8, pot_limit=True) >> FIRST_RAISE & 1  # to 8 = the pot
    assert not mask(100, stake=4, pot=7, pot_limit=True) >> FIRST_RAISE & 1
    assert mask(100, stake=4, pot=7, pot_limit=False) >> FIRST_RAISE & 1


def test_B13_raise_only_when_affordable_at_the_new_stake():
    assert mask(8, stake=4) >> FIRST_RAISE & 1  # open: pays 8
    assert not mask(7, stake=4) >> FIRST_RAISE & 1
    assert mask(4, stake=4, blind=True) >> FIRST_RAISE & 1  # blind: pays 8 / 2
    assert not mask(3, stake=4, blind=True) >> FIRST_RAISE & 1


# ----------------------------------------------------------------------- settlement
def test_B14_the_seen_player_wins_ties():
    assert rules.see_winner(0, 1, 500, 400) == 0
    assert rules.see_winner(0, 1, 400, 500) == 1
    assert rules.see_winner(0, 1, 450, 450) == 1
    assert rules.see_winner(2, 0, (7, (-3,)), (7, (-5,))) == 2  # tuple keys (B22 discards)


def test_B20_bonus_from_every_other_seat_dealt_in_never_more_than_it_holds():
    chips = [10, 3, 50, 40]
    paid = [0, 0, 0, 0]
    rules.collect_bonus(5, 0, [True, True, True, False], chips, paid)  # seat 3 sits out
    assert chips == [18, 0, 45, 40] and paid == [8, -3, -5, 0]


def test_B20_bonus_on_a_numpy_row():
    chips = np.array([0, 7])
    paid = np.zeros(2, np.int64)
    rules.collect_bonus(4, 1, np.array([True, True]), chips, paid)
    assert chips.tolist() == [0, 7] and paid.tolist() == [0, 0]  # a broke seat pays nothing


def test_B16_settle_covers_from_the_last_closed_pot_outwards():
    """Seat 1 covered at a pot of 30, seat 2 at 60, the pot ends at 100 with seat 0 alone in.
    Side pot (40) to seat 0; the pot 30..60 to the better of seat 2 and seat 0 (seat 2); the
    first pot (30) to the better of seat 1 and that winner (seat 2 again)."""
    chips = [0, 0, 0, 0]
    winners = [-1, -1]
    keys = {0: 10, 1: 20, 2: 30}
    last = rules.settle_covers(100, {1: 30, 2: 60}, [1, 2], 2, 0, keys, chips, winners)
    assert chips == [40, 0, 60, 0] and winners == [2, 2] and last == 2


def test_B16_coverer_loses_ties_and_a_better_earlier_coverer_takes_its_pot():
    chips = np.zeros(3, np.int64)
    winners = np.full(2, -1)
    keys = np.array([30, 40, 30])  # seat 2 ties the lone winner: the pot stays with seat 0
    last = rules.settle_covers(
        100, np.array([0, 30, 60]), np.array([1, 2]), 2, 0, keys, chips, winners
    )
    assert chips.tolist() == [70, 30, 0] and winners.tolist() == [1, 0] and last == 1
    assert chips.sum() == 100


def test_B16_settle_covers_with_one_coverer_who_closed_the_whole_pot():
    chips = [5, 5]
    winners = [-1]
    assert rules.settle_covers(14, {1: 14}, [1], 1, 0, {0: 1, 1: 2}, chips, winners) == 1
    assert chips == [5, 19] and winners == [1]


# ------------------------------------------------------------- one source for every engine
@pytest.mark.parametrize("per", [3, 4, 7])
def test_B9_deal_hands_one_card_at_a_time_from_the_dealers_left(per):
    """B9 (B22's four and five cards, B24's seven): round the seats of the order, a card each,
    ``per`` rounds; a seat outside the order (B16) gets no cards."""
    order = [2, 0]  # seat 1 deals and sits out (B16): seat 2, on its left, is dealt first
    cards = list(range(100, 100 + per * 3 + 5))  # more cards than dealt: the rest stay
    hands = rules.deal_hands(cards, order, per, 3)
    assert hands[2] == cards[0 : per * 2 : 2] and hands[0] == cards[1 : per * 2 : 2]
    assert hands[1] == []
    full = rules.deal_hands(cards, [1, 2, 0], per, 3)
    assert [full[s][0] for s in (1, 2, 0)] == cards[:3] and all(len(h) == per for h in full)
    assert len({id(h) for h in full}) == 3  # one list per seat, never shared


def test_B17_B24_best_seats_lists_every_seat_on_top():
    assert rules.best_seats([3, 9, 1]) == (1,)
    assert rules.best_seats([9, 2, 9, 9]) == (0, 2, 3)  # a tie keeps them all, in seat order


@pytest.mark.parametrize("deck_ranks", [1, 4, 13])
def test_B1_a_short_deck_holds_the_highest_ranks_and_refuses_the_others(deck_ranks):
    deck = rules.deck_cards(deck_ranks)
    assert len(deck) == 4 * deck_ranks and deck[-1] == 51 and list(deck) == sorted(deck)
    rules.check_in_deck(deck, deck_ranks, "deck")  # every card of the deck passes
    if deck_ranks < 13:
        below = [deck[0] - 1, deck[0] - 2, 0, 1]
        with pytest.raises(ValueError) as err:
            rules.check_in_deck([deck[0], *below], deck_ranks, "hand 3")
        names = " ".join(format_card(c, symbols=False) for c in below[:3])
        assert str(err.value) == f"hand 3: {names} not in the {deck_ranks}-rank deck (deck_ranks)"


def test_B1_both_brag_configs_deal_from_the_shared_deck():
    from brag_env.brag7.rules import Brag7Config

    assert BragConfig(num_players=2, deck_ranks=4).deck_cards() == rules.deck_cards(4)
    assert Brag7Config(num_players=2, deck_ranks=4).deck_cards() == rules.deck_cards(4)


def test_B24_seven_card_brag_calls_the_shared_rule_functions():
    """Seven-card Brag's engine keeps no copy of the rules it shares with Brag (B1, B7-B9)."""
    from brag_env.brag7 import game as brag7_game
    from brag_env.brag7 import rules as brag7_rules

    shared = ("ante_due", "next_dealer", "deal_order", "deal_hands", "best_seats", "check_in_deck")
    for name in shared:
        assert getattr(brag7_game, name) is getattr(rules, name), name
    assert brag7_rules.deck_cards is rules.deck_cards
    assert brag7_game.stacked_cards is stacked_cards


def test_kernel_compiles_the_rule_functions_and_defines_none_of_its_own():
    compiled = [name for name in RULE_NAMES if name != "shuffle_due"]  # B18: decided in Python
    assert [f.__name__ for f in rules.COMPILED_RULES] == compiled
    assert kernel.rules is rules
    tree = ast.parse(inspect.getsource(kernel))
    defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    assert not defined & {*RULE_NAMES, "ante_threshold"}  # (the kernel's old name)
    called = {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and getattr(node.func.value, "id", None) == "rules"
    }
    assert called == set(compiled)


def test_scalar_engine_and_replay_call_the_rule_functions():
    from brag_env.brag import batched, game, replay

    for module, names in (
        (game, RULE_NAMES),
        (replay, ("ante_due", "shuffle_due")),
        (batched, ("ante_due", "shuffle_due")),
    ):
        for name in names:
            assert getattr(module, name) is getattr(rules, name), (module.__name__, name)


def test_kernel_cache_stamp_includes_rules_py_and_the_constants():
    """A change to rules.py, or to a constant the kernels read from another file, must
    invalidate the kernels' disk cache: Numba stamps a cache with the kernel's own file only,
    and compiles each global a kernel reads into the code as a constant."""
    info = os.stat(rules.__file__)
    from brag_env.batched_input import stamped_sources

    stamps = stamped_sources(kernel.step)
    if stamps is None:
        pytest.skip("this Numba keeps its cache stamp elsewhere")
    assert set(stamps) == {"rules.py", "batched_native.py"}  # both files the kernels compile in
    mtime, size, constants = stamps["rules.py"]
    assert (mtime, size) == (info.st_mtime, info.st_size)
    read = dict(constants)
    # imported from hands.py, observation.py, cards.py and rules.py (B10's seat statuses)
    for imported in ("PRIAL", "RUNNING_FLUSH", "HISTORY_LEN", "NUM_CARDS", "BLIND", "STAY"):
        assert read[imported] == getattr(kernel, imported)


def test_the_stamped_constants_follow_a_changed_value():
    """A constant given a new value gives a new stamp (the cache is then not reused); names
    that hold no number (functions, classes, arrays) are not part of it."""
    before = frozen_constants({"HISTORY_LEN": 16, "RAISES": (2, 4), "f": len})
    assert before == (("HISTORY_LEN", 16), ("RAISES", (2, 4)))
    assert frozen_constants({"HISTORY_LEN": 8, "RAISES": (2, 4)}) != before
    assert frozen_constants({"FLAG": True, "table": np.zeros(2)}) == (("FLAG", 1),)


@pytest.mark.slow
def test_compiled_rules_agree_with_the_python_ones():
    """The kernel's compiled rules on a grid of inputs (compiling takes a few seconds)."""
    import numba

    @numba.njit
    def compiled_mask(chips, stake, blind, active, opp, pot, mults, cap, limit, see_open, cover):
        return rules.legal_bits(
            chips, stake, blind, active, opp, pot, mults, cap, limit, see_open, cover
        )

    @numba.njit
    def compiled_session(mode, ante, first, prial):
        return rules.ante_due(mode, ante, first, prial), rules.seat_threshold(mode, ante, prial)

    mults = np.array([2, 3], np.int64)
    for chips, stake, blind, active, opp, pot, limit, see_open, cover in itertools.product(
        (0, 1, 3, 4, 7, 8, 24),
        (2, 4, 8),
        (False, True),
        (2, 3),
        (BLIND, OPEN, FOLDED),
        (6, 100),
        (False, True),
        (False, True),
        (-1, COVER),
    ):
        args = (chips, stake, blind, active, opp, pot, mults, 16, limit, see_open, cover)
        assert compiled_mask(*args) == rules.legal_bits(*args), args
    for mode, ante, first, prial in itertools.product(range(3), (0, 2), (False, True), (0, 1)):
        got = compiled_session(mode, ante, first, bool(prial))
        assert got == (
            rules.ante_due(mode, ante, first, prial),
            rules.seat_threshold(mode, ante, prial),
        )
