"""The Put state machine: a whole match, hand after hand (rules P1-P8).

The state is plain Python ints and lists; ``apply`` is the only transition. Every decision
belongs to ``current_player`` and is one of the fixed action ids of ``brag_env.put.rules``.

Rulings where the spec leaves room (see ``seeds/rules/put.md``):

- A card is played or passed by rank. Holding two cards of one rank, the one with the lower
  card id (suits in the order spades, hearts, diamonds, clubs) goes first; suits never
  matter in play (P1), only in the hand history.
- A Put may be called at any turn to play, including before answering a lead; the trick in
  progress stays on the table and the caller then plays their card (P4).
- Three players (P7): the answers come from the caller's left. With
  ``put_answers="simultaneous"`` (default) both opponents always answer; the first answer is
  held back (in no observation, render or record) until the second is in, then both take
  effect at once. With ``"in_turn"`` (the original rules) the first SEE ends the answering. Either
  way a player who folded plays on with full rights (may win the hand) when the other saw, and
  both folding ends the hand with 1 point to the caller.
- Four players (P8): the caller's left-hand opponent answers for their side. The pass is
  chosen in turn, starting left of the dealer; a player's choice is private until all four have
  chosen, then the cards move to the partners at once. With ``partner_exchange="optional"``
  (default) a player may choose ``pass_none``; two partners swap only if both chose a card,
  otherwise each keeps the card chosen. Whether each side swapped is public (cards are seen
  crossing the table); the card itself is not.
- With ``seen_put_points="game"`` the winner of a seen Put is credited with the points they
  still lack, so their score reads exactly ``target_points`` (P6).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from brag_env.cards import NUM_CARDS, Deck, format_card, parse_deck
from brag_env.clone import StateCopier
from brag_env.config_checks import is_int
from brag_env.put.rules import (
    ACTION_NAMES,
    CARDS_PER_HAND,
    FOLD,
    LEGACY_OPTIONS,
    NUM_RANKS,
    PASS,
    PASS_NONE,
    PLAY,
    PUT,
    PUT_RANK,
    RANK_NAMES,
    SEE,
    TRICKS_PER_HAND,
    PutConfig,
    action_id,
)

PHASE_PASS, PHASE_PLAY, PHASE_ANSWER, PHASE_OVER = 0, 1, 2, 3
PHASE_NAMES = ("pass", "play", "answer", "over")

# Why a hand ended, as written in the hand history.
RESULT_TRICKS = "tricks"  # played out, one unit took more tricks (P5)
RESULT_FOLD = "fold"  # a Put was folded (P4)
RESULT_DRAWN = "drawn"  # played out with no unit ahead (P5)
RESULT_DRAW_TO_OPPONENT = "draw_to_opponent"  # drawn after a seen Put, option of P5

# The public facts of the last finished hand: plays (trick, seat, put rank), trick results
# (leader, winner or -1), Put caller or -1, Put seen, seats that folded, scoring unit or -1,
# points. Only cards played face up are in it: after a folded Put the rest stays unknown.
LastHand = tuple[list[tuple[int, int, int]], list[tuple[int, int]], int, bool, list[int], int, int]

_PUT_AVAILABLE_BIT = 1 << NUM_RANKS
_ANSWER_KEY = 1 << (NUM_RANKS + 1)
_PASS_BIT = 1 << (NUM_RANKS + 2)


class HandRecord:
    """Everything that happened in one hand, kept compact; ``to_dict`` gives the JSON form."""

    __slots__ = (
        "actions",
        "answers",
        "config",
        "dealer",
        "deck",
        "num_players",
        "number",
        "put_caller",
        "put_trick",
        "put_turn",
        "result",
        "scores_after",
        "scores_before",
        "tricks",
    )

    def __init__(
        self, number: int, config: PutConfig, dealer: int, deck: list[int], scores: list[int]
    ) -> None:
        self.number = number  # 0-based, as the engine counts; the JSON form counts from 1
        self.config = config  # the rules the hand was played under
        self.num_players = config.num_players
        self.dealer = dealer
        self.deck = deck  # the cards in the order they were dealt
        self.scores_before = scores
        self.actions: list[tuple[int, int, int]] = []  # (seat, action id, card or -1)
        self.tricks: list[tuple[int, list[tuple[int, int]], int]] = []  # leader, plays, winner
        self.put_caller = -1
        self.put_trick = -1
        self.put_turn = -1  # cards already played to that trick when the Put came (0: the lead)
        self.answers: list[tuple[int, int]] = []  # (seat, SEE or FOLD)
        self.result: tuple[str, int, int] = ("", -1, 0)  # reason, scoring unit or -1, points
        self.scores_after: list[int] = []

    def copy(self) -> HandRecord:
        """A record of the hand so far that the game's next actions leave alone (its lists
        copied; the deck, the config and the tuples in the lists never change)."""
        other = HandRecord.__new__(HandRecord)
        for name in HandRecord.__slots__:
            value = getattr(self, name)
            setattr(other, name, value[:] if value.__class__ is list else value)
        return other

    def to_dict(self) -> dict:
        """JSON-serialisable hand history. Seats are absolute; cards are text like ``"Th"``.

        ``deal`` lists each seat's cards as received (seat order from the dealer's left is the
        deal order); ``deck`` is the dealt cards in order, so ``reset(options={"deck": ...,
        "dealer": ...})`` deals this hand again. Scores are per scoring unit: the players, or
        with four players the sides (0 = seats 0 and 2, 1 = seats 1 and 3). ``config`` is the
        full ``PutConfig`` as a dict, so ``replay_hand`` needs nothing else.
        """
        n = self.num_players
        first = (self.dealer + 1) % n
        deal: list[list[str]] = [[] for _ in range(n)]
        for i in range(n):
            deal[(first + i) % n] = [_card_text(c) for c in self.deck[i::n]]
        reason, unit, points = self.result
        put = None
        if self.put_caller >= 0:
            put = {
                "caller": self.put_caller,
                "trick": self.put_trick + 1,
                "answers": [{"seat": s, "answer": ACTION_NAMES[a]} for s, a in self.answers],
                "seen": any(a == SEE for _, a in self.answers),
            }
        return {
            "hand": self.number + 1,  # the stored format counts hands from 1 (read_hand_number)
            "num_players": n,
            "config": self.config.to_dict(),
            "dealer": self.dealer,
            "scores_before": list(self.scores_before),
            "deck": [_card_text(c) for c in self.deck],
            "deal": deal,
            "actions": [
                {"seat": s, "action": ACTION_NAMES[a]} | ({"card": _card_text(c)} if c >= 0 else {})
                for s, a, c in self.actions
            ],
            "put": put,
            "tricks": [
                {
                    "leader": leader,
                    "cards": [{"seat": s, "card": _card_text(c)} for s, c in plays],
                    "winner": winner if winner >= 0 else None,
                    "tied": winner < 0,
                }
                for leader, plays, winner in self.tricks
            ],
            "result": {
                "reason": reason,
                "unit": unit if unit >= 0 else None,
                "points": points,
            },
            "scores_after": list(self.scores_after),
        }


def _card_text(card: int) -> str:
    return format_card(card, symbols=False)


class PutGame:
    """A Put match. Call ``new_session`` to start one, then ``apply`` each decision of
    ``current_player``."""

    def __init__(self, config: PutConfig | None = None, deal_between_hands: bool = True) -> None:
        """``deal_between_hands=False``: a finished hand that does not end the match leaves the
        game waiting (``awaiting_deal``, nobody to act) until ``deal_next_hand`` gives the next
        hand's cards; for a driver that owns the chance, such as the OpenSpiel game."""
        self.config = config if config is not None else PutConfig()
        self.deal_between_hands = deal_between_hands
        self.awaiting_deal = False
        cfg = self.config
        self.n = cfg.num_players
        self.num_units = cfg.num_units
        self.unit_of = tuple(cfg.unit_of(s) for s in range(self.n))
        self.target = cfg.target_points
        self.num_actions = cfg.num_actions
        self._simultaneous = cfg.simultaneous_answers
        self._optional_pass = cfg.optional_pass
        self._mask_cache: dict[int, np.ndarray] = {}
        # The cards of a short deck (deck_ranks < 13); None: the full pack, dealt as before.
        self._deck = list(cfg.deck_cards()) if cfg.deck_ranks < NUM_RANKS else None
        self.rng: np.random.Generator = np.random.default_rng()
        self.phase = PHASE_OVER
        self.current_player = -1
        self.winner = -1  # scoring unit that won the match
        self.scores: list[int] = [0] * self.num_units
        self.dealer = 0
        self.hand_number = -1  # 0-based; -1 before the first match
        self.cut: list[list[tuple[int, int]]] = []
        self.records: list[HandRecord] = []
        self.last_hand: LastHand | None = None
        self.last_record: HandRecord | None = None  # the last finished hand (history may drop it)
        self._mask: np.ndarray = self._build_mask(-1)
        self._init_hand_state()

    def copy(self) -> PutGame:
        """An independent copy of the match in its current state, for tree walks and exploit
        tools (much cheaper than a deep copy): the lists, the generator and the record of the
        hand in play are copied (:class:`brag_env.clone.StateCopier`); finished records, the
        last hand's facts (once a new hand is dealt), the config and the read-only masks never
        change and are shared, as is the mask cache (a memo of pure results)."""
        other = PutGame.__new__(PutGame)
        twin = StateCopier()
        state = {name: twin(value) for name, value in self.__dict__.items()}
        state["_mask_cache"] = self._mask_cache
        record = self.record
        if record is not None and record is not self.last_record:  # the hand still in play
            state["record"] = record.copy()
        last = self.last_hand
        if last is not None and last[0] is self.plays:
            # The hand just ended (waiting for a deal, or the match over): its lists are still
            # the game's own, so the copy's last hand holds the copy's lists (the copier made
            # them once), as the original's holds its own. Once the next hand has new lists,
            # the last hand's never change and the tuple is shared.
            state["last_hand"] = tuple(twin(value) for value in last)
        other.__dict__.update(state)
        return other

    # ----------------------------------------------------------------- match
    def new_session(
        self,
        rng: np.random.Generator,
        deck: str | Sequence[int | str] | None = None,
        dealer: int | None = None,
        scores: Sequence[int] | None = None,
        hand_number: int = 0,
    ) -> None:
        """Start a match.

        ``deck`` stacks the top of the first hand's deck (card text or a list of cards, top card
        first, dealt per P2); the rest of that deck and every later hand come from ``rng``. As
        every hand is dealt from a fresh shuffle (P2), the stack holds at most one hand's cards
        (3 per player). Anything else is a one-line ``ValueError`` naming ``deck``.
        ``dealer`` fixes the first dealer instead of the seeded cut. ``scores`` (whole points
        per scoring unit) and ``hand_number`` (0-based, the first hand's number) resume a match
        part-way, which is how hand histories are replayed.
        """
        n = self.n
        top = None
        if deck is not None:
            top = parse_deck(deck)
            if len(top) > CARDS_PER_HAND * n:
                raise ValueError(
                    f"deck: a stacked deck covers the first hand only, so it holds at most "
                    f"{CARDS_PER_HAND * n} cards with {n} players (P2: later hands are "
                    f"shuffled afresh), got {len(top)}"
                )
            outside = [c for c in top if PUT_RANK[c] >= self.config.deck_ranks]
            if outside:
                raise ValueError(
                    f"deck: {format_card(outside[0], symbols=False)} is not in a deck of the "
                    f"top {self.config.deck_ranks} ranks (deck_ranks)"
                )
        if dealer is not None and (not is_int(dealer) or not 0 <= dealer < n):
            raise ValueError(f"dealer must be a seat number 0..{n - 1}, got {dealer!r}")
        if scores is None:
            start_scores = [0] * self.num_units
        else:
            start_scores = list(scores)
            if len(start_scores) != self.num_units or any(
                not is_int(s) or not 0 <= s < self.target for s in start_scores
            ):
                raise ValueError(
                    f"scores must hold {self.num_units} integers in 0..{self.target - 1}, "
                    f"got {start_scores!r}"
                )
            start_scores = [int(s) for s in start_scores]
        if not is_int(hand_number) or hand_number < 0:
            raise ValueError(f"hand_number must be an integer >= 0, got {hand_number!r}")
        self.rng = rng
        self.scores = start_scores
        self.winner = -1
        self.records = []
        self.last_hand = None
        self.last_record = None
        self.awaiting_deal = False
        self.cut = []
        self.dealer = int(dealer) if dealer is not None else self._cut_for_dealer()
        self.hand_number = int(hand_number) - 1
        self._start_hand(top)

    @property
    def session_over(self) -> bool:
        """Whether the match is finished (or none has started): ``new_session()`` starts one,
        as Brag's ``session_over`` says of its session. A hand waiting to be dealt
        (``awaiting_deal``) leaves nobody to act too, but the match goes on."""
        return self.phase == PHASE_OVER and not self.awaiting_deal

    def _cut_for_dealer(self) -> int:
        """P2: everyone cuts; the lowest card by P1 deals; the players tied for lowest cut again."""
        cutters = list(range(self.n))
        while True:
            cards = self.rng.permutation(NUM_CARDS)[: len(cutters)].tolist()
            self.cut.append(list(zip(cutters, cards, strict=True)))
            lowest = max(PUT_RANK[c] for c in cards)
            cutters = [s for s, c in zip(cutters, cards, strict=True) if PUT_RANK[c] == lowest]
            if len(cutters) == 1:
                return cutters[0]

    # ------------------------------------------------------------------ hand
    def _init_hand_state(self) -> None:
        n = self.n
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.counts: list[list[int]] = [[0] * NUM_RANKS for _ in range(n)]
        self.bits: list[int] = [0] * n  # bit r set while the seat holds put rank r
        self.trick_no = 0
        self.leader = 0
        self.trick: list[tuple[int, int, int]] = []  # (seat, put rank, card) in play order
        self.plays: list[tuple[int, int, int]] = []  # (trick, seat, put rank) this hand
        self.trick_results: list[tuple[int, int]] = []  # (leader, winning seat or -1 if tied)
        self.tricks_won: list[int] = [0] * n
        self.put_caller = -1
        self.put_seen = False
        self.put_folded: list[int] = []
        self._responders: tuple[int, ...] = ()
        self._answer_index = 0
        self._held_answer = -1  # P7 simultaneous: the first answer, not yet in effect
        self.pass_choice: list[int] = [-1] * n  # put rank chosen to pass (P8)
        self.pass_card: list[int] = [-1] * n
        self.received: list[int] = [-1] * n  # put rank received from the partner
        self.exchanged: list[bool] = [False, False]  # per side: the partners swapped (P8)
        self._passes_made = 0
        self.record: HandRecord | None = None

    def _start_hand(self, top: list[int] | None = None) -> None:
        """P2: a freshly shuffled deck; 3 cards each, one at a time, from the dealer's left."""
        self._init_hand_state()
        self.hand_number += 1
        n = self.n
        if self._deck is not None:  # deck_ranks < 13: a short deck, shuffled the same way
            rest = self._deck if top is None else [c for c in self._deck if c not in top]
            order = self.rng.permutation(len(rest)).tolist()
            dealt = ([] if top is None else list(top)) + [rest[i] for i in order]
            dealt = dealt[: CARDS_PER_HAND * n]
        elif top is not None:
            dealt = Deck.stacked(top, self.rng).deal_many(CARDS_PER_HAND * n)
        else:
            # The same cards as Deck.shuffled(rng).deal_many(k), without building the whole deck.
            dealt = self.rng.permutation(NUM_CARDS)[: CARDS_PER_HAND * n].tolist()
        first = (self.dealer + 1) % n
        hands, counts, bits = self.hands, self.counts, self.bits
        for i, card in enumerate(dealt):
            seat = (first + i) % n
            r = PUT_RANK[card]
            hands[seat].append(card)
            counts[seat][r] += 1
            bits[seat] |= 1 << r
        self.record = HandRecord(
            self.hand_number, self.config, self.dealer, dealt, list(self.scores)
        )
        self.leader = first  # P3/P7/P8: the seat on the dealer's left opens the hand
        self.current_player = first  # P8: the pass is also chosen in turn from the dealer's left
        self.phase = PHASE_PASS if self.config.partnerships else PHASE_PLAY
        self._refresh_mask()

    # ----------------------------------------------------------- transitions
    def apply(self, action: int) -> tuple[int, int] | None:
        """Apply ``current_player``'s decision. Returns ``(unit, points)`` when a hand scores.

        An illegal action raises ``ValueError`` and leaves the state unchanged.
        """
        p = self.current_player
        phase = self.phase
        if phase == PHASE_PLAY:
            if 0 <= action < NUM_RANKS and self.counts[p][action]:
                return self._play(p, action)
            if action == PUT and self.put_caller < 0:
                self._call_put(p)
                return None
        elif phase == PHASE_ANSWER:
            if self._simultaneous and (action in (SEE, FOLD)):
                return self._answer_unseen(p, action)
            if action == SEE:
                self._see(p)
                return None
            if action == FOLD:
                return self._fold(p)
        elif phase == PHASE_PASS:
            if PASS <= action < PASS_NONE and self.counts[p][action - PASS]:
                self._choose_pass(p, action - PASS)
                return None
            if action == PASS_NONE and self._optional_pass:
                self._choose_pass(p, -1)
                return None
        else:
            raise ValueError("the match is over: start a new one with new_session()")
        raise ValueError(self._illegal_message(action))

    def _illegal_message(self, action: object) -> str:
        name = (
            ACTION_NAMES[action]
            if isinstance(action, int) and 0 <= action < self.num_actions
            else f"{action!r} (not an action id 0..{self.num_actions - 1})"
        )
        legal = ", ".join(ACTION_NAMES[a] for a in self.legal_actions())
        why = ""
        if self.phase == PHASE_PLAY and action == PUT:
            why = " (P4: only one Put per hand)"
        elif self.phase == PHASE_PLAY and isinstance(action, int) and PLAY <= action < NUM_RANKS:
            why = f" (player {self.current_player} holds no {RANK_NAMES[action]})"
        return (
            f"illegal action {name} for player {self.current_player} in the "
            f"{PHASE_NAMES[self.phase]} phase{why}; legal: {legal}"
        )

    def _take_card(self, p: int, r: int) -> int:
        """Remove and return one card of put rank r from p's hand (lowest card id first)."""
        hand = self.hands[p]
        card = NUM_CARDS
        for c in hand:
            if c < card and PUT_RANK[c] == r:
                card = c
        hand.remove(card)
        counts = self.counts[p]
        counts[r] -= 1
        if not counts[r]:
            self.bits[p] &= ~(1 << r)
        return card

    def _give_card(self, p: int, card: int) -> None:
        r = PUT_RANK[card]
        self.hands[p].append(card)
        self.counts[p][r] += 1
        self.bits[p] |= 1 << r

    def _choose_pass(self, p: int, r: int) -> None:
        """P8: choose a card face down (r = put rank, -1 = pass nothing); the cards move only
        once all four have chosen, and only between partners who both chose one."""
        if r >= 0:
            self.pass_choice[p] = r
            self.pass_card[p] = min(c for c in self.hands[p] if PUT_RANK[c] == r)
            self.record.actions.append((p, PASS + r, self.pass_card[p]))
        else:
            self.record.actions.append((p, PASS_NONE, -1))
        self._passes_made += 1
        if self._passes_made < self.n:
            self.current_player = (p + 1) % self.n
        else:
            choice, card = self.pass_choice, self.pass_card
            for side in (0, 1):
                a, b = side, side + 2
                if card[a] < 0 or card[b] < 0:
                    continue  # one of them passes nothing: both keep their cards
                self.exchanged[side] = True
                self._take_card(a, choice[a])
                self._take_card(b, choice[b])
                self._give_card(b, card[a])
                self._give_card(a, card[b])
                self.received[b], self.received[a] = choice[a], choice[b]
            self.phase = PHASE_PLAY
            self.current_player = self.leader
        self._refresh_mask()

    def _play(self, p: int, r: int) -> tuple[int, int] | None:
        card = self._take_card(p, r)
        self.trick.append((p, r, card))
        self.plays.append((self.trick_no, p, r))
        self.record.actions.append((p, PLAY + r, card))
        if len(self.trick) < self.n:
            self.current_player = (p + 1) % self.n  # P3/P7/P8: seat order from the leader
            self._refresh_mask()
            return None
        return self._finish_trick()

    def _finish_trick(self) -> tuple[int, int] | None:
        """P3/P7/P8: the top rank wins; a tie for it leaves the trick to nobody."""
        trick = self.trick
        best = NUM_RANKS
        top: list[int] = []
        for s, r, _ in trick:
            if r < best:
                best = r
                top = [s]
            elif r == best:
                top.append(s)
        if self.config.partnerships:
            # P8: both partners on top still win for their side; the first of them leads next.
            winner = top[0] if len({s & 1 for s in top}) == 1 else -1
        else:
            winner = top[0] if len(top) == 1 else -1
        self.trick_results.append((self.leader, winner))
        self.record.tricks.append((self.leader, [(s, c) for s, _, c in trick], winner))
        if winner >= 0:
            self.tricks_won[winner] += 1
            self.leader = winner  # a tied trick's leader leads again (P3)
        self.trick = []
        self.trick_no += 1
        if self.trick_no == TRICKS_PER_HAND:
            return self._score_played_out()
        self.current_player = self.leader
        self._refresh_mask()
        return None

    def _call_put(self, p: int) -> None:
        """P4: the opponents must answer at once, in turn from the caller's left (P7, P8)."""
        self.put_caller = p
        n = self.n
        self._responders = ((p + 1) % n, (p + 2) % n) if n == 3 else ((p + 1) % n,)
        self._answer_index = 0
        rec = self.record
        rec.put_caller = p
        rec.put_trick = self.trick_no
        rec.put_turn = len(self.trick)
        rec.actions.append((p, PUT, -1))
        self.phase = PHASE_ANSWER
        self.current_player = self._responders[0]
        self._refresh_mask()

    def _answer_unseen(self, p: int, action: int) -> tuple[int, int] | None:
        """P7 simultaneous: hold the first answer back; the second puts both into effect, in
        the order given (so the record reads as if they were answered in turn)."""
        if self._held_answer < 0:
            self._held_answer = action
            self._answer_index = 1
            self.current_player = self._responders[1]
            self._refresh_mask()  # the same answer mask: nothing tells the first answer
            return None
        first, second = self._responders
        rec = self.record
        answers = ((first, self._held_answer), (second, action))
        for seat, answer in answers:
            rec.answers.append((seat, answer))
            rec.actions.append((seat, answer, -1))
            if answer == FOLD:
                self.put_folded.append(seat)
        if self._held_answer == FOLD and action == FOLD:
            return self._end_hand(RESULT_FOLD, self.unit_of[self.put_caller], 1)
        self.put_seen = True
        self.phase = PHASE_PLAY
        self.current_player = self.put_caller
        self._refresh_mask()
        return None

    def _see(self, p: int) -> None:
        self.put_seen = True
        self.record.answers.append((p, SEE))
        self.record.actions.append((p, SEE, -1))
        self.phase = PHASE_PLAY
        self.current_player = self.put_caller  # the caller now plays the card the Put came before
        self._refresh_mask()

    def _fold(self, p: int) -> tuple[int, int] | None:
        self.put_folded.append(p)
        self.record.answers.append((p, FOLD))
        self.record.actions.append((p, FOLD, -1))
        self._answer_index += 1
        if self._answer_index < len(self._responders):
            self.current_player = self._responders[self._answer_index]
            self._refresh_mask()
            return None
        return self._end_hand(RESULT_FOLD, self.unit_of[self.put_caller], 1)

    def _score_played_out(self) -> tuple[int, int] | None:
        """P5 (and P7/P8): a unit with more tricks than every other unit scores."""
        won = self.tricks_won
        if self.config.partnerships:
            won = [won[0] + won[2], won[1] + won[3]]
        best = max(won)
        if best > 0 and won.count(best) == 1:
            unit = won.index(best)
            points = 1
            if self.put_seen:
                spp = self.config.seen_put_points
                points = self.target - self.scores[unit] if spp == "game" else spp
            return self._end_hand(RESULT_TRICKS, unit, points)
        if self.put_seen and self.config.put_draw_to_opponent:
            return self._end_hand(RESULT_DRAW_TO_OPPONENT, 1 - self.put_caller, 1)
        return self._end_hand(RESULT_DRAWN, -1, 0)

    def _end_hand(self, reason: str, unit: int, points: int) -> tuple[int, int] | None:
        if unit >= 0:
            self.scores[unit] += points
        rec = self.record
        rec.result = (reason, unit, points)
        rec.scores_after = list(self.scores)
        self.records.append(rec)
        self.last_record = rec
        # What everyone saw of this hand, kept for the observations of the next one. The lists
        # are handed over, not copied: the next hand starts with new ones (_init_hand_state).
        self.last_hand = (
            self.plays,
            self.trick_results,
            self.put_caller,
            self.put_seen,
            self.put_folded,
            unit,
            points,
        )
        if unit >= 0 and self.scores[unit] >= self.target:  # P6: the first to the target wins
            self.winner = unit
            self.phase = PHASE_OVER
            self.current_player = -1
            self._mask = self._build_mask(-1)
            return unit, points
        self.dealer = (self.dealer + 1) % self.n  # P2/P7: the deal passes to the left
        if self.deal_between_hands:
            self._start_hand()
        else:
            self.awaiting_deal = True
            self.phase = PHASE_OVER
            self.current_player = -1
            self._mask = self._build_mask(-1)
        return (unit, points) if unit >= 0 else None

    def deal_next_hand(self, cards: Sequence[int]) -> None:
        """Deal the next hand of a game made with ``deal_between_hands=False`` from ``cards``
        (card ids in deal order, 3 per player, P2)."""
        if not self.awaiting_deal:
            raise ValueError("deal_next_hand: no hand is waiting to be dealt")
        top = parse_deck(list(cards))
        if len(top) != CARDS_PER_HAND * self.n or any(
            PUT_RANK[c] >= self.config.deck_ranks for c in top
        ):
            raise ValueError(
                f"deal_next_hand: give {CARDS_PER_HAND * self.n} cards of the top "
                f"{self.config.deck_ranks} ranks, got {list(cards)!r}"
            )
        self.awaiting_deal = False
        self._start_hand(top)

    # ---------------------------------------------------------------- masks
    def _refresh_mask(self) -> None:
        phase = self.phase
        if phase == PHASE_PLAY:
            key = self.bits[self.current_player] | (
                _PUT_AVAILABLE_BIT if self.put_caller < 0 else 0
            )
        elif phase == PHASE_ANSWER:
            key = _ANSWER_KEY
        else:
            key = self.bits[self.current_player] | _PASS_BIT
        mask = self._mask_cache.get(key)
        if mask is None:
            mask = self._mask_cache[key] = self._build_mask(key)
        self._mask = mask

    def _build_mask(self, key: int) -> np.ndarray:
        """The int8 legal-action mask for a cache key (-1: nobody may act)."""
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if key == _ANSWER_KEY:
            mask[SEE] = mask[FOLD] = 1
        elif key >= 0:
            base = PASS if key & _PASS_BIT else PLAY
            for r in range(NUM_RANKS):
                if key >> r & 1:
                    mask[base + r] = 1
            if key & _PUT_AVAILABLE_BIT:
                mask[PUT] = 1
            if key & _PASS_BIT and self._optional_pass:
                mask[PASS_NONE] = 1
        mask.setflags(write=False)
        return mask

    def legal_mask(self) -> np.ndarray:
        """The int8 legal-action mask of the seat to act, one entry per action id (read-only
        and shared between equal states; all zero when nobody is to act)."""
        return self._mask

    def legal_actions(self) -> list[int]:
        """The legal action ids of the seat to act, ascending."""
        return np.flatnonzero(self._mask).tolist()

    # ---------------------------------------------------------------- views
    def seat_scores(self) -> list[int]:
        """Each seat's score (with partnerships, its side's)."""
        return [self.scores[u] for u in self.unit_of]

    def winners(self) -> list[int]:
        """Seats that won the match (both partners with four players); empty while it runs."""
        if self.winner < 0:
            return []
        return [s for s in range(self.n) if self.unit_of[s] == self.winner]

    def history(self) -> list[dict]:
        """JSON-serialisable histories of the hands finished in this match."""
        return [rec.to_dict() for rec in self.records]


