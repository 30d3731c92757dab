"""Covering the pot (B16), carried pots (B15), the cycle shuffle (B18) and the B8/B16 ante fix:
stacked decks, scripted actions and exact chips for every clause."""

import numpy as np
import pytest

from brag_env.brag.game import BragGame
from brag_env.brag.rules import BragConfig
from brag_env.brag.scenario import apply_names, legal_names, stack_deck
from tests.stacked_brag import fold_out, start

ACES = "As Ad 5c"  # a pair of aces
KINGS = "Kh Kd 7s"  # a pair of kings
QUEENS = "Qh Qd 4c"  # a pair of queens
JACKS = "Jc Jh 3d"  # a pair of jacks
NINE = "2h 5d 9c"  # nine high
PRIAL = "8h 8d 8c"  # a prial of eights


# ----------------------------------------------------------------------------- B16 heads-up
def test_B16_cover_heads_up_against_a_blind_player():
    """Seat 1 (open) cannot pay S=4 with 3 chips: it covers, which leaves one player in, so the
    hands are compared at once; the coverer's aces take the covered pot of 14."""
    game = start([NINE, ACES], starting_chips=10)
    apply_names(game, ["look", "stay", "stay", "raise_2x", "stay"])
    assert game.chips == [6, 3] and game.stake == 4 and game.current_player == 1
    assert legal_names(game) == ["fold", "cover"]
    (result,) = apply_names(game, ["cover"])
    assert result.covers == [(1, 14)] and result.pots == [(0, 0, -1), (14, 1, 1)]
    assert result.winner == 1 and result.pot == 14 and not result.by_see
    assert result.deltas == [-4, 4] and result.chips == [6, 14]
    assert set(result.shown) == {0, 1}  # B16: both compared hands are shown


def test_B16_cover_heads_up_against_an_open_player():
    game = start([NINE, ACES], starting_chips=10, allow_blind=False)
    apply_names(game, ["raise_2x", "raise_2x"])
    assert game.chips == [1, 5] and game.stake == 8
    assert legal_names(game) == ["fold", "cover"]
    (result,) = apply_names(game, ["cover"])
    assert result.covers == [(1, 19)]
    assert result.winner == 1 and result.deltas == [-9, 9] and result.chips == [1, 19]


def test_B16_tie_for_a_covered_pot_goes_against_the_coverer():
    """Equal hands (suits never rank, B6): the side pot's winner takes the covered pot."""
    game = start(["Ks Qc 5d", "Kh Qd 5c"], starting_chips=10, allow_blind=False)
    (result,) = apply_names(game, ["raise_2x", "raise_2x", "cover"])
    assert result.winner == 0 and result.pots == [(0, 0, -1), (19, 0, 1)]
    assert result.deltas == [10, -10] and result.chips == [20, 0]


def test_B16_cover_with_no_chips_left_and_a_blind_cover():
    """After the ante a seat may hold 0 chips: it may cover (for 0), blind, or look first."""
    game = start([NINE, ACES], starting_chips=1)
    assert game.chips == [0, 0] and legal_names(game) == ["fold", "look", "cover"]
    (result,) = apply_names(game, ["cover"])
    assert result.covers == [(1, 2)] and result.winner == 1 and result.deltas == [-1, 1]
    assert game.history()[0]["looked"] == []  # covered blind


def test_B16_off_the_short_player_must_fold():
    """cover_pot=False is the original ruling: no cover action at all."""
    game = start([NINE, ACES], starting_chips=10, cover_pot=False)
    assert "cover" not in game.config.action_names and game.config.num_actions == 7
    apply_names(game, ["look", "stay", "stay", "raise_2x", "stay"])
    assert legal_names(game) == ["fold"]


# ----------------------------------------------------------------------------- B16 side pots
def _three_way_to_the_cover(**options) -> BragGame:
    """Seat 1 looks and raises twice; seats 2 and 0 stay blind (half price); seat 1 then holds
    7 chips against S=8 and covers: the covered pot is 34."""
    game = start(options.pop("hands"), starting_chips=20, **options)
    apply_names(game, ["look", "raise_2x", "stay", "stay", "raise_2x", "stay", "stay"])
    assert game.chips == [13, 7, 13] and game.pot == 27 and game.stake == 8
    apply_names(game, ["cover"])
    assert game.covers == [(1, 34)] and game.current_player == 2
    return game


