"""Replaying hand histories (see ``brag_env.brag.history`` for the format).

:func:`replay_hand` checks one hand on its own. The deal must be possible: every seat dealt in
holds three cards, the others none, and no card appears twice among the dealt hands and a kept
B19 hand. The antes must fit ``ante_mode`` as far as one hand can tell (B8). Then a fresh engine is
put at the recorded start of the hand (stacks, antes, the deal, a pending B19 choice), the recorded
actions are applied again, and every cost, stake and pot, and the result (winner, see, chip
changes, B20 bonus, B19 offer) must come out the same.

:func:`replay_session` replays every hand of a session and checks what links the hands: stacks
carried over (B17), the button (B7/B16), the kept blind hand (B19), whether an ante was due (B8:
recomputed from the previous hand's see under ``"after_prial"``), whether the deck was shuffled
(B18: recomputed from the previous hand) and the order of the deck itself. The engine returns each
hand's cards under the deck in a fixed order, so the cards of an unshuffled deal are followed
through the session: a card of unknown position (never dealt since the last shuffle) may be dealt
only while such cards remain above the returned ones, and after them the deal must take the
returned cards in exactly the order they went under the deck.

A mismatch raises ``ValueError`` saying which hand, which action and what differed. The rules come
from the ``config`` argument or, when it is ``None``, from the history's own ``config`` entry
(written by the engine), else the defaults.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from brag_env.brag.game import BragGame, HandResult
from brag_env.brag.rules import BragConfig, ante_due, check_in_deck, next_dealer, shuffle_due
from brag_env.brag.wild import config_ranking
from brag_env.cards import format_card, format_cards, parse_cards


def _as_config(
    config: BragConfig | dict[str, Any] | None, history: dict[str, Any] | None = None
) -> BragConfig:
    if config is None:
        config = history.get("config") if history is not None else None
        if config is None:
            return BragConfig()
    if isinstance(config, dict):
        return BragConfig.from_dict(config)
    return config


def _mismatch(hand: int, what: str, recorded: Any, replayed: Any) -> ValueError:
    return ValueError(f"hand {hand}: {what} differs (recorded {recorded!r}, replayed {replayed!r})")


def replay_hand(
    history: dict[str, Any], config: BragConfig | dict[str, Any] | None = None
) -> HandResult:
    """Re-play one recorded hand and check it reproduces the recorded result.

    ``config`` (a ``BragConfig`` or a dict of options) defaults to the history's ``config``.
    """
    cfg = _as_config(config, history)
    n = cfg.num_players
    k = history.get("hand_number", "?")
    if history.get("num_players") != n:
        raise ValueError(
            f"hand {k}: recorded for {history.get('num_players')} players, config has {n}"
        )
    dealt, keep = _deal(history, n, cfg.cards_dealt)
    # B1: a short deck (deck_ranks) holds only its k highest ranks
    check_in_deck(sorted({c for h in dealt for c in h}), cfg.deck_ranks, f"hand {k}")
    _check_antes(history, cfg, None)
    game = BragGame(cfg)
    game._setup_replay(
        hand_number=history["hand_number"],
        dealer=history["dealer"],
        sitting_out=history["sitting_out"],
        chips_before=history["chips_before"],
        antes=history["antes"],
        dealt=dealt,
        keep=keep,
        carried_in=history.get("carried_in", 0),
    )
    if list(history["deal_order"]) != game._order:
        raise _mismatch(k, "deal order", history["deal_order"], game._order)
    ids = {name: i for i, name in enumerate(cfg.action_names)}
    if cfg.cards_dealt > 3:
        _replay_discards(history, game, ids)
    result: HandResult | None = None
    for i, act in enumerate(history["actions"]):
        if result is not None:
            raise ValueError(f"hand {k}: the hand ended at action {i - 1}, the history goes on")
        if game.current_player != act["seat"]:
            raise _mismatch(k, f"seat to act at action {i}", act["seat"], game.current_player)
        if act["action"] not in ids:
            raise ValueError(f"hand {k}: unknown action {act['action']!r} at action {i}")
        try:
            result = game.apply(ids[act["action"]])
        except ValueError as err:
            raise ValueError(f"hand {k}, action {i}: {err}") from None
        cost = game.betting[-1][2]
        pot = game.pot if result is None else result.pot
        for what, recorded, replayed in (
            ("cost", act["cost"], cost),
            ("stake", act["stake"], game.stake),
            ("pot", act["pot"], pot),
        ):
            if recorded != replayed:
                raise _mismatch(k, f"{what} after action {i} ({act['action']})", recorded, replayed)
    if result is None:
        raise ValueError(f"hand {k}: the history ends before the hand does")
    see = history.get("see")
    if "shown" in history:  # B14 and B16: every hand shown
        shown = {int(s): parse_cards(c) for s, c in history["shown"].items()}
    else:  # histories written before B16: only the see shows hands
        shown = {} if see is None else {int(s): parse_cards(c) for s, c in see["hands"].items()}
    covers = [(c["seat"], c["closed_pot"]) for c in history.get("covers", [])]
    pots = [(p["chips"], p["winner"], p["coverer"]) for p in history.get("pots", [])]
    for what, recorded, replayed in (
        ("covers", covers, result.covers),
        ("pots", pots, result.pots),
        ("carried", history.get("carried", 0), result.carried),
        ("keeper", history.get("keeper", result.keeper), result.keeper),
        ("winner", history["winner"], result.winner),
        ("by_see", history["by_see"], result.by_see),
        ("pot", history["pot"], result.pot),
        ("deltas", list(history["deltas"]), result.deltas),
        ("chips_after", list(history["chips_after"]), result.chips),
        ("bonus", list(history["bonus"]), result.bonus),
        ("keep_offer", history["keep_offer"], result.keep_offer),
        ("shown hands", shown, result.shown),
    ):
        if recorded != replayed:
            raise _mismatch(k, what, recorded, replayed)
    return result


def _replay_discards(history: dict[str, Any], game: BragGame, ids: dict[str, int]) -> None:
    """B22: apply the recorded discards (every seat dealt in, from the dealer's left) and
    check that they put aside the recorded cards."""
    k = history.get("hand_number", "?")
    discards = history.get("discards")
    if not isinstance(discards, list) or len(discards) != len(history["deal_order"]):
        raise ValueError(f"hand {k}: every seat dealt in must have a discard (B22)")
    for i, step in enumerate(discards):
        if game.current_player != step["seat"]:
            raise _mismatch(k, f"seat to discard at discard {i}", step["seat"], game.current_player)
        action = ids.get(step["action"], -1)
        if action < game.config.first_discard_action:
            raise ValueError(f"hand {k}: {step['action']!r} at discard {i} is not a discard")
        game.apply(action)
        replayed = format_cards(game.discards[step["seat"]], symbols=False)
        if step["cards"] != replayed:
            raise _mismatch(k, f"cards of discard {i}", step["cards"], replayed)


def replay_session(
    histories: Sequence[dict[str, Any]], config: BragConfig | dict[str, Any] | None = None
) -> list[HandResult]:
    """Replay every hand of a session and check the links between consecutive hands.

    ``config`` defaults to the first history's ``config``.
    """
    cfg = _as_config(config, histories[0] if histories else None)
    results = []
    prev: dict[str, Any] | None = None
    deck = _DeckModel(cfg.deck_cards())
    dealt_since = 0  # B18: cards dealt since the last shuffle
    for i, hist in enumerate(histories):
        if hist["hand_number"] != i:
            raise _mismatch(i, "hand number", hist["hand_number"], i)
        prial_before = prev is not None and _showed_prial(prev, cfg)
        _check_antes(hist, cfg, prial_before)
        # B18: shuffled before the first deal unless stacked, then after a shown prial or always,
        # or (the cycle option) once every card was dealt since the last shuffle.
        if i == 0:
            expected_shuffle = not hist.get("stacked", False)
        else:
            if hist.get("stacked", False):
                raise ValueError(f"hand {i}: only a session's opening deal can be stacked")
            expected_shuffle = bool(
                shuffle_due(cfg.shuffle_id, prial_before, dealt_since, cfg.deck_size)
            )
        if hist.get("shuffled") != expected_shuffle:
            raise ValueError(
                f"hand {i}: shuffled is {hist.get('shuffled')!r}, but B18 expects "
                f"{expected_shuffle} after the hand before it"
            )
        if prev is not None:
            if list(hist["chips_before"]) != list(prev["chips_after"]):  # B17
                raise _mismatch(i, "stacks carried over", hist["chips_before"], prev["chips_after"])
            dealer = _next_dealer(prev["dealer"], hist["sitting_out"], cfg.num_players)
            if hist["dealer"] != dealer:  # B7/B16
                raise _mismatch(i, "dealer", hist["dealer"], dealer)
            if hist.get("carried_in", 0) != prev.get("carried", 0):  # B15
                raise _mismatch(
                    i, "pot carried in", hist.get("carried_in", 0), prev.get("carried", 0)
                )
            expected_keep = None
            if prev["keep_offer"]:  # B19
                keeper = _keeper(prev)
                expected_keep = (keeper, _played_hand(prev, keeper))
            keep = hist.get("keep")
            got_keep = None if keep is None else (keep["seat"], keep["old_hand"])
            if got_keep != expected_keep:
                raise _mismatch(i, "kept blind hand", got_keep, expected_keep)
        results.append(replay_hand(hist, cfg))
        deck.play(hist, i == 0 or hist["shuffled"], cfg.cards_dealt)
        if i == 0 or hist["shuffled"]:
            dealt_since = 0
        dealt_since += cfg.cards_dealt * len(hist["deal_order"])
        prev = hist
    if prev is not None and prev.get("carried", 0):
        raise ValueError(f"hand {prev['hand_number']}: a pot carried out of the session (B15)")
    return results


def _deal(
    history: dict[str, Any], n: int, per: int = 3
) -> tuple[list[list[int]], tuple[int, list[int]] | None]:
    """The dealt hands (``per`` cards each, B22) and a pending B19 choice, checked for a
    possible deal (B9, B19)."""
    k = history.get("hand_number", "?")
    cards = history["cards"]
    if len(cards) != n:
        raise ValueError(f"hand {k}: cards for {len(cards)} seats, the table has {n}")
    dealt_in = set(history["deal_order"])
    dealt: list[list[int]] = []
    for seat, text in enumerate(cards):
        hand = parse_cards(text) if text is not None else []
        if len(hand) != (per if seat in dealt_in else 0):
            want = f"{per} cards" if seat in dealt_in else "no cards (it was not dealt in)"
            raise ValueError(f"hand {k}: seat {seat} must have {want}, got {text!r}")
        dealt.append(hand)
    keep = None
    every = [c for hand in dealt for c in hand]
    if history.get("keep") is not None:
        keep = (history["keep"]["seat"], parse_cards(history["keep"]["old_hand"]))
        if len(keep[1]) != 3:
            raise ValueError(f"hand {k}: the kept blind hand must have 3 cards")
        every += keep[1]
    if len(set(every)) != len(every):
        twice = sorted({format_card(c, symbols=False) for c in every if every.count(c) > 1})
        raise ValueError(f"hand {k}: card(s) {' '.join(twice)} dealt more than once")
    return dealt, keep


def _check_antes(hist: dict[str, Any], cfg: BragConfig, prial_before: bool | None) -> None:
    """B8: if an ante is due, every seat dealt in pays it; nobody else pays anything.

    ``prial_before`` is whether the previous hand's see showed a prial, ``None`` when unknown
    (a hand on its own: under ``"after_prial"`` a later hand may then have an ante or not).
    """
    k = hist.get("hand_number", "?")
    mode = cfg.ante_mode_id
    first = hist["hand_number"] == 0
    if prial_before is None:  # either case may have come before: both antes, if they differ
        choices = sorted({ante_due(mode, cfg.ante, first, seen) for seen in (False, True)})
    else:
        choices = [ante_due(mode, cfg.ante, first, prial_before)]
    dealt_in = set(hist["deal_order"])
    antes = list(hist["antes"])
    options = [[a if s in dealt_in else 0 for s in range(len(antes))] for a in choices]
    if antes not in options:
        expected = " or ".join(str(o) for o in options)
        raise ValueError(f"hand {k}: antes differ (recorded {antes}, B8 expects {expected})")


def _showed_prial(hist: dict[str, Any], cfg: BragConfig) -> bool:
    """Whether a prial was among the hands revealed at the see or in a B16 comparison (B8,
    B18); with wild cards, a prial reading counts (B25)."""
    if "shown" in hist:
        category = config_ranking(cfg).category
        return any(category(parse_cards(c)) == "prial" for c in hist["shown"].values())
    see = hist.get("see")
    return see is not None and "prial" in see["categories"].values()


def _keeper(hist: dict[str, Any]) -> int:
    """The seat offered the B19 choice after ``hist`` (the lone player, also when the pot
    carried under B15)."""
    return hist.get("keeper", hist["winner"])


class _DeckModel:
    """What the session's histories reveal about the deck order (B18).

    The deck is ``unknown`` (cards in some order nobody recorded) above ``known`` (the cards
    returned under the deck since the last shuffle, in the order they went there); ``out`` is a
    hand kept out of the deck under B19.
    """

    def __init__(self, pack: Sequence[int]) -> None:
        self.pack = frozenset(pack)  # B1: the cards of the deck (deck_ranks)
        self.unknown: set[int] = set()
        self.known: list[int] = []
        self.out: list[int] = []

    def play(self, hist: dict[str, Any], shuffled: bool, per: int = 3) -> None:
        k = hist["hand_number"]
        order = hist["deal_order"]
        hands = [parse_cards(c) if c is not None else [] for c in hist["cards"]]
        keep = hist.get("keep")
        if shuffled:  # every card in the deck is now in an unknown order
            self.unknown = set(self.pack) - set(self.out)
            self.known = []
        dealt = [hands[s][r] for r in range(per) for s in order]
        from_unknown = min(len(self.unknown), len(dealt))
        for i, card in enumerate(dealt):
            if i < from_unknown:
                if card not in self.unknown:
                    raise ValueError(
                        f"hand {k}: {format_card(card, symbols=False)} cannot be card {i + 1} "
                        "of the deal: it went under the deck in an earlier hand and cards not "
                        "dealt since the last shuffle still lie above it (B18)"
                    )
                self.unknown.discard(card)
            else:
                want = self.known[i - from_unknown]
                if card != want:
                    raise _mismatch(
                        k,
                        f"card {i + 1} of the deal (B18 deck order)",
                        format_card(card, symbols=False),
                        format_card(want, symbols=False),
                    )
        self.known = self.known[len(dealt) - from_unknown :]
        played = [list(h) for h in hands]
        if keep is not None:  # B19: the hand not chosen goes under the deck at once
            old = parse_cards(keep["old_hand"])
            seat = keep["seat"]
            if keep["choice"] == "keep_old_hand":
                self.known += hands[seat]
                played[seat] = old
            else:
                self.known += old
            self.out = []
        kept = _keeper(hist) if hist["keep_offer"] else -1
        # B18 (B22: the discards go back with their hand, in dealing order)
        self.known += [played[s][r] for r in range(per) for s in order if s != kept]
        if kept >= 0:
            self.out = played[kept]


def _played_hand(hist: dict[str, Any], seat: int) -> str | None:
    """The cards ``seat`` played: the dealt hand, or the old one it kept under B19."""
    keep = hist.get("keep")
    if keep is not None and keep["seat"] == seat and keep["choice"] == "keep_old_hand":
        return keep["old_hand"]
    return hist["cards"][seat]


def _next_dealer(dealer: int, sitting_out: Sequence[int], n: int) -> int:
    """B7/B16 (``rules.next_dealer``) with the sitting-out seats as a history lists them."""
    out = set(sitting_out)
    seat = next_dealer(dealer, [s in out for s in range(n)], n)
    if seat < 0:
        raise ValueError("no seat left to deal")
    return seat
