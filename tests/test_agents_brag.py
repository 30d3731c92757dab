"""Brag baselines: each style's documented behaviour on crafted observations.

Observations are written through the env's own named layout (``observation_layout(config)
.views``), so they are exactly what ``brag_v1`` would give a player in that situation.
"""

import numpy as np
import pytest

from agents import make_agent, table_info
from agents.brag import BragView
from brag_env.brag.hands import CATEGORY_NAMES, hand_category, hand_strength, strength_percentile
from brag_env.brag.observation import observation_layout
from brag_env.brag.rules import FOLD, LOOK, SEE, STAY, BragConfig
from brag_env.cards import parse_cards
from tests.env_turns import live_turns

RAISE = 4  # raise_2x with the default ladder
KEEP, TAKE = 5, 6
STATUS = {"folded": 1, "blind": 2, "open": 3}

WEAK = "2s 4h 7d"  # a low high card, bottom decile
PAIR = "5s 5h 9d"
FLUSH = "2h 7h Jh"
PRIAL = "Ks Kh Kd"
RUNNING_FLUSH = "Qs Ks As"


def craft(
    config: BragConfig,
    cards: str | None = None,
    others: tuple[str, ...] = ("blind", "blind", "blind"),
    stake: int = 2,
    pot: int = 4,
    chips: int = 199,
    history: tuple[tuple[int, int, int], ...] = (),
) -> np.ndarray:
    """One observation: ``cards`` None = still blind; ``history`` most recent first."""
    layout = observation_layout(config)
    buffer = np.zeros(layout.size, dtype=np.float32)
    v = layout.views(buffer)
    start = config.starting_chips
    if cards is not None:
        hand = parse_cards(cards)
        v["own_cards"][hand] = 1.0
        v["own_category"][CATEGORY_NAMES.index(hand_category(hand))] = 1.0
        v["own_strength"][0] = strength_percentile(hand_strength(hand))
    v["seat_status"][0, STATUS["blind" if cards is None else "open"]] = 1.0
    for row, status in enumerate(others, start=1):
        v["seat_status"][row, STATUS[status]] = 1.0
    v["seat_chips"][0] = chips / start
    v["stake"][0] = stake / config.max_stake
    v["pot"][0] = pot / start
    for k, (seat, action, paid) in enumerate(history):
        v["history_seat"][k, seat] = 1.0
        v["history_action"][k, action] = 1.0
        v["history_paid"][k] = paid / start
    return buffer


def mask(*legal: int, size: int = 8) -> np.ndarray:
    m = np.zeros(size, dtype=np.int8)
    m[list(legal)] = 1
    return m


BLIND_MASK = mask(FOLD, STAY, LOOK, RAISE)
OPEN_MASK = mask(FOLD, STAY, RAISE)
HEADS_UP_MASK = mask(FOLD, STAY, SEE, RAISE)
HEADS_UP = ("open", "folded", "folded")


@pytest.fixture(scope="module")
def config() -> BragConfig:
    return BragConfig()


def agent(spec: str, players: int = 4):
    return make_agent(spec, table_info("brag", num_players=players), seed=0)


def agent_for(config: BragConfig, spec: str):
    return make_agent(spec, table_info("brag", **config.to_dict()), seed=0)


def test_view_reads_the_crafted_fields(config):
    view = BragView(table_info("brag"))
    history = ((2, RAISE, 4), (0, STAY, 2), (1, RAISE, 4))
    view.load(
        craft(
            config,
            PAIR,
            others=("open", "blind", "folded"),
            stake=8,
            pot=30,
            chips=150,
            history=history,
        )
    )
    assert view.looked and not view.blind
    assert view.opponents == 2 and view.opponents_blind == 1
    assert (view.stake, view.pot, view.chips) == (8, 30, 150)
    assert view.raises_since_mine == 1  # only the raise after my stay counts
    assert view.strength == pytest.approx(strength_percentile(hand_strength(PAIR)), abs=1e-6)


def test_a_look_does_not_hide_earlier_raises(config):
    """LOOK does not end the turn (B10): raises before it still count as faced."""
    view = BragView(table_info("brag"))
    history = ((0, LOOK, 0), (1, RAISE, 4), (3, RAISE, 8), (0, STAY, 2))
    view.load(craft(config, PAIR, history=history))
    assert view.raises_since_mine == 2
    tips = agent("brag:tips")
    assert tips.act(craft(config, PAIR, history=history), OPEN_MASK) == FOLD