def test_B16_three_players_side_pot_decided_by_a_see():
    game = _three_way_to_the_cover(hands=[NINE, ACES, JACKS])
    # Seat 2 stays blind (4), seat 0 sees it blind for S=8: the side pot is 12.
    (result,) = apply_names(game, ["stay", "see"])
    assert result.by_see and result.seer == 0 and result.seen == 2
    # Side pot to the see's winner (jacks), then jacks against the coverer's aces for 34.
    assert result.pots == [(12, 2, -1), (34, 1, 1)] and result.winner == 1
    assert result.chips == [5, 34, 21] and result.deltas == [-15, 14, 1]
    assert set(result.shown) == {0, 1, 2}


def test_B16_side_pot_decided_by_folds_and_carry_options_do_not_apply():
    """The blind player left alone in the side pot wins it (B15's carry options apply only to
    hands without a cover) and goes on to the comparison, where its aces beat the jacks."""
    game = _three_way_to_the_cover(
        hands=[NINE, JACKS, ACES],
        hands_per_session=2,
        blind_alone="carries",
        unopened_pot="carries",
    )
    (result,) = apply_names(game, ["stay", "fold"])
    assert result.carried == 0 and result.pots == [(4, 2, -1), (34, 2, 1)]
    assert result.winner == 2 and result.chips == [13, 0, 47]
    assert result.deltas == [-7, -20, 27]
    assert set(result.shown) == {1, 2}  # the folded hand is not shown
    assert not result.keep_offer  # B19 is for a hand won unseen, not one compared


def test_B16_two_nested_covers_settle_from_the_last_closed_outwards():
    """4 players: seat 1 covers (pot 55), then seat 2 (pot 58); seats 3 and 0 bet on blind and
    seat 0 sees. Side pot 12 -> queens; pot 2 (3 chips) -> kings (seat 2) beat the queens;
    pot 1 (55) -> aces (seat 1) beat the kings, the winner of everything after it."""
    game = start([NINE, ACES, KINGS, QUEENS], starting_chips=20)
    apply_names(game, ["look", "raise_2x", "look", "raise_2x", "stay", "stay"])
    apply_names(game, ["stay", "stay", "stay", "stay"])
    assert game.chips == [11, 7, 3, 11] and game.pot == 48
    apply_names(game, ["cover"])
    assert legal_names(game) == ["fold", "cover"]
    apply_names(game, ["cover"])
    assert game.covers == [(1, 55), (2, 58)] and game.current_player == 3
    (result,) = apply_names(game, ["stay", "see"])
    assert result.pots == [(12, 3, -1), (3, 2, 2), (55, 1, 1)] and result.winner == 1
    assert result.chips == [3, 55, 3, 19] and result.deltas == [-17, 35, -17, -1]
    assert set(result.shown) == {0, 1, 2, 3}


def test_B16_prial_shown_in_a_cover_comparison_shuffles_and_brings_the_ante():
    """A prial revealed only by a cover comparison counts as a see for B18's shuffle and for
    ante_mode="after_prial" (B8)."""
    outcomes = {}
    for name, coverer_hand in (("prial", PRIAL), ("aces", ACES)):
        game = start(
            [NINE, coverer_hand], starting_chips=10, hands_per_session=2, ante_mode="after_prial"
        )
        (result,) = apply_names(game, ["look", "stay", "stay", "raise_2x", "stay", "cover"])
        assert result.winner == 1 and not result.by_see and game.hand_number == 1
        outcomes[name] = (game._shuffled, game._antes)
    assert outcomes["prial"] == (True, [1, 1])
    assert outcomes["aces"] == (False, [0, 0])


