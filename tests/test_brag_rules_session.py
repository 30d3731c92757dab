"""Brag across hands, rule by rule (B16-B21): short stacks, sessions, the no-shuffle deck,
keeping a blind hand, the prial bonus and lowball. Stacked decks and scripted actions."""

from collections import deque

import numpy as np
import pytest

from brag_env.brag.game import BLIND, SITTING_OUT, BragGame
from brag_env.brag.rules import FOLD, BragConfig
from brag_env.brag.scenario import apply_names, legal_names, stack_deck
from brag_env.cards import NUM_CARDS, format_cards, parse_cards
from tests.stacked_brag import fold_out, start

STRONG = "As Ad 5c"  # a pair of aces
WEAK = "2h 5d 9c"  # nine high
OTHER = "Jc 8h 3d"  # jack high


def all_cards(game: BragGame) -> list[int]:
    cards = game.deck_cards + [c for h in game.hands for c in h] + (game.kept_hand or [])
    return sorted(cards)


# ----------------------------------------------------------------------------- B16
def test_b16_original_ruling_must_fold_when_the_stake_is_out_of_reach():
    game = start([STRONG, WEAK], allow_blind=False, starting_chips=3, min_stake=4, cover_pot=False)
    assert game.chips == [2, 2]
    assert legal_names(game) == ["fold"]


def test_b16_original_ruling_blind_short_stack_may_stay_blind_or_look_then_must_fold():
    game = start([STRONG, WEAK, OTHER], starting_chips=4, min_stake=4, cover_pot=False)
    assert game.chips == [3, 3, 3]  # S/2 = 2 <= 3 < S = 4
    assert legal_names(game) == ["fold", "stay", "look"]
    apply_names(game, ["look"])
    assert legal_names(game) == ["fold"]


def test_b16_original_ruling_blind_below_half_the_stake_must_fold():
    game = start([STRONG, WEAK, OTHER], starting_chips=2, min_stake=4, cover_pot=False)
    assert game.chips == [1, 1, 1] and legal_names(game) == ["fold"]


def test_b16_broke_player_sits_out_and_button_and_turn_skip_it():
    game = BragGame(
        BragConfig(
            num_players=3,
            starting_chips=2,
            min_stake=2,
            allow_blind=False,
            hands_per_session=5,
            cover_pot=False,
        )
    )
    game.new_session(np.random.default_rng(3), dealer=0)
    # Hand 0: after the ante nobody can stay (S = 2 > 1 chip): seats 1 and 2 must fold.
    assert legal_names(game) == ["fold"]
    apply_names(game, ["fold", "fold"])
    assert game.hand_results[0].winner == 0 and game.chips == [4 - 1, 1 - 1, 1 - 1]
    # Hand 1 (dealer 1): seats 1 and 2 could pay the ante and play; seat 2 now has 0 chips.
    assert game.hand_number == 1 and game.dealer == 1 and game.current_player == 2
    assert legal_names(game) == ["fold"]
    apply_names(game, ["fold", "fold"])  # seat 2 must fold, seat 0 folds: seat 1 wins 3
    assert game.hand_results[1].chips == [3, 3, 0]
    # Hand 2: seat 2 sits out for good; the button skips it (1 -> 0) and so does the turn.
    assert game.sitting_out == [2]
    assert game.dealer == 0 and game.status[2] == SITTING_OUT and game.hands[2] == []
    assert game.contributed == [1, 1, 0] and game.pot == 2
    assert game.current_player == 1
    apply_names(game, ["stay"])
    assert game.current_player == 0
    fold_out(game)
    assert game.dealer == 1 and game.current_player == 0  # seat 2 skipped again
    hist = game.history()
    assert hist[2]["sitting_out"] == [2] and hist[2]["deal_order"] == [1, 0]
    assert hist[2]["cards"][2] is None


def test_b16_no_chips_sits_out_even_without_antes():
    game = BragGame(
        BragConfig(
            num_players=3,
            ante_mode="none",
            allow_blind=False,
            starting_chips=2,
            hands_per_session=3,
        )
    )
    game.new_session(np.random.default_rng(0), dealer=0)
    apply_names(game, ["stay", "stay", "fold", "fold"])  # seat 1 is left with nothing
    assert game.hand_results[0].chips == [2, 0, 4]
    assert game.sitting_out == [1] and game.status[1] == SITTING_OUT
    assert game.dealer == 2 and game.current_player == 0


