"""The shared card model: parsing, formatting, the seeded deck."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from brag_env.cards import (
    NUM_CARDS,
    Deck,
    card_rank,
    card_suit,
    format_card,
    format_cards,
    make_card,
    make_rng,
    parse_card,
    parse_cards,
    stacked_cards,
)


def test_encoding_is_rank_times_four_plus_suit():
    assert parse_card("2s") == 0
    assert parse_card("Ac") == 51
    assert parse_card("10h") == make_card(8, 1) == 33
    assert card_rank(33) == 8 and card_suit(33) == 1


@pytest.mark.parametrize(
    "text",
    ["10h", "Th", "th", "TH", "10H", "10♥", "t♥", "10♡", "10♥\ufe0f"],
)
def test_ten_of_hearts_spellings(text):
    assert parse_card(text) == parse_card("10h")


def test_parse_cards_mixed_forms_and_commas():
    assert parse_cards("As 2♠, 3S  qd") == [parse_card(t) for t in ("As", "2s", "3s", "Qd")]
    assert parse_cards(["As", 0, np.int64(5)]) == [parse_card("As"), 0, 5]
    assert parse_cards("") == []


@pytest.mark.parametrize("bad", ["1s", "Ax", "11h", "s", "A", "♠A", "10", "Z♠"])
def test_bad_card_names_the_token(bad):
    with pytest.raises(ValueError, match="bad card") as err:
        parse_cards(f"As {bad} 3s")
    assert repr(bad) in str(err.value)


def test_bad_ints_and_types():
    with pytest.raises(ValueError, match=r"0\.\.51"):
        parse_cards([52])
    with pytest.raises(ValueError, match=r"0\.\.51"):
        format_card(-1)
    with pytest.raises(ValueError, match="bad card"):
        parse_cards([1.5])
    with pytest.raises(ValueError, match="bad card"):
        parse_cards([True])


def test_duplicates_rejected():
    with pytest.raises(ValueError, match="duplicate card 'A♠'"):
        parse_cards("As 2s as")
    with pytest.raises(ValueError, match="duplicate"):
        parse_cards([0, 0])


def test_format_symbols_and_ascii():
    cards = parse_cards("As 10h 2d Kc")
    assert format_cards(cards) == "A♠ 10♥ 2♦ K♣"
    assert format_cards(cards, symbols=False) == "As Th 2d Kc"


@given(st.permutations(range(NUM_CARDS)), st.integers(0, NUM_CARDS), st.booleans())
def test_round_trip(perm, n, symbols):
    cards = list(perm[:n])
    assert parse_cards(format_cards(cards, symbols=symbols)) == cards


def test_every_card_round_trips():
    for card in range(NUM_CARDS):
        assert parse_card(format_card(card)) == card
        assert parse_card(format_card(card, symbols=False)) == card


def test_seeded_deck_is_deterministic():
    a = Deck.shuffled(make_rng(7)).cards()
    b = Deck.shuffled(make_rng(7)).cards()
    c = Deck.shuffled(make_rng(8)).cards()
    assert a == b
    assert a != c
    assert sorted(a) == list(range(NUM_CARDS))


def test_deck_deal_and_bottom():
    deck = Deck(parse_cards("As 2s 3s 4s"))
    assert deck.deal() == parse_card("As")
    assert deck.deal_many(2) == parse_cards("2s 3s")
    deck.put_bottom(parse_cards("Kd Qd"))
    assert deck.cards() == parse_cards("4s Kd Qd")
    assert len(deck) == 3
    with pytest.raises(ValueError, match="cannot deal 4"):
        deck.deal_many(4)


def test_stacked_deck_puts_given_cards_on_top():
    top = "Ah Kh Qh"
    d1 = Deck.stacked(top, make_rng(1)).cards()
    d2 = Deck.stacked(top, make_rng(1)).cards()
    assert d1[:3] == parse_cards(top)
    assert sorted(d1) == list(range(NUM_CARDS))
    assert d1 == d2
    with pytest.raises(ValueError, match="duplicate"):
        Deck.stacked("Ah Ah", make_rng(1))


def test_deck_shuffle_is_seeded_and_keeps_cards():
    deck1, deck2 = Deck(range(10)), Deck(range(10))
    deck1.shuffle(make_rng(3))
    deck2.shuffle(make_rng(3))
    assert deck1.cards() == deck2.cards()
    assert sorted(deck1.cards()) == list(range(10))


def test_stacked_cards_puts_the_top_first_then_the_rest_of_the_pack_drawn():
    """A stacked deck over a pack (B1's short deck too): the top, then every other card of the
    pack once, in an order the generator fixes; over the whole pack it is ``Deck.stacked``."""
    pack = list(range(36, 52))  # the 4-rank deck
    top = [51, 40]
    cards = stacked_cards(top, pack, make_rng(3))
    assert cards[:2] == top and sorted(cards) == pack
    assert cards == stacked_cards(top, pack, make_rng(3)) != stacked_cards(top, pack, make_rng(4))
    assert stacked_cards([7], NUM_CARDS, make_rng(5)) == Deck.stacked([7], make_rng(5)).cards()
