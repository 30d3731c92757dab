"""Random-play invariants of ``brag_v1`` and ``put_v1`` (not in CI: minutes, not seconds).

Plays ``brag_v1`` and ``put_v1`` (raw envs: each game's default env in the game table, as
``Fuzz.make`` takes it) with uniformly random legal actions, over rule configs drawn at
random. Brag: 2-8 players, antes and ante modes, stakes, raise sizes, pot
limit, sessions, every B18 shuffle (``after_prial_or_cycle`` included), B15 carried pots
(``blind_alone`` / ``unopened_pot`` "wins" | "carries"), B16 covering (``cover_pot``), B19-B21
options and B22 Four-/Five-card Brag (``cards_dealt`` 3, 4 or 5; 4 and 5 with
``allow_blind=False``). Put: 2-4 players, targets, seen-put points, reward modes,
``put_answers`` (3 players) and ``partner_exchange`` (4 players). It checks at every decision:

* the acting seat's mask is never empty and equals the engine's legal actions;
* Brag: chips + pot (a carried pot included) equal the table's starting chips; at each hand's
  end chips + the pot carried to the next deal do, the hand's deltas sum to the chips carried
  in minus the chips carried out, the step's rewards are the deltas, and each episode's total
  reward is zero. Put: every step's rewards sum to zero, scores only grow, by the points the
  hand history records;
* no hidden card leaks into the acting seat's observation. Brag: its own cards appear only
  once it has looked (B10); ``shown_cards`` is the engine's list and holds only cards shown in
  a finished hand of the session (at a see or in a B16 cover comparison); ``prev_shown_cards``
  is exactly the previous hand's seer's and seen player's hands. B22: ``own_discards`` is the
  seat's own discards, after its discard its kept cards and discards are its deal, and no
  other seat's discard is in its own cards, discards or ``shown_cards``. Put: its ``hand`` view
  is its own cards, every card in the ``played`` view is a card that seat played face up this
  hand, and with simultaneous answers (P7) the second answerer's observation and mask are the
  same whether the first answer was see or fold (checked on twin copies of the game).

Usage::

    python bench/invariants.py                     # 1,000,000 decisions per game, seed 0
    python bench/invariants.py --decisions 50000 --game put --seed 3
    python bench/invariants.py --game brag --variant b22       # Four-/Five-card Brag only
    python bench/invariants.py --game brag --brag-options cards_dealt=4,allow_blind=false
    python bench/invariants.py --game put --put-options num_players=3,put_answers=simultaneous

``--brag-options`` / ``--put-options`` fix options of the random draw (``a|b``: one of these
values per config; ``2/3``: a tuple, for ``raise_sizes``); ``--variant b22`` is
``cards_dealt=4|5,allow_blind=false``. Prints, per game, the decisions, hands and episodes
played (Brag: hands per ``cards_dealt``), the failures (0 expected; the first few are
described) and the time; the exit status is 1 if any check failed.

Last runs (a shared 2-core machine, under load from a test suite; wall clock)::

    --game brag --variant b22 --decisions 1050000 --seed 0: 1,050,702 decisions, 113,401 hands
      (55,013 of 4 cards, 58,388 of 5), 6,614 episodes, 0 failures, 444 s
    --game both --decisions 100000 --seed 1: Brag 100,038 decisions, 14,416 hands, 0 failures,
      60 s; Put 100,006 decisions, 10,396 hands, 0 failures, 24 s

(docs/hardening.md, "Fuzzing and invariants", has the details.)
"""

from __future__ import annotations

import argparse
import copy
import importlib
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from brag_env.brag.game import OPEN
from brag_env.brag.observation import observation_layout
from brag_env.games import GAME_NAMES, game_spec
from brag_env.put.rules import FOLD as PUT_FOLD
from brag_env.put.rules import NUM_RANKS, PUT_RANK
from brag_env.put.rules import SEE as PUT_SEE