def test_b19_choice_takes_the_new_hand(config):
    for spec in ("brag:caller", "brag:tight", "brag:bluffer", "brag:blind", "brag:tips"):
        assert agent(spec).act(craft(config), mask(KEEP, TAKE)) == TAKE


def test_a_lone_legal_fold_is_played(config):
    for spec in ("brag:caller", "brag:tight", "brag:blind", "brag:tips"):
        assert agent(spec).act(craft(config, PRIAL), mask(FOLD)) == FOLD


def test_caller_looks_stays_and_sees(config):
    caller = agent("brag:caller")
    assert caller.act(craft(config), BLIND_MASK) == LOOK
    assert caller.act(craft(config, WEAK, stake=32, pot=200), OPEN_MASK) == STAY
    assert caller.act(craft(config, WEAK, others=HEADS_UP), HEADS_UP_MASK) == SEE


def test_tight_looks_folds_weak_raises_strong_sees_when_ahead(config):
    tight = agent("brag:tight")
    assert tight.act(craft(config), BLIND_MASK) == LOOK
    assert tight.act(craft(config, WEAK), OPEN_MASK) == FOLD
    assert tight.act(craft(config, PRIAL), OPEN_MASK) == RAISE
    assert tight.act(craft(config, PRIAL), mask(FOLD, STAY)) == STAY  # raise capped (B13)
    assert tight.act(craft(config, RUNNING_FLUSH, others=HEADS_UP), HEADS_UP_MASK) == SEE


def test_tight_thresholds_scale_with_the_number_of_opponents(config):
    """A pair is worth raising heads-up but only a stay against three, and a fold against seven."""
    tight = agent("brag:tight", players=8)
    eight = BragConfig(num_players=8)
    pair = "9s 9h 4d"
    assert tight.act(craft(eight, pair, others=("open",) + ("folded",) * 6), OPEN_MASK) == RAISE
    assert tight.act(craft(eight, pair, others=("open",) * 3 + ("folded",) * 4), OPEN_MASK) == STAY
    assert tight.act(craft(eight, pair, others=("open",) * 7), OPEN_MASK) == FOLD


def test_tight_sees_a_playable_hand_once_patience_runs_out(config):
    tight = agent("brag:tight")
    mid = craft(config, "Ks 9h 4d", others=HEADS_UP)  # a king high: playable, not a see at once
    assert [tight.act(mid, HEADS_UP_MASK) for _ in range(3)] == [STAY] * 3
    assert tight.act(mid, HEADS_UP_MASK) == SEE  # its own count of bets, not the history's
    tight.reset()
    assert tight.act(mid, HEADS_UP_MASK) == STAY


def test_the_bet_count_restarts_with_each_hand(config):
    """A new hand number, or fewer chips put in than before, starts the count again."""
    tight = agent("brag:tight")
    mid = "Ks 9h 4d"
    for _ in range(3):
        tight.act(craft(config, mid, others=HEADS_UP), HEADS_UP_MASK)
    assert tight.bets == 3
    layout = observation_layout(config)
    next_hand = craft(config, mid, others=HEADS_UP)
    layout.views(next_hand)["hand_number"][0] = 1.0
    assert tight.act(next_hand, HEADS_UP_MASK) == STAY and tight.bets == 1
    paid = craft(config, mid, others=HEADS_UP)
    layout.views(paid)["hand_number"][0] = 1.0
    layout.views(paid)["seat_chips_in"][0] = 9 / config.starting_chips
    tight.act(paid, HEADS_UP_MASK)
    tight.act(paid, HEADS_UP_MASK)
    assert tight.bets == 3
    fresh = craft(config, mid, others=HEADS_UP)  # chips put in fell back: another hand
    layout.views(fresh)["hand_number"][0] = 1.0
    assert tight.act(fresh, HEADS_UP_MASK) == STAY and tight.bets == 1


def test_bluffer_raises_weak_hands_at_its_bluff_probability(config):
    always, never = agent("brag:bluffer:bluff=1"), agent("brag:bluffer:bluff=0")
    assert always.act(craft(config), BLIND_MASK) == LOOK
    assert always.act(craft(config, WEAK), OPEN_MASK) == RAISE
    assert never.act(craft(config, WEAK), OPEN_MASK) == FOLD
    # A committed bluff gives up after bluff_bets bets and never sees.
    always.reset()
    weak = craft(config, WEAK, others=HEADS_UP)
    assert [always.act(weak, HEADS_UP_MASK) for _ in range(4)] == [RAISE] * 3 + [FOLD]