# ----------------------------------------------------------------------------- B17
def test_b17_stacks_carry_over_for_hands_per_session():
    game = BragGame(BragConfig(num_players=3, hands_per_session=3, blind_keep_hand=False))
    game.new_session(np.random.default_rng(5))
    for hand in range(3):
        assert game.hand_number == hand and not game.session_over
        fold_out(game)
    assert game.session_over and game.current_player == -1 and game.hand_number == 2
    before = [200, 200, 200]
    for result in game.hand_results:
        assert [b + d for b, d in zip(before, result.deltas, strict=True)] == result.chips
        before = result.chips
    assert game.chips == before and sum(game.chips) == 600
    with pytest.raises(ValueError, match="session is over"):
        game.apply(FOLD)


def test_b17_session_ends_early_when_one_player_can_still_pay():
    game = start(
        [STRONG, WEAK],
        allow_blind=False,
        starting_chips=3,
        min_stake=2,
        hands_per_session=10,
        cover_pot=False,
    )
    apply_names(game, ["stay", "stay"])  # both now have 0 chips; nobody may see for 4
    assert legal_names(game) == ["fold"]
    apply_names(game, ["fold"])
    assert game.session_over and len(game.hand_results) == 1
    assert game.chips == [6, 0] and game.session_winners == [0]


def test_b17_session_winners_share_a_tie():
    game = BragGame(BragConfig(num_players=2, hands_per_session=2, blind_keep_hand=False))
    game.new_session(np.random.default_rng(0), dealer=0)
    fold_out(game)  # seat 1 folds: seat 0 +1
    fold_out(game)  # seat 0 folds: seat 1 +1
    assert game.chips == [200, 200] and game.session_winners == [0, 1]


# ----------------------------------------------------------------------------- B18
def test_b18_used_cards_go_to_the_bottom_in_deal_order():
    full = format_cards(np.random.default_rng(11).permutation(NUM_CARDS).tolist(), symbols=False)
    game = BragGame(BragConfig(num_players=4, hands_per_session=7, blind_keep_hand=False))
    game.new_session(np.random.default_rng(0), deck=full, dealer=0)
    model = deque(parse_cards(full))  # the rule itself: deal from the top, return to the bottom
    for _ in range(7):
        dealt = [model.popleft() for _ in range(12)]
        order = [(game.dealer + i) % 4 for i in range(1, 5)]
        for j, seat in enumerate(order):  # B9
            assert game.hands[seat] == [dealt[j], dealt[j + 4], dealt[j + 8]]
        assert game.deck_cards == list(model)
        fold_out(game)
        model.extend(dealt)
    hist = game.history()
    assert [h["shuffled"] for h in hist] == [False] * 7
    assert hist[0]["stacked"] and not hist[1]["stacked"]


def test_b18_shuffle_only_once_a_prial_was_revealed():
    first = [STRONG, WEAK]
    second = ["Kh Kd Ks", "2c 6c 9d"]
    game = start(first, dealer=0, rest=stack_deck(second, 1), hands_per_session=4)
    (r0,) = apply_names(game, ["stay", "see"])  # blind sees blind: no prial shown
    assert r0.by_see and r0.winner == 0
    assert sorted(game.shown_cards) == sorted(parse_cards(STRONG) + parse_cards(WEAK))
    # No shuffle: hand 1 comes off the stacked deck, and the shown cards are still known.
    assert game.hands == [parse_cards(h) for h in second]
    deck_before = game.deck_cards
    (r1,) = apply_names(game, ["stay", "see"])  # the prial is shown
    assert r1.winner == 0 and r1.shown[0] == parse_cards("Kh Kd Ks")
    # Hand 2 follows a shown prial: shuffled, and the shown cards are forgotten.
    hist = game.history()
    assert [h["shuffled"] for h in hist] == [False, False]
    assert game.shown_cards == []
    returned = deck_before + [c for r in range(3) for c in (r1.shown[0][r], r1.shown[1][r])]
    undealt = [c for c in returned if c not in game.hands[0] + game.hands[1]]
    assert sorted(game.deck_cards) == sorted(undealt)
    assert game.deck_cards != returned[6:]  # not what an unshuffled deck would hold
    assert all_cards(game) == list(range(NUM_CARDS))
    fold_out(game)
    assert game.history()[2]["shuffled"] is True


