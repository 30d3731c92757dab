"""One Brag hand, rule by rule (B7-B15), with stacked decks and scripted actions.

Seats are 0..n-1; "left of the dealer" is the next seat up. Stakes are in open units (B11).
"""

from collections import Counter

import numpy as np
import pytest

from brag_env.brag.game import BLIND, FOLDED, OPEN, BragGame
from brag_env.brag.rules import FOLD, LOOK, SEE, STAY, BragConfig
from brag_env.brag.scenario import apply_names, legal_names, stack_deck
from brag_env.cards import parse_cards
from tests.stacked_brag import fold_out, start

STRONG = "As Ad 5c"  # a pair of aces
WEAK = "2h 5d 9c"  # nine high


def costs(game: BragGame) -> list[int]:
    return [cost for _, _, cost in game.betting]


# ----------------------------------------------------------------------------- B7
class PackRng:
    """Stands in for the generator in the cut: each shuffle puts the next given cards on top."""

    def __init__(self, *packs: str) -> None:
        self.packs = [parse_cards(p) for p in packs]

    def shuffle(self, cards: list[int]) -> None:
        top = self.packs.pop(0)
        cards[:] = top + [c for c in cards if c not in top]


def test_b7_cut_highest_card_deals():
    game = BragGame(BragConfig(num_players=4))
    assert game._cut(PackRng("2s Kd 5h Ac")) == 3
    assert game._cut(PackRng("Qs 3d Jh 4c")) == 0


def test_b7_cut_ties_on_rank_cut_again_suits_do_not_count():
    game = BragGame(BragConfig(num_players=4))
    # Seats 1 and 3 both cut a king (suits never rank, B6): they alone cut again, seat 3 wins.
    assert game._cut(PackRng("2s Kd 5h Kc", "9s Jh")) == 3
    # Seats 0, 1, 3 tie on aces; then seats 0 and 3 on sevens; then seat 3 cuts higher.
    assert game._cut(PackRng("Ah Ad 4c Ac", "7s 3h 7d", "5s 6s")) == 3


def test_b7_cut_is_seeded_and_fair():
    game = BragGame(BragConfig(num_players=4))
    dealers = []
    for seed in range(400):
        game.new_session(np.random.default_rng(seed))
        dealers.append(game.dealer)
        if seed < 20:
            again = BragGame(BragConfig(num_players=4))
            again.new_session(np.random.default_rng(seed))
            assert again.dealer == game.dealer and again.hands == game.hands
    counts = Counter(dealers)
    assert set(counts) == {0, 1, 2, 3} and min(counts.values()) > 70


def test_b7_button_moves_one_seat_per_hand():
    game = BragGame(BragConfig(num_players=4, hands_per_session=6))
    game.new_session(np.random.default_rng(1), dealer=2)
    dealers = []
    while not game.session_over:
        dealers.append(game.dealer)
        assert game.current_player == (game.dealer + 1) % 4 or game.choosing
        fold_out(game)
    assert dealers == [2, 3, 0, 1, 2, 3]
    assert [h["dealer"] for h in game.history()] == dealers


# ----------------------------------------------------------------------------- B8
def test_b8_every_hand_ante():
    game = start(["7h 7d Kc", "Qh 9d 3c", "Jc 8h 2d", "4s 6s 9s"], ante=5, min_stake=10)
    assert game.pot == 20 and game.contributed == [5, 5, 5, 5] and game.chips == [195] * 4


def test_b8_no_ante():
    game = start(["7h 7d Kc", "Qh 9d 3c", "Jc 8h 2d"], ante=5, ante_mode="none")
    assert game.pot == 0 and game.contributed == [0, 0, 0] and game.chips == [200] * 3


def test_b8_ante_after_prial():
    hand0 = stack_deck([WEAK, STRONG], dealer=0)
    hand1 = stack_deck(["Kh Kd Ks", "2c 6c 9d"], dealer=1)
    game = start(
        [WEAK, STRONG],
        dealer=0,
        rest=hand1.removeprefix(hand0),
        ante=1,
        ante_mode="after_prial",
        hands_per_session=4,
        blind_keep_hand=False,
    )
    # Hand 0, the first of the session, has an ante.
    assert game.pot == 2 and game.chips == [199, 199]
    apply_names(game, ["fold"])  # seat 1 folds: seat 0 wins by folds, no prial shown
    # Hand 1: no ante.
    assert game.hand_number == 1 and game.pot == 0 and game.chips == [201, 199]
    assert game.hands[0] == parse_cards("Kh Kd Ks")
    # Seat 0 stays open, seat 1 sees for 2S: the prial is shown.
    apply_names(game, ["look", "stay", "look", "see"])
    # Hand 2 follows a shown prial: an ante again.
    assert game.hand_number == 2 and game.pot == 2
    fold_out(game)
    assert game.hand_number == 3 and game.pot == 0  # no see in hand 2: no ante
    assert [h["antes"] for h in game.history()] == [[1, 1], [0, 0], [1, 1]]


