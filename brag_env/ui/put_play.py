"""A human's Put match(es) against agents, in the terminal.

The human's screen is built from that seat's observation (``put_v1.decode_observation``). The
events everybody sees (cards played, Puts and answers) are read from the engine's public record
of the hand as they happen; a card passed to a partner (P8) is shown only to the human who passed
it. At the end of a hand its public parts are shown: every card played, the Put, the points.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.panel import Panel
from rich.text import Text

from brag_env import put_v1
from brag_env.ui.put_view import SeatCards, hand_result, rank_order_text, table_view, unit_name
from brag_env.ui.seating import Seating
from brag_env.ui.session import TableSession
from brag_env.ui.terminal import Prompter, plural, verb
from brag_env.ui.turns import PutNews, put_decision


def match_seed(seed: int, match: int) -> int:
    """The reset seed of match ``match`` (from 0) of a table seeded with ``seed``.

    The first match is dealt from ``seed`` itself; each later one from its own seed derived
    from both, so the ``reset_seed`` saved with a hand deals that hand's match again.
    """
    if match == 0:
        return seed
    return int(np.random.SeedSequence([seed, match]).generate_state(1)[0]) % (2**31 - 1)


class PutSession(TableSession):
    """``matches`` matches to ``target_points`` (P6) with the human at ``seating.human``."""

    def __init__(
        self,
        seating: Seating,
        options: dict[str, Any],
        seed: int,
        matches: int,
        prompter: Prompter,
    ) -> None:
        if matches < 1:
            raise ValueError(f"--matches must be at least 1, got {matches}")
        self._open_table(seating, put_v1, options, seed, prompter)
        self.matches = matches
        self.news = PutNews(self.config, self.names, self.human)
        self.wins = [0] * self.config.num_units
        self.matches_done = 0
        self.hands_done = 0

    def intro(self) -> None:
        cfg = self.config
        n = self.seating.num_players
        sides = ""
        if cfg.partnerships:
            partner = (self.human + 2) % n
            sides = f" in partnerships: your partner is {self.names[partner]}, opposite you"
        self.console.print(
            f"[bold]Put[/]: {n} players{sides}, first to {cfg.target_points} points wins a "
            f"match, {plural(self.matches, 'match', 'matches')}, seed {self.seed} (play this "
            f"table again with --seed {self.seed})."
        )
        self.console.print(Text(self.seating.who_is_who()))
        self.console.print(Text(rank_order_text()))

    def _announce_hand(self, match: int) -> None:
        self.news.new_hand()
        game = self.game
        self.console.print()
        self.console.rule(
            f"[bold]Match {match + 1} of {self.matches} · hand {game.hand_number + 1}[/] · "
            f"dealer {self.names[game.dealer]}"
        )

    def _ask_human(self, obs: dict[str, np.ndarray]) -> int:
        cards = SeatCards.of(self.game, self.human)
        decision = put_decision(obs, self.config, cards)
        self.console.print(
            Panel(
                table_view(
                    decision.view,
                    self.human,
                    self.names,
                    self.config,
                    self.game.hand_number + 1,  # shown from 1
                    cards=cards,
                ),
                title="Your turn",
                title_align="left",
            )
        )
        return self._choose(decision)

    def _end_of_hand(self, match: int, record: dict[str, Any]) -> None:
        self.hands_done += 1
        self.console.print(
            Panel(
                hand_result(record, self.names, self.config),
                title=f"Match {match + 1} · hand {record['hand']}",
                title_align="left",
            )
        )
        self.history.write(record, match, match_seed(self.seed, match))

    def _tally(self) -> str:
        units = range(self.config.num_units)
        return " · ".join(f"{unit_name(u, self.names, self.config)} {self.wins[u]}" for u in units)

    def _play_match(self, match: int) -> None:
        env, game = self.env, self.game
        # Every match is reset with its own seed (the one its hands record).
        self._reset_table(match_seed(self.seed, match))
        self._announce_hand(match)
        for name, _, agent in self._live_turns():
            obs = env.observe(name)
            if agent is None:
                action = self._ask_human(obs)
            else:
                action = int(agent.act(obs["observation"], obs["action_mask"]))
            finished = len(game.records)
            env.step(action)
            news, record = self.news.after_step(game, finished)
            self._print_news(news)
            if record is None:
                continue
            self._end_of_hand(match, record)
            if game.session_over:
                break
            self.prompter.pause("Press Enter for the next hand (q to leave the table): ")
            self._announce_hand(match)
        winner = game.winner
        self.wins[winner] += 1
        self.matches_done += 1
        won = game.unit_of[self.human] == winner
        who = unit_name(winner, self.names, self.config)
        self.console.print(
            f"Match {match + 1} is over: {who} reached {self.config.target_points} points "
            f"and {verb(who, 'win')}.",
            style="bold green" if won else "bold red",
        )
        if match + 1 < self.matches:
            self.console.print(
                f"Matches won so far ({self.matches_done} of {self.matches}): {self._tally()}"
            )

    def run(self) -> str:
        for match in range(self.matches):
            if match:
                self.prompter.pause("Press Enter for the next match (q to leave the table): ")
            self._play_match(match)
        played = plural(self.matches, "match", "matches")
        return f"Session over: {'all ' if self.matches > 1 else ''}{played} played"

    def summary(self, reason: str) -> None:
        cfg = self.config
        self.console.print()
        self.console.rule(f"[bold]{reason}[/]")
        self.console.print(
            f"Matches won after {plural(self.matches_done, 'match', 'matches')} and "
            f"{plural(self.hands_done, 'hand')}: "
            f"{self._tally()}"
        )
        if not self.game.session_over and self.hands_done:
            units = range(cfg.num_units)
            score = " · ".join(
                f"{unit_name(u, self.names, cfg)} {self.game.scores[u]}" for u in units
            )
            self.console.print(f"Unfinished match, score: {score}")