def test_previous_result_is_the_hand_before_the_one_on_the_table():
    """B17/B18: the last hand's result stays readable during the next one, even when its shown
    prial made the deck shuffle and ``shown_cards`` forget it."""
    game = start(
        [STRONG, WEAK], dealer=0, rest=stack_deck(["Kh Kd Ks", "2c 6c 9d"], 1), hands_per_session=3
    )
    assert game.previous_result is None
    (r0,) = apply_names(game, ["stay", "see"])
    assert game.hand_number == 1 and game.previous_result is r0
    (r1,) = apply_names(game, ["stay", "see"])  # the prial of kings is shown: shuffle
    assert game.shown_cards == [] and game.previous_result is r1
    assert r1.shown[0] == parse_cards("Kh Kd Ks")
    fold_out(game)
    assert game.session_over and game.previous_result is r1  # the last hand is still on the table
    game.new_session(np.random.default_rng(1))
    assert game.previous_result is None


def test_b18_every_hand_shuffle_option_and_seeded_shuffles():
    def session(seed):
        game = BragGame(BragConfig(num_players=3, hands_per_session=3, shuffle="every_hand"))
        game.new_session(np.random.default_rng(seed))
        while not game.session_over:
            fold_out(game)
        return game.history()

    hist = session(7)
    assert [h["shuffled"] for h in hist] == [True, True, True]
    assert session(7) == hist
    assert session(8) != hist


# ----------------------------------------------------------------------------- B19
HAND0 = [OTHER, STRONG, WEAK]  # seat 1 holds the pair of aces
HAND1 = ["Kh Qd 4c", "Qs Jh 6d", "8s 8c 2d"]  # dealt by seat 1


def blind_win_for_seat_1(**options) -> BragGame:
    game = start(HAND0, dealer=0, rest=stack_deck(HAND1, 1), hands_per_session=3, **options)
    (result,) = apply_names(game, ["stay", "fold", "fold"])  # seat 1 stays blind, wins by folds
    assert result.winner == 1 and not result.by_see
    return game


@pytest.mark.parametrize("choice", ["keep_old_hand", "take_new_hand"])
def test_b19_blind_winner_chooses_between_old_and_new_hand(choice):
    game = blind_win_for_seat_1()
    assert game.hand_results[0].keep_offer
    # Hand 1 is dealt as usual (seat 1 gets a new hand too); seat 1 chooses before any betting.
    assert game.hand_number == 1 and game.dealer == 1
    assert game.choosing and game.current_player == 1
    assert legal_names(game) == ["keep_old_hand", "take_new_hand"]
    assert game.kept_hand == parse_cards(STRONG)
    assert game.hands == [parse_cards(h) for h in HAND1]
    assert game.status[1] == BLIND and game.pot == 3
    assert all_cards(game) == list(range(NUM_CARDS))
    # The old hand stayed out of the deck: the rest of hand 0 went to the bottom in deal order.
    hand0_back = [parse_cards(HAND0[s])[r] for r in range(3) for s in (2, 0)]
    assert game.deck_cards[-6:] == hand0_back
    apply_names(game, [choice])
    old, new = parse_cards(STRONG), parse_cards(HAND1[1])
    assert game.hands[1] == (old if choice == "keep_old_hand" else new)
    assert game.deck_cards[-3:] == (new if choice == "keep_old_hand" else old)
    assert game.kept_hand is None and not game.choosing
    assert game.status[1] == BLIND  # still blind, never looked
    assert game.current_player == 2  # then the seat after the dealer bets first
    assert legal_names(game) == ["fold", "stay", "look", "raise_2x"]
    assert game.betting == [(1, game.config.action_names.index(choice), 0)]
    assert all_cards(game) == list(range(NUM_CARDS))
    fold_out(game)
    keep = game.history()[1]["keep"]
    assert keep == {"seat": 1, "old_hand": "As Ad 5c", "new_hand": "Qs Jh 6d", "choice": choice}


def test_b19_kept_hand_is_played():
    game = blind_win_for_seat_1(allow_blind=True)
    # Seat 1 keeps the aces; seat 2 (eights) looks and stays, seat 0 folds, seat 1 stays blind.
    apply_names(game, ["keep_old_hand", "look", "stay", "fold", "stay"])
    # Seat 2 may not see a blind player, so it raises; seat 1 (blind) sees it for S.
    apply_names(game, ["raise_2x"])
    (result,) = apply_names(game, ["see"])
    assert result.shown[1] == parse_cards(STRONG) and result.winner == 1