# Options that change how a hand is played or scored; ``reward`` is the environment's only.
RULE_FIELDS = (
    "num_players",
    "target_points",
    "seen_put_points",
    "put_draw_to_opponent",
    "put_answers",
    "partner_exchange",
    "deck_ranks",
)


def stored_config(stored: dict[str, Any]) -> PutConfig:
    """The ``PutConfig`` of a hand history's ``config``; a field it lacks predates the option,
    so the hand was played under the original rules (``LEGACY_OPTIONS``)."""
    return PutConfig.from_dict({**LEGACY_OPTIONS, **stored})


def read_hand_number(record: Mapping[str, Any]) -> int:
    """The engine's 0-based number of a hand history's hand. The stored ``hand`` counts from 1
    (the format of the files already written, kept as it is); the engines count from 0."""
    number = record["hand"]
    if not is_int(number) or number < 1:
        raise ValueError(f"hand must be an integer >= 1 in a hand history, got {number!r}")
    return int(number) - 1


def replay_hand(record: dict[str, Any], config: PutConfig | None = None) -> dict[str, Any]:
    """Deal ``record``'s hand again and apply its actions; returns the new hand history.

    The rules come from the history's own ``config``. A ``config`` given here must agree with
    it on every rule (``RULE_FIELDS``; the reward mode may differ), else ``ValueError`` names
    the fields. A history without ``config`` (written before the rules were stored in it)
    needs ``config``, and the result then leaves ``config`` out too, so that it still equals
    ``record`` when the history is consistent with the rules. Raises ``ValueError`` if an
    action is illegal or made out of turn.
    """
    stored = record.get("config")
    if stored is not None:
        own = stored_config(stored)
        if config is None:
            config = own
        else:
            differ = [f for f in RULE_FIELDS if getattr(config, f) != getattr(own, f)]
            if differ:
                diffs = ", ".join(
                    f"{f}={getattr(config, f)!r} (history: {getattr(own, f)!r})" for f in differ
                )
                raise ValueError(f"the given config disagrees with the hand history: {diffs}")
    elif config is None:
        raise ValueError(
            "this hand history holds no rules (no 'config' key): pass the PutConfig it was "
            "played under as config="
        )
    if config.num_players != record["num_players"]:
        raise ValueError(
            f"num_players of the config ({config.num_players}) differs from the history's "
            f"({record['num_players']})"
        )
    game = PutGame(config)
    game.new_session(
        np.random.default_rng(0),  # unused: the deck holds every dealt card
        deck=record["deck"],
        dealer=record["dealer"],
        scores=record["scores_before"],
        hand_number=read_hand_number(record),
    )
    for i, step in enumerate(record["actions"]):
        if game.records:
            raise ValueError(f"the hand ended before action {i} ({step})")
        if step["seat"] != game.current_player:
            raise ValueError(
                f"action {i} ({step}) is by seat {step['seat']}, but seat "
                f"{game.current_player} is to act"
            )
        game.apply(action_id(step["action"]))
    if not game.records:
        raise ValueError("the actions do not finish the hand")
    again = game.records[0].to_dict()
    if stored is None:
        del again["config"]
    return again