# ----------------------------------------------------------------------------- B15 carries
def test_B15_blind_alone_carries_to_the_next_deal():
    game = start([NINE, ACES, JACKS], hands_per_session=3, blind_alone="carries")
    (result,) = apply_names(game, ["stay", "fold", "fold"])  # seat 1 blind, left alone
    assert result.winner == -1 and result.carried == 4 and result.pot == 4
    assert result.deltas == [-1, -2, -1] and result.keep_offer and result.keeper == 1
    # The next deal: the pot starts with the carried 4 and three new antes; B19 choice first.
    assert game.pot == 7 and game.choosing and game.current_player == 1
    apply_names(game, ["keep_old_hand"])
    (second,) = apply_names(game, ["fold", "look", "stay", "fold"])  # seat 0 open: wins
    assert second.carried_in == 4 and second.winner == 0 and second.pot == 9
    assert [a + b for a, b in zip(result.deltas, second.deltas, strict=True)] == [5, -3, -2]


def test_B15_B16_no_carry_to_a_deal_the_lone_player_sits_out():
    """The lone blind player has no chips left for the next ante: the pot does not carry to a
    deal it cannot play (it would sit out, B16): it wins the pot, as on the last hand."""
    g = BragGame(
        BragConfig(num_players=3, starting_chips=2, hands_per_session=3, blind_alone="carries")
    )
    deck = stack_deck(["2h 5d 9c", "As Ad 5c", "Jc Jh 3d"], 0, "")
    g.new_session(np.random.default_rng(0), deck=deck, dealer=0)
    (result,) = apply_names(g, ["stay", "fold", "fold"])  # seat 1 stays blind with its last chip
    assert result.carried == 0 and result.winner == 1
    assert result.deltas == [-1, 2, -1] and sum(g.chips) + g.pot == 6
    assert g.current_player not in g.sitting_out  # the next deal's first decision is a player's


def test_B15_open_player_left_alone_always_wins():
    game = start([NINE, ACES, JACKS], hands_per_session=3, blind_alone="carries")
    (result,) = apply_names(game, ["look", "stay", "fold", "fold"])
    assert result.winner == 1 and result.carried == 0 and result.deltas == [-1, 2, -1]


def test_B15_unopened_pot_carries_only_when_nobody_paid_a_stake():
    game = start([NINE, ACES, JACKS], hands_per_session=3, unopened_pot="carries")
    (result,) = apply_names(game, ["fold", "fold"])  # seat 0 left alone, nobody paid
    assert result.winner == -1 and result.carried == 3 and result.deltas == [-1, -1, -1]
    game = start([NINE, ACES, JACKS], hands_per_session=3, unopened_pot="carries")
    (result,) = apply_names(game, ["stay", "fold", "fold"])  # a stake was paid: seat 1 wins
    assert result.winner == 1 and result.carried == 0 and result.deltas == [-1, 2, -1]


def test_B15_unopened_pot_carries_even_for_an_open_lone_player():
    """docs/rules.md's reading: unopened_pot looks at the stakes paid, not at the lone player's
    status (only open play can leave an open player alone with an unopened pot)."""
    game = start(
        [NINE, ACES, JACKS], hands_per_session=3, unopened_pot="carries", allow_blind=False
    )
    (result,) = apply_names(game, ["fold", "fold"])  # seat 0, open, left alone; nobody paid
    assert result.winner == -1 and result.carried == 3 and result.deltas == [-1, -1, -1]
    assert not result.keep_offer and game.pot == 6 and not game.choosing  # 3 carried + 3 antes


@pytest.mark.parametrize(
    ("ante_mode", "pot", "chips"),
    [
        ("every_hand", 7, [198, 197, 198]),  # the carried 4 and three new antes
        ("after_prial", 4, [199, 198, 199]),  # a hand that carries shows no prial: no ante
        ("none", 1, [200, 199, 200]),
    ],
)
def test_B8_B15_a_carried_pot_takes_the_antes_ante_mode_asks_for(ante_mode, pot, chips):
    """docs/rules.md's reading of B15's "everyone antes again": the next deal's usual antes."""
    game = start(
        [NINE, ACES, JACKS], hands_per_session=3, blind_alone="carries", ante_mode=ante_mode
    )
    (result,) = apply_names(game, ["stay", "fold", "fold"])  # seat 1 blind, left alone
    assert result.carried == pot - (3 if ante_mode == "every_hand" else 0)
    assert game.pot == pot and game.chips == chips and game.choosing


