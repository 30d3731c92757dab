"""Seven-card Brag engine (rule B24, with B2-B6 ranking and B21 lowball) on stacked decks."""

from __future__ import annotations

from itertools import combinations

import pytest

from brag_env.brag.hands import hand_strength
from brag_env.brag7.game import (
    NO_WINNER,
    Brag7Game,
    scoop_winner,
    share_out,
    stacked_deck,
)
from brag_env.brag7.rules import (
    ARRANGEMENTS,
    NUM_ARRANGEMENTS,
    Brag7Config,
    arrangement,
    arrangement_id,
)
from brag_env.cards import parse_cards

# Heads-up deals: (seat 0's seven cards, first hand, second hand), the same for seat 1.
PRIAL_AND_PAIR = ("As Ah Ad Ks Kh 2c 5d", "As Ah Ad", "Ks Kh 5d")
QUEENS_AND_JACKS = ("Qs Qh Qd Js Jh 3c 6d", "Qs Qh Qd", "Js Jh 6d")
LOW_CARDS = ("5s 3h 2d 6c 4s 2h 9d", "5s 3h 2d", "6c 4s 2h")


def ids(hand: tuple[str, str, str]) -> int:
    cards, first, second = hand
    return arrangement_id(parse_cards(first), parse_cards(second), parse_cards(cards))


def play(game: Brag7Game, deals: list[tuple[tuple[str, str, str], ...]], dealer: int = 1):
    """Stack one deck per deal (the dealer moves one seat a deal, B7), play the arrangements."""
    decks, d = [], dealer
    for deal in deals:
        decks.append(stacked_deck([h[0] for h in deal], d))
        d = (d + 1) % len(deal)
    game.new_session(0, deck=decks, dealer=dealer)
    results = []
    for deal in deals:
        for _ in deal:
            seat = game.current_player
            outcome = game.apply(ids(deal[seat]))
        assert outcome is not None
        results.append(outcome)
    return results


# ---------------------------------------------------------------- the 140 ids
def test_b24_140_ids_are_a_bijection_onto_the_arrangements():
    cards = parse_cards("2s 7h 9d Jc Qs Kh As")
    seen = set()
    for action in range(NUM_ARRANGEMENTS):
        first, second, discard = arrangement(action, cards)
        assert sorted((*first, *second, discard)) == sorted(cards)
        assert arrangement_id(first, second, cards) == action
        # The cards' input order does not matter: positions count the sorted cards.
        assert arrangement(action, cards[::-1]) == (first, second, discard)
        seen.add((first, second))
    expected = {
        (f, s)
        for f in combinations(sorted(cards), 3)
        for s in combinations(sorted(set(cards) - set(f)), 3)
    }
    assert seen == expected and len(seen) == NUM_ARRANGEMENTS


def test_b24_canonical_order_of_the_ids():
    assert ARRANGEMENTS[0].tolist() == [0, 1, 2, 3, 4, 5, 6]  # lowest three first, discard top
    assert ARRANGEMENTS[3].tolist() == [0, 1, 2, 4, 5, 6, 3]  # s = 3 discards the lowest left
    assert ARRANGEMENTS[139].tolist() == [4, 5, 6, 1, 2, 3, 0]


def test_b24_bad_ids_and_hands_are_one_line_errors():
    cards = parse_cards("2s 7h 9d Jc Qs Kh As")
    for bad in (-1, 140, 1.0, True, "3"):
        with pytest.raises(ValueError, match="arrangement"):
            arrangement(bad, cards)
    with pytest.raises(ValueError, match="not made of the cards"):
        arrangement_id(parse_cards("3s 4s 5s"), parse_cards("Jc Qs Kh"), cards)
    with pytest.raises(ValueError, match="7 distinct cards"):
        arrangement(0, cards[:6])


# ---------------------------------------------------------------- the showdown
def test_b24_best_in_both_hands_scoops_the_pot():
    game = Brag7Game(Brag7Config(num_players=2, hands_per_session=1))
    (result,) = play(game, [(PRIAL_AND_PAIR, QUEENS_AND_JACKS)])
    assert result.winner == 0 and result.pot == 2 and result.carried == 0
    assert result.deltas == (1, -1) and result.chips == (201, 199)
    assert result.first_best == (0,) and result.second_best == (0,)
    assert game.session_over and game.current_player == -1