def brag_options(rnd: random.Random) -> dict[str, Any]:
    min_stake = rnd.choice([2, 4, 10])
    cards_dealt = rnd.choice([3, 3, 4, 5])
    return {
        "num_players": rnd.randint(2, 8),
        "ante": rnd.choice([0, 1, 2, 5]),
        "ante_mode": rnd.choice(["every_hand", "after_prial", "none"]),
        "allow_blind": cards_dealt == 3 and rnd.random() < 0.8,  # B22 needs allow_blind=False
        "min_stake": min_stake,
        "raise_sizes": rnd.choice([(2,), (2, 3), (4, 2), (3,)]),
        "max_stake": min_stake * rnd.choice([1, 4, 16, 100]),
        "pot_limit": rnd.random() < 0.3,
        "blind_may_see_open": rnd.random() < 0.7,
        "blind_alone": rnd.choice(["wins", "carries"]),
        "unopened_pot": rnd.choice(["wins", "carries"]),
        "cover_pot": rnd.random() < 0.8,
        "hands_per_session": rnd.choice([1, 5, 20, 100]),
        "starting_chips": rnd.choice([10, 40, 200]),
        "shuffle": rnd.choice(["after_prial", "every_hand", "after_prial_or_cycle"]),
        "blind_keep_hand": rnd.random() < 0.7,
        "prial_bonus": rnd.choice([0, 0, 5]),
        "lowball": rnd.random() < 0.2,
        "cards_dealt": cards_dealt,
    }


def put_options(rnd: random.Random) -> dict[str, Any]:
    return {
        "num_players": rnd.choice([2, 3, 4]),
        "target_points": rnd.choice([1, 5, 7]),
        "seen_put_points": rnd.choice([2, "game"]),
        "reward": rnd.choice(["match", "points"]),
        "put_answers": rnd.choice(["simultaneous", "in_turn"]),  # read with 3 players only
        "partner_exchange": rnd.choice(["optional", "always"]),  # read with 4 players only
    }


def parse_options(text: str) -> dict[str, Any]:
    """``k=v,k=v`` -> options; ``a|b`` draws one of the values per config, ``2/3`` a tuple."""
    options: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        options[key.strip()] = tuple(_value(v) for v in value.split("|"))
    return options


def _value(text: str) -> Any:
    text = text.strip()
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if "/" in text:
        return tuple(int(v) for v in text.split("/"))
    try:
        return int(text)
    except ValueError:
        return text


def restricted(draw: Any, fixed: dict[str, tuple[Any, ...]]) -> Any:
    """The random draw, with the options of ``fixed`` drawn from their given values only."""

    def options(rnd: random.Random) -> dict[str, Any]:
        drawn = draw(rnd)
        drawn.update({key: rnd.choice(values) for key, values in fixed.items()})
        return drawn

    return options


class Checker:
    """Counts decisions and failures; keeps the first few failures' descriptions."""

    def __init__(self) -> None:
        self.failures: Counter[str] = Counter()
        self.examples: list[str] = []
        self.simultaneous = 0  # P7 simultaneous answers checked against their twin
        self.carried = self.covered = 0  # Brag hands that carried their pot (B15) / had a cover

    def check(self, ok: bool, what: str, detail: str) -> None:
        if not ok:
            self.failures[what] += 1
            if len(self.examples) < 5:
                self.examples.append(f"{what}: {detail}")


def _live_turns(env: Any) -> Iterator[tuple[str, int]]:
    """(agent, seat) of each live decision until the episode ends, a terminated agent stepped
    past; the caller steps the env (or returns) before asking for the next."""
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent]:
            env.step(None)
            continue
        yield agent, env._seat[agent]


def _common(env: Any, agent: str, checker: Checker, where: str) -> np.ndarray:
    mask = env.observe(agent)["action_mask"]
    legal = np.flatnonzero(mask)
    checker.check(legal.size > 0, "empty mask", where)
    checker.check(legal.tolist() == env.game.legal_actions(), "mask != legal actions", where)
    return legal


def _zero_sum(env: Any, checker: Checker, where: str) -> None:
    total = sum(env.rewards.values())
    checker.check(abs(total) < 1e-9, "rewards not zero-sum", f"{where}: {env.rewards}")