def test_b19_keeper_who_acts_first_chooses_then_bets():
    game = start([WEAK, STRONG], dealer=0, hands_per_session=2)
    apply_names(game, ["fold"])  # seat 1 folds: seat 0 wins blind
    assert game.dealer == 1 and game.current_player == 0 and game.choosing
    apply_names(game, ["take_new_hand"])
    assert game.current_player == 0 and not game.choosing
    assert legal_names(game) == ["fold", "stay", "look", "see", "raise_2x"]


@pytest.mark.parametrize(
    ("options", "actions"),
    [
        ({}, ["look", "stay", "fold", "fold"]),  # the winner looked
        ({"hands_per_session": 1}, ["stay", "fold", "fold"]),  # no next hand
        ({"blind_keep_hand": False}, ["stay", "fold", "fold"]),  # option off
        ({}, ["stay", "fold", "see"]),  # won at a see
    ],
)
def test_b19_no_offer(options, actions):
    options = {"hands_per_session": 3} | options
    game = start(HAND0, dealer=0, rest=stack_deck(HAND1, 1), **options)
    (result,) = apply_names(game, actions)
    assert not result.keep_offer and not game.choosing and game.kept_hand is None
    assert game.session_over or game.current_player == 2


def test_b19_no_offer_on_the_last_hand():
    game = start([WEAK, STRONG], dealer=0, hands_per_session=2, blind_keep_hand=True)
    fold_out(game)  # seat 1 folds: seat 0 wins hand 0 blind, an offer is made
    assert game.hand_results[0].keep_offer
    apply_names(game, ["take_new_hand", "stay", "fold"])  # hand 1: seat 0 wins blind again
    assert game.session_over and not game.hand_results[1].keep_offer


# ----------------------------------------------------------------------------- B20
@pytest.mark.parametrize(
    ("winning_hand", "bonus_due"),
    [("Kh Kd Ks", True), ("5h 6h 7h", True), ("2h 6h 9h", False), ("Qh Qs 5d", False)],
)
def test_b20_prial_bonus_from_every_other_player(winning_hand, bonus_due):
    game = start([OTHER, winning_hand, "2c 4d 8s"], prial_bonus=5)
    (result,) = apply_names(game, ["stay", "stay", "fold", "see"])  # seat 1 sees blind seat 2
    assert result.winner == 1 and result.pot == 3 + 1 + 1 + 2
    if bonus_due:
        assert result.bonus == [-5, 10, -5]  # the folded seat 0 pays too
        assert result.deltas == [-1 - 5, 7 - 4 + 10, -2 - 5]
    else:
        assert result.bonus == [] and result.deltas == [-1, 3, -2]
    assert sum(result.deltas) == 0


def test_b20_no_bonus_when_won_by_folds():
    game = start([OTHER, "Kh Kd Ks", "2c 4d 8s"], prial_bonus=5)
    (result,) = apply_names(game, ["stay", "fold", "fold"])
    assert result.bonus == [] and result.deltas == [-1, 2, -1]


def test_b20_bonus_never_more_than_the_payer_holds():
    game = start(["2c 4d 8s", "Kh Kd Ks"], prial_bonus=10, starting_chips=5)
    (result,) = apply_names(game, ["stay", "see"])  # seat 0 (2 chips left) sees and loses
    assert result.winner == 1 and result.bonus == [-2, 2]
    assert game.chips == [0, 10] and result.deltas == [-5, 5]


# ----------------------------------------------------------------------------- B21
def test_b21_lowball_worst_standard_hand_wins():
    game = start([STRONG, WEAK], lowball=True)
    (result,) = apply_names(game, ["stay", "see"])
    assert result.winner == 1  # nine high beats a pair of aces
    prial = start(["3h 3d 3s", "2h 4d 7c"], lowball=True)
    (result,) = apply_names(prial, ["stay", "see"])
    assert result.winner == 1  # the best standard hand is the worst low hand


def test_b21_lowball_tie_still_goes_to_the_player_seen():
    game = start(["As Kd 7c", "Ah Kc 7d"], lowball=True)
    (result,) = apply_names(game, ["stay", "see"])
    assert result.seer == 0 and result.winner == 1