def test_bluffer_stops_after_bluff_bets_at_eight_players():
    """At 8 players the 16-event history holds about two of its own bets: it counts them itself."""
    from brag_env import brag_v1

    options = {"num_players": 8, "max_stake": 64}
    env = brag_v1.raw_env(**options)
    info = table_info("brag", **options)
    bluffer = make_agent("brag:bluffer:bluff=1,bluff_bets=3", info, seed=0)
    callers = [make_agent("brag:caller", info, seed=s) for s in range(1, 8)]
    bets_by_hand = []
    for episode in range(6):
        bluffer.reset()
        bets, folded = 0, False
        for seat, obs, action_mask in live_turns(env, [episode]):
            player = bluffer if seat == 0 else callers[seat - 1]
            action = player.act(obs, action_mask)
            if seat == 0 and not folded:
                bets += action in (STAY, RAISE)
                folded = action == FOLD
            env.step(action)
        bets_by_hand.append((bets, folded))
    # Seven callers never fold and never see at a full table: only the bluffer ends its hand.
    assert bets_by_hand == [(3, True)] * 6


def test_bluffer_bluffs_at_about_the_set_rate(config):
    bluffer = agent("brag:bluffer:bluff=0.3")
    raises = 0
    for _ in range(2000):
        bluffer.reset()  # a new hand each time
        raises += bluffer.act(craft(config, WEAK), OPEN_MASK) == RAISE
    assert 0.25 < raises / 2000 < 0.35


def test_blind_specialist_stays_blind_while_the_stake_is_low(config):
    blind = agent("brag:blind:blind_raise=0")
    assert blind.act(craft(config, stake=2), BLIND_MASK) == STAY
    assert blind.act(craft(config, stake=8), BLIND_MASK) == LOOK  # 4 x min_stake
    # It never sees blind; against an open opponent, who cannot see it (B14), it stays blind.
    blind_heads_up = ("blind", "folded", "folded")
    assert blind.act(craft(config, others=blind_heads_up), mask(FOLD, STAY, LOOK, SEE)) == STAY
    assert blind.act(craft(config, others=HEADS_UP), mask(FOLD, STAY, LOOK, SEE)) == STAY
    assert agent("brag:blind:blind_raise=1").act(craft(config), BLIND_MASK) == RAISE


def test_seed_tips_player_follows_the_advice(config):
    tips = agent("brag:tips:blind_raise=0")
    assert tips.act(craft(config, stake=4), BLIND_MASK) == STAY  # blind while cheap
    assert tips.act(craft(config, stake=8), BLIND_MASK) == LOOK  # then look and commit or fold
    assert tips.act(craft(config, WEAK), OPEN_MASK) == FOLD  # a high card only: fold
    assert tips.act(craft(config, PAIR), OPEN_MASK) == STAY  # pairs are playable
    scared = ((1, RAISE, 4), (3, RAISE, 8), (0, STAY, 2))
    assert tips.act(craft(config, PAIR, history=scared), OPEN_MASK) == FOLD  # strong early bets
    assert tips.act(craft(config, PAIR, stake=32, chips=100), OPEN_MASK) == FOLD  # not the stack
    assert tips.act(craft(config, FLUSH), OPEN_MASK) == RAISE  # not the table minimum
    assert tips.act(craft(config, PRIAL, pot=10), OPEN_MASK) == STAY  # slow-play a prial...
    assert tips.act(craft(config, PRIAL, pot=60), OPEN_MASK) == RAISE  # ...until the pot is big
    assert tips.act(craft(config, FLUSH, others=HEADS_UP), HEADS_UP_MASK) == SEE  # ahead: see


def test_seed_tips_player_slow_plays_a_prial_heads_up_too(config):
    tips = agent("brag:tips")
    assert tips.act(craft(config, PRIAL, others=HEADS_UP, pot=10), HEADS_UP_MASK) == STAY
    assert tips.act(craft(config, PRIAL, others=HEADS_UP, pot=60), HEADS_UP_MASK) == RAISE
    capped = mask(FOLD, STAY, SEE)  # the stake is at max_stake (B13)
    assert tips.act(craft(config, PRIAL, others=HEADS_UP, pot=60), capped) == SEE


def test_seed_tips_player_plays_blind_only_early_in_a_session():
    session = BragConfig(hands_per_session=10)
    tips = agent_for(session, "brag:tips:blind_raise=0")
    first = craft(session, stake=2)
    later = craft(session, stake=2)
    views = observation_layout(session).views
    views(later)["hand_number"][0] = 1 / 10
    assert tips.act(first, BLIND_MASK) == STAY
    assert tips.act(later, BLIND_MASK) == LOOK
    two = agent_for(session, "brag:tips:blind_raise=0,blind_hands=2")
    assert two.act(later, BLIND_MASK) == STAY


