"""Put configuration, card ranking and action ids.

Rule IDs (P1..P9) refer to the project's rules document ``seeds/rules/put.md``.

Put ranks are indexed strongest first, the same order as the play actions (P1)::

    put rank   0  1  2  3  4  5  6   7  8  9  10 11 12
    card       3  2  A  K  Q  J  10  9  8  7  6  5  4

so a lower put rank wins a trick. Suits never matter in play.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from brag_env.cards import NUM_CARDS, NUM_SUITS, RANK_LABELS
from brag_env.config_checks import check_bool, check_choice, check_int, is_int, known_options

NUM_RANKS = 13
CARDS_PER_HAND = 3
TRICKS_PER_HAND = 3
MIN_PLAYERS, MAX_PLAYERS = 2, 4

# P1: rank labels strongest first; index = put rank.
RANK_NAMES: tuple[str, ...] = ("3", "2", "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4")


def _put_rank_of_card_rank(rank: int) -> int:
    """Map ``brag_env.cards`` rank (0..12 = 2..A) onto the put rank (0 = the 3, strongest)."""
    return RANK_NAMES.index(RANK_LABELS[rank])


# Put rank of every card 0..51 (a plain tuple: indexing it is the hot path).
PUT_RANK: tuple[int, ...] = tuple(_put_rank_of_card_rank(c // NUM_SUITS) for c in range(NUM_CARDS))

# Fixed action ids. play_<rank> and pass_<rank> are indexed by put rank.
PLAY = 0  # play_3 .. play_4 = 0 .. 12
PUT = 13
SEE = 14
FOLD = 15
PASS = 16  # pass_3 .. pass_4 = 16 .. 28 (P8 only)
PASS_NONE = PASS + NUM_RANKS  # 29: pass nothing (P8: four players, partner_exchange="optional")
NUM_ACTIONS = PASS_NONE + 1  # the full list; tables without an optional pass stop at pass_4

ACTION_NAMES: tuple[str, ...] = (
    *(f"play_{r}" for r in RANK_NAMES),
    "put",
    "see",
    "fold",
    *(f"pass_{r}" for r in RANK_NAMES),
    "pass_none",
)
_ACTION_BY_NAME = {name: i for i, name in enumerate(ACTION_NAMES)}

SeenPutPoints = int | Literal["game"]
RewardMode = Literal["match", "points"]
REWARD_MODES = ("match", "points")
PutAnswers = Literal["simultaneous", "in_turn"]
PUT_ANSWERS = ("simultaneous", "in_turn")
PartnerExchange = Literal["optional", "always"]
PARTNER_EXCHANGES = ("optional", "always")
# The original rules' values of options added later: a stored config that lacks a field was
# written before the field existed, so it was played under these (replays and put_v0).
LEGACY_OPTIONS: dict[str, str] = {"put_answers": "in_turn", "partner_exchange": "always"}


def action_id(name: str) -> int:
    """Action id of a name such as ``"play_K"``, ``"put"`` or ``"pass_10"``."""
    try:
        return _ACTION_BY_NAME[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown Put action {name!r}; actions are {', '.join(ACTION_NAMES)}"
        ) from None


@dataclass(frozen=True)
class PutConfig:
    """Every option of the Put rules. Defaults are the spec's defaults."""

    num_players: int = 2  # P2 (2), P7 (3), P8 (4, partnerships)
    target_points: int = 5  # P6
    seen_put_points: SeenPutPoints = 2  # P4: an int, or "game" (a seen Put takes the whole match)
    put_draw_to_opponent: bool = False  # P5: two players only
    reward: RewardMode = "match"  # read by the environment only: match result or hand points
    # P7, three players: both opponents answer a Put unseen by each other, or (the original
    # rules) in turn, the second asked only after the first folded.
    put_answers: PutAnswers = "simultaneous"
    # P8, four players: a player may pass nothing ("optional"), or must pass a card ("always",
    # the original rules). "pass_none" is in the action list only with four players, optional.
    partner_exchange: PartnerExchange = "optional"
    deck_ranks: int = NUM_RANKS  # the deck keeps the k best ranks of P1 (4 suits each)
    # Read by the observation only: append every event of this hand and the last, in order
    # (``brag_env.put.observation``); no rule changes.
    perfect_recall: bool = False

    def __post_init__(self) -> None:
        check_int(self, "num_players", MIN_PLAYERS, MAX_PLAYERS)
        check_int(self, "target_points", 1)
        spp = self.seen_put_points
        if spp != "game":
            if not is_int(spp) or spp < 1:
                raise ValueError(f'seen_put_points must be an integer >= 1 or "game", got {spp!r}')
            object.__setattr__(self, "seen_put_points", int(spp))
        check_bool(self, "put_draw_to_opponent")
        if self.put_draw_to_opponent and self.num_players != 2:
            raise ValueError(
                "put_draw_to_opponent is a two-player option (P5), "
                f"but num_players is {self.num_players}"
            )
        check_int(self, "deck_ranks", 1, NUM_RANKS)
        check_bool(self, "perfect_recall")
        need = CARDS_PER_HAND * self.num_players
        if self.deck_ranks * NUM_SUITS < need:
            raise ValueError(
                f"deck_ranks={self.deck_ranks} leaves {self.deck_ranks * NUM_SUITS} cards, too few "
                f"to deal {CARDS_PER_HAND} each to {self.num_players} players (P2)"
            )
        check_choice(self, "reward", REWARD_MODES)
        check_choice(self, "put_answers", PUT_ANSWERS)
        check_choice(self, "partner_exchange", PARTNER_EXCHANGES)

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None = None) -> PutConfig:
        """Build from keyword options; unknown keys raise ``ValueError`` naming them."""
        return cls(**known_options(cls, options, "Put"))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def num_actions(self) -> int:
        """Size of the action list: ``pass_none`` (the last id) only with an optional pass, so
        two and three players keep the 29 actions of the original rules."""
        return NUM_ACTIONS if self.optional_pass else PASS_NONE

    @property
    def simultaneous_answers(self) -> bool:
        """P7: two opponents answer a Put without seeing each other's answer."""
        return self.num_players == 3 and self.put_answers == "simultaneous"

    @property
    def optional_pass(self) -> bool:
        """P8: a partner may pass nothing."""
        return self.num_players == 4 and self.partner_exchange == "optional"

    @property
    def partnerships(self) -> bool:
        return self.num_players == 4

    @property
    def num_units(self) -> int:
        """Scoring units: the players, or the two sides in partnership play (P8)."""
        return 2 if self.num_players == 4 else self.num_players

    def deck_cards(self) -> tuple[int, ...]:
        """The card ids in the deck: every suit of the ``deck_ranks`` strongest ranks (P1)."""
        return tuple(c for c in range(NUM_CARDS) if PUT_RANK[c] < self.deck_ranks)

    def unit_of(self, seat: int) -> int:
        """The scoring unit of a seat: partners sit opposite, so side = seat % 2 (P8)."""
        return seat % 2 if self.num_players == 4 else seat


def loss_per_seat(num_players: int, points: Any) -> Any:
    """P7/P8: what each seat outside the scoring unit loses of a hand worth ``points``, so that
    a hand sums to zero: half with three players (two seats share the scorer's gain), all of
    it heads-up and in partnership play (one side against the other). ``points`` may be an
    int, a float or a numpy array (the batched engine's)."""
    return points / 2 if num_players == 3 else points


def hand_rewards(config: PutConfig, unit: int, points: int) -> list[float]:
    """Each seat's share of a scored hand, zero-sum: the scoring unit's seats get ``points``,
    the others lose ``loss_per_seat`` (split in two with three players, P7; both partners, P8)."""
    loss = -float(loss_per_seat(config.num_players, points))
    return [float(points) if config.unit_of(s) == unit else loss for s in range(config.num_players)]


def match_rewards(config: PutConfig, winners: list[int]) -> list[float]:
    """The match result per seat: +1 for each winning seat, -1 for each loser (-1/2 with
    three players, so the sum stays zero: ``loss_per_seat`` of one point)."""
    loss = -loss_per_seat(config.num_players, 1.0)
    return [1.0 if seat in winners else loss for seat in range(config.num_players)]