def test_b24_a_split_is_no_win_and_the_pot_carries():
    # Seat 0 has the better first hand, seat 1 puts its queens second: best in one hand each.
    swapped = (QUEENS_AND_JACKS[0], "Js Jh 6d", "Qs Qh Qd")
    game = Brag7Game(Brag7Config(num_players=2, hands_per_session=2))
    first, second = play(game, [(PRIAL_AND_PAIR, swapped), (PRIAL_AND_PAIR, QUEENS_AND_JACKS)])
    assert first.winner == NO_WINNER and first.carried == 2 and first.deltas == (-1, -1)
    assert second.pot == 4  # the carried 2 and this deal's antes
    # The next deal: seat 1 deals (B7), seat 0 holds the prial and scoops.
    assert second.dealer == 0 and second.winner == 0 and second.deltas == (3, -1)


def test_b24_b6_a_tie_for_the_best_first_hand_carries():
    # Equal first hands (suits never rank, B6); seat 0's second hand is better: still no win.
    seat0 = ("Ah Kd 9c Qs Qh 2c 4d", "Ah Kd 9c", "Qs Qh 4d")
    seat1 = ("As Kc 9d 8s 7h 3c 5d", "As Kc 9d", "8s 7h 5d")
    game = Brag7Game(Brag7Config(num_players=2, hands_per_session=2))
    result = play(game, [(seat0, seat1), (seat0, seat1)])[0]
    assert result.first_best == (0, 1) and result.second_best == (0,)
    assert result.winner == NO_WINNER and result.carried == 2


def test_b24_pot_carried_twice_then_won():
    tie0 = ("Ah Kd 9c Qs Qh 2c 4d", "Ah Kd 9c", "Qs Qh 4d")
    tie1 = ("As Kc 9d 8s 7h 3c 5d", "As Kc 9d", "8s 7h 5d")
    swapped = (QUEENS_AND_JACKS[0], "Js Jh 6d", "Qs Qh Qd")
    game = Brag7Game(Brag7Config(num_players=2, hands_per_session=3))
    deals = [(tie0, tie1), (PRIAL_AND_PAIR, swapped), (QUEENS_AND_JACKS, PRIAL_AND_PAIR)]
    r0, r1, r2 = play(game, deals)
    assert (r0.pot, r0.carried, r1.pot, r1.carried) == (2, 2, 4, 4)
    assert r2.pot == 6 and r2.winner == 1 and r2.carried == 0
    assert r2.deltas == (-1, 5) and r2.chips == (197, 203)
    assert sum(sum(r.deltas) for r in (r0, r1, r2)) == 0  # chips conserved


def test_b21_lowball_reverses_both_hands():
    deal = (LOW_CARDS, PRIAL_AND_PAIR)
    standard = play(Brag7Game(Brag7Config(num_players=2, hands_per_session=1)), [deal])[0]
    low = play(Brag7Game(Brag7Config(num_players=2, hands_per_session=1, lowball=True)), [deal])
    assert standard.winner == 1 and low[0].winner == 0
    assert hand_strength(parse_cards("5s 3h 2d"), lowball=True) > hand_strength(
        parse_cards("As Ah Ad"), lowball=True
    )


def test_b24_scoop_winner_needs_one_seat_alone_in_both():
    assert scoop_winner([5, 3, 1], [9, 2, 8]) == 0
    assert scoop_winner([5, 5, 1], [9, 2, 8]) == NO_WINNER  # a tie in the first hand
    assert scoop_winner([5, 3, 1], [9, 9, 8]) == NO_WINNER  # a tie in the second hand
    assert scoop_winner([5, 3, 1], [1, 9, 8]) == NO_WINNER  # best in one hand each