def _cards(view: np.ndarray) -> set[int]:
    return set(np.flatnonzero(view > 0.5).tolist())


def brag_episode(env: Any, seed: int, rnd: random.Random, checker: Checker) -> tuple[int, int]:
    env.reset(seed=seed)
    game, config = env.game, env.config
    total = config.num_players * config.starting_chips
    layout = observation_layout(config)
    b22 = config.cards_dealt > 3
    decisions = 0
    episode_reward = 0.0
    ever_shown: set[int] = set()  # every card shown at a see or a cover comparison this session
    for agent, seat in _live_turns(env):
        where = f"brag seed {seed} hand {game.hand_number} decision {decisions}"
        checker.check(sum(game.chips) + game.pot == total, "chips not conserved", where)
        legal = _common(env, agent, checker, where)
        v = layout.views(env.observe(agent)["observation"])
        looked = game.status[seat] == OPEN or (not config.allow_blind and len(game.hands[seat]) > 0)
        own = set(game.hands[seat]) if looked else set()
        own_seen = _cards(v["own_cards"])
        blind_clean = looked or not (v["own_category"].any() or v["own_strength"].any())
        checker.check(
            own_seen == own and blind_clean,
            "own cards shown wrongly",
            f"{where}: seat {seat} looked: {looked}",
        )
        # Cards shown at sees and cover comparisons: the table's list, and only cards that were
        # shown in a finished hand of this session (none of the hands now on the table).
        shown = _cards(v["shown_cards"])
        checker.check(shown == set(game.shown_cards), "shown cards differ from the table's", where)
        checker.check(shown <= ever_shown, "a card in shown_cards never shown", where)
        previous = game.previous_result
        rows = [set(), set()]
        if previous is not None and previous.by_see:
            rows = [set(previous.shown[previous.seer]), set(previous.shown[previous.seen])]
        seen = [_cards(row) for row in v["prev_shown_cards"]]
        checker.check(seen == rows, "previous hand's shown cards leak or differ", where)
        if b22:
            mine = set(game.discards[seat])
            discards = _cards(v["own_discards"])
            checker.check(discards == mine, "own_discards is not the own discards", where)
            if mine:
                dealt = set(game._dealt[seat])
                checker.check(
                    own_seen | discards == dealt and not own_seen & discards and len(own_seen) == 3,
                    "kept cards + discards are not the deal",
                    where,
                )
            others: set[int] = set()
            for s, cards in enumerate(game.discards):
                if s != seat:
                    others |= set(cards)
            visible = own_seen | discards | (shown - ever_shown) | seen[0] | seen[1]
            checker.check(
                not others & (own_seen | discards | (shown - ever_shown)),
                "another seat's discard in the observation",
                f"{where}: {sorted(others & visible)}",
            )
            checker.check(
                v["discard_pending"][0] == float(game.discarding), "discard_pending wrong", where
            )
        if legal.size == 0:
            return decisions, len(game.hand_results)
        results = len(game.hand_results)
        env.step(int(legal[rnd.randrange(legal.size)]))
        decisions += 1
        step_total = sum(env.rewards.values())
        episode_reward += step_total
        expected = 0
        for result in game.hand_results[results:]:
            deltas = result.deltas
            moved = result.carried_in - result.carried  # B15: a carried pot stays on the table
            expected += moved
            checker.check(
                sum(deltas) == moved, "hand deltas != carried in - carried", f"{where}: {deltas}"
            )
            checker.check(
                sum(result.chips) + result.carried == total,
                "chips + carried pot not conserved",
                f"{where}: {result.chips} + {result.carried}",
            )
            for cards in result.shown.values():
                ever_shown |= set(cards)
            checker.carried += result.carried > 0
            checker.covered += bool(result.covers)
        if len(game.hand_results) == results + 1:
            rewards = [env.rewards.get(a, 0.0) for a in env.possible_agents]
            checker.check(
                rewards == [float(d) for d in game.hand_results[-1].deltas],
                "rewards differ from the hand's deltas",
                where,
            )
        checker.check(abs(step_total - expected) < 1e-9, "step rewards != chips moved", f"{where}")
    checker.check(
        abs(episode_reward) < 1e-9, "episode rewards not zero-sum", f"seed {seed}: {episode_reward}"
    )
    return decisions, len(game.hand_results)


