"""Bluffing statistics on stacked decks and scripted actions: every count is known exactly.

Brag: with dealer 1, seat 0 gets the deck's cards 1, 3, 5 and seat 1 cards 2, 4, 6 (B9).
Put: with dealer 0, seat 1 (the non-dealer) is dealt first (P2).
"""

import pytest
from scripted_hands import play_hands

from brag_env.brag.hands import hand_strength, strength_percentile
from brag_env.evaluation.brag_stats import WEAK_BELOW, decile

# Seat-0 hands of the decks below and their percentiles (checked in the first test).
WEAK = "2s 5h 9d"  # 0.09: d0, weak
NEAR = "Ks 9h 4d"  # 0.49: bottom half but not bottom 40%: d4, not weak
STRONG = "As Kh Qd"  # 0.99: d9


def _deck(seat0: str, seat1: str) -> str:
    """Interleave two three-card hands for dealer 1 (seat 0 is dealt first)."""
    return " ".join(c for pair in zip(seat0.split(), seat1.split(), strict=True) for c in pair)


def test_the_hands_sit_where_the_tests_assume():
    percentiles = [strength_percentile(hand_strength(h)) for h in (WEAK, NEAR, STRONG)]
    assert [decile(p) for p in percentiles] == [0, 4, 9]
    assert percentiles[1] < 0.5 and percentiles[1] >= WEAK_BELOW == 0.4


def test_brag_bluff_raise_uses_the_bottom_40_percent():
    """Hand 1: seat 0 raises open with a d0 hand and seat 1 folds (a bluff that works).
    Hand 2: seat 0 raises open with a d4 hand (bottom half, not bottom 40%): no bluff.
    Hand 3: seat 0 looks at a d0 hand and only stays, then folds: a weak open hand, no raise."""
    raise_fold = [(0, "look"), (0, "raise_2x"), (1, "look"), (1, "fold")]
    hands = [
        (_deck(WEAK, "Ks Kh Kd"), 1, raise_fold),
        (_deck(NEAR, "Qs Qh Qd"), 1, raise_fold),
        (_deck(WEAK, "As Ah Ad"), 1, [(0, "look"), (0, "stay"), (1, "raise_2x"), (0, "fold")]),
    ]
    (zero, one), _ = play_hands("brag", hands)
    c = zero["counts"]
    assert (c["raise_hands"], c["bluff_raise_hands"], c["bluff_wins"]) == (2, 1, 1)
    assert c["weak_open_hands"] == 2
    assert zero["bluff_raise_rate"] == 0.5  # 1 of its 2 raise hands was weak
    assert zero["bluff_success"] == 1.0
    assert zero["bluff_frequency"] == 0.5  # raised in 1 of its 2 weak open hands
    assert zero["weak_below"] == 0.4
    # Hand-level decile table: d0 holds hands 1 and 3, d4 hand 2.
    rows = zero["hands_by_decile"]["counts"]
    columns = zero["hands_by_decile"]["columns"]
    assert columns == ["hands", "looked", "folded", "raised", "saw", "covered", "won"]
    assert rows[0] == [2, 2, 1, 1, 0, 0, 1]
    assert rows[4] == [1, 1, 0, 1, 0, 0, 1]
    assert sum(map(sum, rows)) == 2 + 2 + 1 + 1 + 1 + 1 + 1 + 1 + 1  # nothing elsewhere
    assert zero["fold_rate_by_decile"] == [0.5, None, None, None, 0.0] + [None] * 5
    assert zero["rates_by_decile"]["raised"][0] == 0.5
    assert zero["rates_by_decile"]["looked"][4] == 1.0
    # Seat 1 folded a prial (d9) twice and won hand 3 with one.
    assert one["hands_by_decile"]["counts"][9] == [3, 2, 2, 0, 0, 0, 1]
    assert one["fold_rate_by_decile"][9] == pytest.approx(2 / 3)


def test_brag_light_see_uses_the_bottom_40_percent():
    """Seat 0 sees open with a d4 hand, then with a d0 hand: one light see of two."""
    script = [(0, "look"), (0, "stay"), (1, "look"), (1, "stay"), (0, "see")]
    hands = [(_deck(NEAR, "Qs Qh Qd"), 1, script), (_deck(WEAK, "Ks Kh Kd"), 1, script)]
    (zero, _), _ = play_hands("brag", hands)
    assert (zero["counts"]["see_hands"], zero["counts"]["light_see_hands"]) == (2, 1)
    assert zero["light_see_rate"] == 0.5 and zero["bluff_raise_rate"] is None
    assert zero["bluff_rate"] == 0.5  # 1 weak of 2 hands with an open raise or see
    assert zero["rates_by_decile"]["saw"][0] == 1.0 and zero["rates_by_decile"]["saw"][4] == 1.0


def test_brag_blind_to_the_end_and_look_rates_count_hands():
    """Hand 1: both stay blind, seat 1 raises blind, seat 0 folds blind: blind to the end (both).
    Hand 2: seat 0 looks at once and folds: a look, no blind move."""
    hands = [
        (_deck(STRONG, "2h 3d 5c"), 1, [(0, "stay"), (1, "raise_2x"), (0, "fold")]),
        (_deck(STRONG, "2h 3d 5c"), 1, [(0, "look"), (0, "fold")]),
    ]
    (zero, one), _ = play_hands("brag", hands)
    assert zero["look_rate"] == 0.5 and zero["blind_to_end_rate"] == 0.5
    assert one["look_rate"] == 0.0 and one["blind_to_end_rate"] == 0.5  # hand 2: no move
    assert zero["hands_by_decile"]["counts"][9] == [2, 1, 2, 0, 0, 0, 0]
    assert zero["fold_rate_by_decile"][9] == 1.0  # folded a top hand twice, blind and open