# ----------------------------------------------------------------------------- B9
def test_b9_deal_one_card_at_a_time_from_left_of_dealer():
    game = BragGame(BragConfig(num_players=4))
    game.new_session(np.random.default_rng(0), deck="2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks", dealer=1)
    assert game.hands[2] == parse_cards("2s 6s Ts")
    assert game.hands[3] == parse_cards("3s 7s Js")
    assert game.hands[0] == parse_cards("4s 8s Qs")
    assert game.hands[1] == parse_cards("5s 9s Ks")  # the dealer is dealt last
    assert game.current_player == 2


# ----------------------------------------------------------------------------- B10
def test_b10_players_start_blind_and_look_keeps_the_turn():
    game = start([STRONG, WEAK, "Jc 8h 3d"])
    assert game.status == [BLIND, BLIND, BLIND]
    assert game.current_player == 1
    assert legal_names(game) == ["fold", "stay", "look", "raise_2x"]
    game.apply(LOOK)
    assert game.current_player == 1 and game.status[1] == OPEN
    assert legal_names(game) == ["fold", "stay", "raise_2x"]  # once open, always open
    assert game.betting == [(1, LOOK, 0)]
    game.apply(STAY)
    assert game.current_player == 2 and game.status[1] == OPEN
    with pytest.raises(ValueError, match=r"out of range 0\.\.7"):
        game.apply(99)


def test_b10_no_blind_variant_everyone_open():
    game = start([STRONG, WEAK, "Jc 8h 3d"], allow_blind=False)
    assert game.status == [OPEN, OPEN, OPEN]
    assert "look" not in legal_names(game)
    game.apply(STAY)
    assert costs(game) == [2]  # an open player pays the full stake


# ----------------------------------------------------------------------------- B11
def test_b11_blind_pays_half_open_pays_full_and_bets_are_fresh():
    game = start([STRONG, WEAK])
    assert game.stake == 2  # the opening stake is min_stake
    apply_names(game, ["stay", "look", "stay", "stay", "stay"])
    # seat 1 blind: 1, seat 0 open: 2, again 1 and 2 - no "call the difference"
    assert costs(game) == [1, 0, 2, 1, 2]
    assert game.contributed == [1 + 2 + 2, 1 + 1 + 1]
    assert game.pot == 8 and game.stake == 2


def test_b11_opening_stake_is_min_stake():
    game = start([STRONG, WEAK], min_stake=10)
    assert game.stake == 10
    game.apply(STAY)
    assert costs(game) == [5]


def test_b11_blind_raise_doubles_into_open_units():
    game = start([STRONG, WEAK, "Jc 8h 3d"], raise_sizes=[2, 3])
    apply_names(game, ["raise_2x"])  # blind seat 1: pays 2, S becomes 4
    assert costs(game) == [2] and game.stake == 4
    apply_names(game, ["look", "stay"])  # open seat 2 pays the full 4
    apply_names(game, ["raise_3x"])  # blind seat 0: S 4 -> 12, pays 6
    assert costs(game) == [2, 0, 4, 6] and game.stake == 12
    apply_names(game, ["stay"])  # blind seat 1 pays 6
    assert costs(game)[-1] == 6 and game.stake % 2 == 0


# ----------------------------------------------------------------------------- B12
def test_b12_order_starts_left_of_dealer_and_skips_folded():
    game = start([STRONG, WEAK, "Jc 8h 3d", "Kh Qd 4c"], dealer=3)
    seen = []
    for name in ["stay", "fold", "stay", "stay", "stay", "stay"]:
        seen.append(game.current_player)
        apply_names(game, [name])
    assert seen == [0, 1, 2, 3, 0, 2]
    assert game.status[1] == FOLDED
    assert game.current_player == 3


def test_b12_no_check_every_way_to_stay_in_costs_chips():
    game = start([STRONG, WEAK, "Jc 8h 3d", "Kh Qd 4c"])
    assert legal_names(game) == ["fold", "stay", "look", "raise_2x"]
    apply_names(game, ["stay", "look", "stay", "look", "raise_2x"])
    assert all(cost > 0 for _, action, cost in game.betting if action not in (FOLD, LOOK))


# ----------------------------------------------------------------------------- B13
def test_b13_raise_ladder_and_stake_cap_not_cut_down():
    game = start([STRONG, WEAK, "Jc 8h 3d"], raise_sizes=[2, 3], max_stake=8)
    apply_names(game, ["look"])
    assert legal_names(game) == ["fold", "stay", "raise_2x", "raise_3x"]  # to 4 or 6
    apply_names(game, ["raise_2x"])  # S = 4, paid 4
    apply_names(game, ["look"])
    assert legal_names(game) == ["fold", "stay", "raise_2x"]  # to 8 ok, 12 > cap is illegal
    with pytest.raises(ValueError, match="raise_3x"):
        apply_names(game, ["raise_3x"])
    apply_names(game, ["raise_2x"])
    assert game.stake == 8 and costs(game) == [0, 4, 0, 8]
    assert legal_names(game) == ["fold", "stay", "look"]  # at the cap: no raise