def test_baselines_only_play_legal_actions_in_real_games():
    """Every style, at tables of 2 to 8, picks a legal action at every decision."""
    from agents.tables import table_info_from_env
    from brag_env import brag_v0, brag_v1

    for players, module in ((2, brag_v1), (5, brag_v1), (8, brag_v1), (3, brag_v0)):
        env = module.raw_env(num_players=players, hands_per_session=3, starting_chips=30)
        info = table_info_from_env(env)
        specs = [
            "brag:caller",
            "brag:tight",
            "brag:bluffer",
            "brag:blind",
            "brag:tips",
            "brag:never_look:raise=0.3",
            "random",
        ]
        agents = [make_agent(specs[i % len(specs)], info, seed=i) for i in range(players)]
        for seat, obs, action_mask in live_turns(env, range(15)):
            action = agents[seat].act(obs, action_mask)
            assert action_mask[action] == 1
            env.step(action)


# ----------------------------------------------------------------------------- B16 covers
COVER = 7  # the cover action with the default ladder (brag_v1)
SHORT_OPEN = mask(FOLD, COVER)
SHORT_BLIND = mask(FOLD, LOOK, COVER)


@pytest.mark.parametrize("style", ["caller", "tight", "bluffer:bluff=0", "blind", "tips"])
def test_B16_every_style_covers_a_strong_hand_when_short(config, style):
    obs = craft(config, PRIAL, others=HEADS_UP, stake=16, pot=60, chips=5)
    assert agent(f"brag:{style}").act(obs, SHORT_OPEN) == COVER


@pytest.mark.parametrize("style", ["tight", "bluffer:bluff=0", "blind", "tips"])
def test_B16_styles_fold_a_weak_hand_rather_than_cover(config, style):
    obs = craft(config, WEAK, others=("open", "open", "open"), stake=16, pot=60, chips=5)
    assert agent(f"brag:{style}").act(obs, SHORT_OPEN) == FOLD


def test_B16_short_blind_styles_that_look_first_still_look(config):
    obs = craft(config, None, stake=16, pot=60, chips=5)
    assert agent("brag:tight").act(obs, SHORT_BLIND) == LOOK
    assert agent("brag:never_look").act(obs, SHORT_BLIND) == COVER


def test_never_look_stays_blind_and_raises_with_its_parameter(config):
    obs = craft(config, None)
    probe = agent("brag:never_look")
    assert {probe.act(obs, BLIND_MASK) for _ in range(50)} == {STAY}
    raiser = agent("brag:never_look:raise=0.5")
    assert {raiser.act(obs, BLIND_MASK) for _ in range(200)} == {STAY, RAISE}
    with pytest.raises(ValueError, match="raise"):
        agent("brag:never_look:raise=x")


def test_B16_coverers_count_in_the_equity(config):
    layout = observation_layout(config)
    obs = craft(config, PAIR, others=HEADS_UP)
    view = BragView(table_info("brag", num_players=4))
    view.load(obs)
    alone = view.equity()
    obs[layout.offset("seat_covered") + 2] = 1.0
    view.load(obs)
    assert view.coverers == 1 and view.equity() == pytest.approx(alone**2)


def test_tips_looks_once_the_pot_is_large(config):
    """ "Stay blind only while the pot justifies the risk": a low stake but a pot of 8 minimum
    stakes (16 chips) makes it look."""
    tips = agent("brag:tips:blind_raise=0")
    assert tips.act(craft(config, None, pot=14), BLIND_MASK) == STAY
    assert agent("brag:tips:blind_raise=0").act(craft(config, None, pot=16), BLIND_MASK) == LOOK


def test_tips_does_not_fold_a_committed_pair(config):
    """A pair folds when a stay costs more than max_share of the stack, unless the hand took
    more of its chips than it has left (the pot is committed): then it stays, or covers."""
    layout = observation_layout(config)
    obs = craft(config, PAIR, others=HEADS_UP, stake=8, pot=60, chips=20)
    assert agent("brag:tips").act(obs, OPEN_MASK) == FOLD
    obs[layout.offset("seat_chips_in")] = 30 / config.starting_chips
    assert agent("brag:tips").act(obs, OPEN_MASK) == STAY
    obs[layout.offset("seat_chips")] = 5 / config.starting_chips
    assert agent("brag:tips").act(obs, SHORT_OPEN) == COVER