def test_B16_cover_rate_of_hands_and_of_chances():
    """Seat 0 has 3 chips; it stays blind (1) and seat 1 raises blind to 2: seat 0 cannot pay
    and may cover (B16). Hand 1 it covers, hand 2 it folds: 2 chances, 1 cover."""
    deck = _deck("Ks 5h 9d", "Kh 2s 3d")
    hands = [
        (deck, 1, [(0, "stay"), (1, "raise_2x"), (0, "cover")]),
        (deck, 1, [(0, "stay"), (1, "raise_2x"), (0, "fold")]),
    ]
    (zero, one), _ = play_hands("brag", hands, options={"starting_chips": 3})
    assert (zero["counts"]["covers"], zero["counts"]["cover_chances"]) == (1, 2)
    assert zero["cover_rate"] == 0.5 and zero["cover_chance_rate"] == 0.5
    assert one["counts"]["cover_chances"] == 0 and one["cover_chance_rate"] is None
    d = decile(strength_percentile(hand_strength("Ks 5h 9d")))
    assert zero["hands_by_decile"]["counts"][d] == [2, 0, 1, 0, 0, 1, 1]  # won the cover


def test_put_rates_by_decile_and_the_weak_cut_off():
    """Seat 1 Puts twice: with a weak hand (seat 0 folds: bluff success) and with the best
    hand (seat 0 sees with the weakest). In hand 3 seat 1 declines to Put with a weak hand."""
    from brag_env.evaluation.put_stats import decile as put_decile

    weak_deck = "4s 3s 5h 3h 6d 2d"  # seat 1: 4s 5h 6d, seat 0: 3s 3h 2d
    strong_deck = "3s 4s 3h 5h 2d 6d"  # seat 1: 3s 3h 2d, seat 0: 4s 5h 6d
    hands = [
        (weak_deck, 0, [(1, "put"), (0, "fold")]),
        (strong_deck, 0, [(1, "put"), (0, "see")]),
        (weak_deck, 0, [(1, "play_4")]),  # a card instead of Put
    ]
    (zero, one), _ = play_hands("put", hands, num_players=2)
    c = one["counts"]
    assert (c["put_chances"], c["puts"], c["bluff_puts"], c["bluff_put_wins"]) == (3, 2, 1, 1)
    assert c["weak_put_chances"] == 2
    assert one["bluff_put_rate"] == 0.5 and one["bluff_success"] == 1.0
    assert one["bluff_frequency"] == 0.5  # Put with 1 of its 2 weak chances
    rows = one["actions_by_decile"]["counts"]
    nonzero = {d: row for d, row in enumerate(rows) if any(row)}
    assert len(nonzero) == 2 and sorted(map(sum, nonzero.values())) == [1, 2]
    weak_row = next(d for d, row in nonzero.items() if sum(row) == 2)
    assert rows[weak_row] == [1, 1, 0, 0]
    assert one["put_rate_by_decile"][weak_row] == 0.5
    assert one["rates_by_decile"]["put"].count(None) == 8
    # Seat 0 faced two Puts: folded a top hand, saw with a bottom hand (light see).
    folds = zero["fold_to_put_by_decile"]
    assert [f for f in folds if f is not None] in ([1.0, 0.0], [0.0, 1.0])
    assert zero["light_see_rate"] == 1.0 and zero["fold_to_put"] == 0.5
    assert zero["rates_by_decile"]["see"].count(1.0) == 1
    assert put_decile(0.39) == 3 and put_decile(0.4) == 4


def test_the_text_report_shows_rates_by_decile_with_their_counts():
    from rich.console import Console

    from brag_env.evaluation import evaluate
    from brag_env.evaluation.report import decile_cell, tournament_tables

    table = {"columns": ["hands", "looked", "folded"], "counts": [[40, 10, 5], [0, 0, 0]]}
    assert decile_cell(table, 0, "folded", ("hands",)) == "12.5% of 40"
    assert decile_cell(table, 1, "folded", ("hands",)) == "-"
    put = {"columns": ["put", "no_put", "see", "fold"], "counts": [[1, 3, 2, 2]]}
    assert decile_cell(put, 0, "put", ("put", "no_put")) == "25.0% of 4"
    assert decile_cell(put, 0, "fold", ("see", "fold")) == "50.0% of 4"

    result = evaluate("brag", ["brag:tight", "random"], 40, seed=0)
    console = Console(record=True, width=200)
    tables = tournament_tables(result)
    for t in tables:
        console.print(t)
    text = console.export_text()
    titles = [str(t.title) for t in tables]
    assert any(t.startswith("Brag: fold rate by strength decile") for t in titles)
    assert any(t.startswith("Brag: open raise rate by strength decile") for t in titles)
    rows = result.agents[0].behaviour["hands_by_decile"]["counts"]
    assert sum(row[0] for row in rows) == result.agents[0].behaviour["hands"] == 40
    assert all(f"of {row[0]}" in text for row in rows if row[0])
    # The JSON output carries the decile counts and rates (null where a decile is empty).
    import json

    saved = json.loads(json.dumps(result.to_dict()))["agents"][0]["behaviour"]
    assert saved["hands_by_decile"]["counts"] == rows
    assert saved["fold_rate_by_decile"] == result.agents[0].behaviour["fold_rate_by_decile"]
    assert saved["counts"]["weak_open_hands"] >= 0 and saved["weak_below"] == 0.4