def put_episode(env: Any, seed: int, rnd: random.Random, checker: Checker) -> tuple[int, int]:
    env.reset(seed=seed)
    game = env.game
    n = game.n
    decisions = 0
    scores = list(game.scores)
    for agent, seat in _live_turns(env):
        # The hand as its history record and the screens number it, from 1 (the engine's from 0)
        where = f"put seed {seed} hand {game.hand_number + 1} decision {decisions}"
        legal = _common(env, agent, checker, where)
        views = env.observer.views  # filled by the observe() above, for this seat
        own = np.bincount([PUT_RANK[c] for c in game.hands[seat]], minlength=NUM_RANKS)
        checker.check(np.array_equal(views["hand"], own), "hand view is not the own hand", where)
        played = {((s - seat) % n, PUT_RANK[c]) for s, a, c in game.record.actions if a < NUM_RANKS}
        marks = {(int(s), int(r)) for _, s, r in zip(*np.nonzero(views["played"]), strict=True)}
        checker.check(marks <= played, "a card in 'played' that was not played", where)
        if legal.size == 0:
            return decisions, len(game.records)
        if (
            game._simultaneous
            and game._held_answer < 0
            and {PUT_SEE, PUT_FOLD} <= set(legal.tolist())
        ):
            # P7 simultaneous: the second answerer's view must not depend on the first answer.
            views = []
            for answer in (PUT_SEE, PUT_FOLD):
                twin = copy.deepcopy(game)
                twin.apply(answer)
                obs = env.observer.set_from(twin, twin.current_player).copy()
                views.append((twin.current_player, obs, np.array(twin.legal_mask())))
            (a1, o1, m1), (a2, o2, m2) = views
            env.observer.set_from(game, seat)  # the views below read the acting seat again
            checker.check(
                a1 == a2 and np.array_equal(o1, o2) and np.array_equal(m1, m2),
                "the held first answer shows in the second answerer's view",
                where,
            )
            checker.simultaneous += 1
        env.step(int(legal[rnd.randrange(legal.size)]))
        decisions += 1
        _zero_sum(env, checker, where)
        now = list(game.scores)
        grew = all(b >= a for a, b in zip(scores, now, strict=True))
        if now != scores and game.records:
            record = game.records[-1]
            _, unit, points = record.result
            expected = list(scores)
            if unit >= 0:
                expected[unit] += points
            checker.check(now == expected, "scores differ from the recorded points", where)
        checker.check(grew, "a score went down", f"{where}: {scores} -> {now}")
        scores = now
    return decisions, len(game.records)


class Variant(NamedTuple):
    """A named restriction of one game's draw (``--variant``)."""

    help: str
    options: Mapping[str, Any]  # a value, or a tuple of values to draw one from per config


@dataclass(frozen=True)
class Fuzz:
    """What the checks of one game are; its ``game`` is a name of the game table
    (brag_env/games.py), which orders the games and names them on the command line."""

    game: str
    draw: Callable[[random.Random], dict[str, Any]]  # a random rules config
    episode: Callable[[Any, int, random.Random, Checker], tuple[int, int]]
    #: ``--variant`` name -> what it plays and the options it fixes.
    variants: Mapping[str, Variant] = field(default_factory=dict)
    #: The config option whose value the hands are counted by, or "" for none.
    hands_by: str = ""
    #: The game's own lines of the report, from the checker's counts.
    report: Callable[[Checker], list[str]] = lambda checker: []

    @property
    def make(self) -> Callable[..., Any]:
        """The raw env from the drawn options: the game's default env in the game table."""
        return importlib.import_module(game_spec(self.game).env_module).raw_env