def test_B15_B19_no_keep_choice_without_blind_keep_hand():
    game = start(
        [NINE, ACES, JACKS], hands_per_session=3, blind_alone="carries", blind_keep_hand=False
    )
    (result,) = apply_names(game, ["stay", "fold", "fold"])  # seat 1 blind, left alone
    assert result.carried == 4 and not result.keep_offer and not game.choosing
    assert game.pot == 7 and "keep_old_hand" not in legal_names(game)


@pytest.mark.parametrize("hands_per_session", [1, 2])
def test_B15_never_carries_out_of_the_last_hand(hands_per_session):
    game = start(
        [NINE, ACES, JACKS],
        hands_per_session=hands_per_session,
        blind_alone="carries",
        unopened_pot="carries",
    )
    if hands_per_session == 2:
        (first,) = apply_names(game, ["fold", "fold"])
        assert first.carried == 3
        apply_names(game, ["take_new_hand"])  # seat 0 was blind and alone: B19 choice
    (last,) = apply_names(game, ["fold", "fold"])
    assert last.carried == 0 and last.winner >= 0 and game.session_over
    assert sum(game.chips) == 3 * 200  # the episode is zero-sum


# ----------------------------------------------------------------------------- B18, B8
@pytest.mark.parametrize(
    ("shuffle", "expected"),
    [
        ("after_prial_or_cycle", [True, False, False, True, False, False]),
        ("after_prial", [True, False, False, False, False, False]),
    ],
)
def test_B18_cycle_shuffle_once_every_card_was_dealt(shuffle, expected):
    """8 players deal 24 cards a hand: after the third hand (72 >= 52) the deck is shuffled."""
    game = BragGame(BragConfig(num_players=8, hands_per_session=6, shuffle=shuffle))
    game.new_session(3)
    for _ in range(6):
        fold_out(game)
    assert [h["shuffled"] for h in game.history()] == expected


def test_B8_B16_after_prial_short_of_the_ante_sits_out_only_when_an_ante_is_due():
    # Hand 1 (dealer 1: seats 2, 0, 1 in turn) shows a prial at a see; hand 2 then has an ante.
    second = stack_deck([PRIAL, "2s 6d Tc", "Qs Jd 4h"], dealer=1)
    game = start(
        [NINE, ACES, JACKS],
        rest=second,
        starting_chips=4,
        ante=2,
        ante_mode="after_prial",
        hands_per_session=3,
        blind_keep_hand=False,
    )
    apply_names(game, ["stay", "stay", "fold", "fold"])  # seat 2 wins by folds: no prial
    assert game.chips == [2, 1, 9]
    # No ante is due: seat 1, holding less than the ante, still plays.
    assert game.sitting_out == [] and game._antes == [0, 0, 0]
    (result,) = apply_names(game, ["stay", "stay", "fold", "see"])
    assert result.by_see and result.winner == 0 and "prial" in str(game.history()[1]["see"])
    assert result.chips == [5, 1, 6] and game.chips == [3, 1, 4]  # hand 3's antes paid
    # The prial brings an ante of 2: seat 1 (1 chip) now sits out for the rest of the session.
    assert game.sitting_out == [1] and game._antes == [2, 0, 2]


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"cover_pot": "yes"}, "cover_pot"),
        ({"cover_pot": 1}, "cover_pot"),
        ({"blind_alone": "sometimes"}, "blind_alone"),
        ({"unopened_pot": None}, "unopened_pot"),
        ({"shuffle": "cycle"}, "shuffle"),
    ],
)
def test_B15_B16_bad_options_name_the_field(options, field):
    with pytest.raises(ValueError, match=f"^{field}") as err:
        BragConfig(**options)
    assert "\n" not in str(err.value)


def test_B16_cover_when_not_legal_is_refused():
    game = start([NINE, ACES], starting_chips=10)
    cover = game.config.cover_action
    with pytest.raises(ValueError, match=r"'cover'.*illegal"):
        game.apply(cover)