def test_b13_pot_limit():
    game = start([STRONG, WEAK, "Jc 8h 3d", "Kh Qd 4c"], raise_sizes=[2, 3, 4], pot_limit=True)
    assert game.pot == 4
    # S after the raise may not exceed the pot before it: 4 <= 4, but not 6 or 8.
    assert legal_names(game) == ["fold", "stay", "look", "raise_2x"]
    apply_names(game, ["stay", "look", "stay", "look", "stay"])
    assert game.pot == 9 and game.current_player == 0
    assert legal_names(game) == ["fold", "stay", "look", "raise_2x", "raise_3x", "raise_4x"]


def test_b13_pot_limit_off_allows_raises_above_the_pot():
    game = start([STRONG, WEAK, "Jc 8h 3d", "Kh Qd 4c"], raise_sizes=[2, 3, 4])
    assert "raise_4x" in legal_names(game)


def test_b13_never_pay_more_than_you_hold():
    game = start([STRONG, WEAK], starting_chips=4)
    assert game.chips == [3, 3]
    # Blind: the raise costs 2 and the see (blind sees blind) 2.
    assert legal_names(game) == ["fold", "stay", "look", "see", "raise_2x"]
    apply_names(game, ["look"])
    assert legal_names(game) == ["fold", "stay"]  # the open raise would cost 4 > 3
    with pytest.raises(ValueError, match="illegal"):
        apply_names(game, ["raise_2x"])


# ----------------------------------------------------------------------------- B14
def test_b14_see_needs_exactly_two_players():
    game = start([STRONG, WEAK, "Jc 8h 3d"], allow_blind=False)
    apply_names(game, ["stay", "stay"])
    assert "see" not in legal_names(game)  # three still in
    apply_names(game, ["stay", "fold"])
    assert legal_names(game) == ["fold", "stay", "see", "raise_2x"]


def test_b14_open_sees_open_for_twice_the_stake():
    game = start([STRONG, WEAK])
    apply_names(game, ["look", "raise_2x", "look"])  # S = 4
    (result,) = apply_names(game, ["see"])
    assert costs(game)[-1] == 8
    assert result.by_see and result.seer == 0 and result.seen == 1 and result.winner == 0
    assert result.shown == {0: parse_cards(STRONG), 1: parse_cards(WEAK)}
    assert result.pot == 2 + 4 + 8 and result.deltas == [1 + 4, -(1 + 4)]


def test_b14_open_cannot_see_blind():
    game = start([STRONG, WEAK])
    apply_names(game, ["stay", "look"])  # seat 1 stays blind; seat 0 looks
    assert legal_names(game) == ["fold", "stay", "raise_2x"]
    with pytest.raises(ValueError, match=r"'see'.*illegal"):
        game.apply(SEE)


def test_b14_blind_sees_blind_for_the_stake():
    game = start([WEAK, STRONG])
    apply_names(game, ["stay"])
    assert legal_names(game) == ["fold", "stay", "look", "see", "raise_2x"]
    (result,) = apply_names(game, ["see"])
    assert costs(game) == [1, 2]  # two blind stakes = S
    assert result.winner == 1 and result.seer == 0
    assert result.deltas == [-(1 + 2), 1 + 2]


def test_b14_blind_sees_open_for_the_stake():
    game = start([WEAK, STRONG])
    apply_names(game, ["look", "raise_2x"])  # seat 1 open, S = 4
    assert "see" in legal_names(game)
    (result,) = apply_names(game, ["see"])
    assert costs(game) == [0, 4, 4] and result.winner == 1


def test_b14_blind_may_see_open_off():
    game = start([WEAK, STRONG], blind_may_see_open=False)
    apply_names(game, ["look", "stay"])
    assert legal_names(game) == ["fold", "stay", "look", "raise_2x"]
    blind = start([WEAK, STRONG], blind_may_see_open=False)
    apply_names(blind, ["stay"])
    assert "see" in legal_names(blind)  # blind still sees blind


@pytest.mark.parametrize("seer", [0, 1])
def test_b14_tie_goes_to_the_player_seen(seer):
    game = start(["As Kd 7c", "Ah Kc 7d"], allow_blind=False)  # equal strength (B6)
    apply_names(game, ["stay"] if seer == 0 else ["stay", "stay"])
    assert game.current_player == seer
    (result,) = apply_names(game, ["see"])
    assert result.seer == seer and result.winner == 1 - seer


def test_b14_blind_tie_goes_to_the_player_seen():
    game = start(["As Kd 7c", "Ah Kc 7d"])
    (result,) = apply_names(game, ["stay", "see"])
    assert result.seer == 0 and result.winner == 1


# ----------------------------------------------------------------------------- B15
def test_b15_last_player_standing_wins_and_shows_nothing():
    game = start([WEAK, STRONG, "Jc 8h 3d"])
    (result,) = apply_names(game, ["stay", "fold", "fold"])
    assert result.winner == 1 and not result.by_see
    assert result.shown == {} and game.shown_cards == []
    assert result.pot == 3 + 1 and result.deltas == [-1, 2, -1]
    assert game.session_over and game.current_player == -1
    assert game.history()[0]["see"] is None