FUZZERS: dict[str, Fuzz] = {
    game_spec(fuzz.game).name: fuzz  # a name the table does not know fails here
    for fuzz in (
        Fuzz(
            "brag",
            brag_options,
            brag_episode,
            variants={
                "b22": Variant(
                    "Four- and Five-card Brag only", {"cards_dealt": (4, 5), "allow_blind": False}
                )
            },
            hands_by="cards_dealt",
            report=lambda checker: [
                f"  hands that carried the pot: {checker.carried:,}, "
                f"with a cover: {checker.covered:,}"
            ],
        ),
        Fuzz("put", put_options, put_episode),
    )
}
#: The games with checks, in the table's order.
CHECKED = tuple(name for name in GAME_NAMES if name in FUZZERS)
VARIANTS = {name: fuzz for fuzz in FUZZERS.values() for name in fuzz.variants}


class OptionsError(ValueError):
    """A table the fixed options (``--<game>-options``) make invalid: a usage error."""


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def run(game: str, decisions: int, seed: int, fixed: dict[str, tuple[Any, ...]]) -> bool:
    rnd = random.Random(seed)
    checker = Checker()
    fuzz = FUZZERS[game]
    done = hands = episodes = 0
    by_option: Counter[Any] = Counter()
    start = time.perf_counter()
    options = restricted(fuzz.draw, fixed)
    while done < decisions:
        drawn = options(rnd)
        try:
            env = fuzz.make(**drawn)
        except ValueError as e:  # only a fixed option can make the table refuse its draw
            raise OptionsError(f"--{game}-options: {e}") from None
        for _ in range(20):  # a few episodes per config
            played, finished = fuzz.episode(env, rnd.randrange(2**31), rnd, checker)
            done, hands, episodes = done + played, hands + finished, episodes + 1
            if fuzz.hands_by:
                by_option[getattr(env.config, fuzz.hands_by)] += finished
            if done >= decisions:
                break
    seconds = time.perf_counter() - start
    failed = sum(checker.failures.values())
    print(
        f"{game}: {done:,} decisions, {hands:,} hands, {episodes:,} episodes, "
        f"{failed} failures, {seconds:.0f} s"
    )
    if checker.simultaneous:
        print(f"  simultaneous first answers checked (see/fold twins): {checker.simultaneous:,}")
    for line in fuzz.report(checker):
        print(line)
    if by_option:
        print(
            f"  hands by {fuzz.hands_by}: "
            + ", ".join(f"{k}: {v:,}" for k, v in sorted(by_option.items()))
        )
    for what, count in checker.failures.items():
        print(f"  {count} x {what}")
    for example in checker.examples:
        print(f"  e.g. {example}")
    return failed == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Random-play invariants of both games.")
    parser.add_argument("--decisions", type=_positive, default=1_000_000, help="per game")
    parser.add_argument("--game", choices=[*CHECKED, "both"], default="both")
    parser.add_argument("--seed", type=int, default=0)
    for i, game in enumerate(CHECKED):
        parser.add_argument(
            f"--{game}-options",
            default="",
            help=(
                f"fix {game_spec(game).title} options: k=v,k=v (a|b: one of these per config; "
                "2/3: a tuple)"
                if i == 0
                else f"fix {game_spec(game).title} options, as --{CHECKED[0]}-options"
            ),
        )
    parser.add_argument(
        "--variant",
        choices=sorted(VARIANTS),
        help="; ".join(
            f"{name}: {fuzz.variants[name].help}" for name, fuzz in sorted(VARIANTS.items())
        ),
    )
    args = parser.parse_args(argv)
    games = list(CHECKED) if args.game == "both" else [args.game]
    fixed = {game: parse_options(getattr(args, f"{game}_options")) for game in CHECKED}
    if args.variant:
        owner = VARIANTS[args.variant]
        fixed[owner.game] = {
            **{
                k: v if isinstance(v, tuple) else (v,)
                for k, v in owner.variants[args.variant].options.items()
            },
            **fixed[owner.game],
        }
    try:
        ok = [run(game, args.decisions, args.seed, fixed[game]) for game in games]
    except OptionsError as e:
        parser.error(str(e))
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