# ---------------------------------------------------------------- the session's end
def test_b24_share_out_gives_odd_chips_from_the_dealers_left():
    assert share_out(7, 3, dealer=2) == [3, 2, 2]  # seat 0 is left of dealer 2
    assert share_out(8, 3, dealer=0) == [2, 3, 3]  # seats 1, 2
    assert share_out(11, 4, dealer=3) == [3, 3, 3, 2]
    assert share_out(9, 3, dealer=1) == [3, 3, 3]


def test_b24_pot_standing_at_the_end_is_shared_out():
    swapped = (QUEENS_AND_JACKS[0], "Js Jh 6d", "Qs Qh Qd")
    game = Brag7Game(Brag7Config(num_players=2, hands_per_session=2, ante=3))
    _, r1 = play(game, [(PRIAL_AND_PAIR, swapped), (PRIAL_AND_PAIR, swapped)])
    assert r1.pot == 12 and r1.winner == NO_WINNER and r1.carried == 0
    assert r1.shares == (6, 6) and r1.deltas == (3, 3) and r1.chips == (200, 200)


def test_b24_b7_dealer_moves_and_arrangements_go_from_the_dealers_left():
    game = Brag7Game(Brag7Config(num_players=3, hands_per_session=4))
    game.new_session(7, dealer=2)
    for deal in range(4):
        dealer = (2 + deal) % 3
        assert game.dealer == dealer and game.hand_number == deal
        for k in range(3):
            assert game.current_player == (dealer + 1 + k) % 3
            assert game.legal_actions() == list(range(NUM_ARRANGEMENTS))  # B24: any of the 140
            outcome = game.apply(0)
        assert outcome is not None and outcome.dealer == dealer
    assert game.session_over and game.legal_actions() == [] and not any(game.legal_mask())
    with pytest.raises(ValueError, match="session is over"):
        game.apply(0)


def test_b24_stacked_deck_deals_one_card_at_a_time_from_the_dealers_left():
    hands = ["2s 3s 4s 5s 6s 7s 8s", "2h 3h 4h 5h 6h 7h 8h", "2d 3d 4d 5d 6d 7d 8d"]
    top = stacked_deck(hands, dealer=0)
    assert top[:3] == parse_cards("2h 2d 2s")  # seat 1 first, the dealer last (B9)
    game = Brag7Game(Brag7Config(num_players=3, hands_per_session=1))
    game.new_session(0, deck=top, dealer=0)
    assert game.hands == [sorted(parse_cards(h)) for h in hands]


def test_b24_every_deal_is_shuffled_and_seeded():
    def deals(seed: int, action: int = 0) -> list[list[list[int]]]:
        game = Brag7Game(Brag7Config(num_players=2, hands_per_session=3))
        game.new_session(seed)
        out = []
        while not game.session_over:
            if game.current_player == (game.dealer + 1) % 2:
                out.append([h[:] for h in game.hands])
            game.apply(action)
        return out

    a = deals(3)
    assert a == deals(3) and a != deals(4)
    assert a[0] != a[1] != a[2]
    # Play draws nothing from the generator: the deals do not depend on the choices, so
    # evaluate.py --duplicate replays every deal of a session exactly.
    assert deals(3, action=139) == a


@pytest.mark.parametrize(
    "options, match",
    [
        ({"num_players": 8}, "num_players"),
        ({"num_players": 1}, "num_players"),
        ({"ante": 0}, "ante"),
        ({"hands_per_session": 0}, "hands_per_session"),
        ({"starting_chips": 5}, "every ante"),
        ({"lowball": 1}, "lowball"),
        ({"deck_ranks": 3}, "too few"),
        ({"betting": True}, "unknown Seven-card Brag option"),
    ],
)
def test_b24_config_errors(options, match):
    with pytest.raises(ValueError, match=match):
        Brag7Config.from_dict(options)


def test_b24_deck_errors():
    game = Brag7Game(Brag7Config(num_players=2, deck_ranks=4, hands_per_session=1))
    with pytest.raises(ValueError, match="not in the 4-rank deck"):
        game.new_session(0, deck="2s 3s")
    with pytest.raises(ValueError, match="duplicate"):
        game.new_session(0, deck="As As")
    with pytest.raises(ValueError, match="dealer"):
        game.new_session(0, dealer=2)
