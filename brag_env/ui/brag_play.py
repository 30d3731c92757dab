"""A human's Brag session against agents, in the terminal.

The human's screen is built from that seat's observation (``brag_v1.decode_observation``), never
from the engine's hidden state. What everybody at the table sees anyway is read from the
engine's public record: each betting event as it happens (``game.betting``), the stacks and who
sits out (B16), and, when a hand ends, the public parts of its hand history (winner, see, shown
hands, chip changes).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.panel import Panel
from rich.text import Text

from brag_env import brag_v1
from brag_env.ui.brag_view import hand_result, standings, table_view
from brag_env.ui.seating import Seating
from brag_env.ui.session import TableSession
from brag_env.ui.terminal import Prompter, plural
from brag_env.ui.turns import brag_decision, brag_news

DEFAULT_HANDS = 10


class BragSession(TableSession):
    """One session of ``hands_per_session`` hands with the human at ``seating.human``."""

    default_hands = DEFAULT_HANDS  # without --hands or hands_per_session

    def __init__(
        self, seating: Seating, options: dict[str, Any], seed: int, prompter: Prompter
    ) -> None:
        self._open_table(seating, brag_v1, options, seed, prompter)
        self.hands_done = 0

    # ------------------------------------------------------------------ views
    def _human_view(self) -> dict[str, Any]:
        obs = self.env.observe(self.human_agent)
        return brag_v1.decode_observation(obs["observation"], self.config)

    def intro(self) -> None:
        cfg = self.config
        name = {3: "Three", 4: "Four", 5: "Five"}[cfg.cards_dealt]  # B22
        self.console.print(
            f"[bold]{name}-Card Brag[/]: {self.seating.num_players} players, "
            f"{plural(cfg.hands_per_session, 'hand')}, {cfg.starting_chips} chips each, "
            f"seed {self.seed} "
            f"(play this table again with --seed {self.seed})."
        )
        self.console.print(Text(self.seating.who_is_who()))

    def _announce_hand(self) -> None:
        view = self._human_view()
        n = self.config.num_players
        dealer = next(
            (self.human + row["relative_seat"]) % n for row in view["seats"] if row["dealer"]
        )
        self.console.print()
        self.console.rule(
            f"[bold]Hand {view['hand_number'] + 1} of {self.config.hands_per_session}[/] · "
            f"dealer {self.names[dealer]}"
        )
        if view["pot"]:
            self.console.print(f"Antes are in: the pot holds {view['pot']}.")
        else:
            self.console.print("No ante is due this hand: the pot starts empty.")

    def _ask_human(self, obs: dict[str, np.ndarray]) -> int:
        decision = brag_decision(obs, self.config)
        view = decision.view
        self.console.print(
            Panel(
                table_view(view, self.human, self.names, self.seating.players, self.config),
                title=f"Your turn · hand {view['hand_number'] + 1}",
                title_align="left",
            )
        )
        return self._choose(decision)

    def _end_of_hand(self, record: dict[str, Any]) -> None:
        """Show a finished hand's public record and the running totals; save it."""
        self.hands_done += 1
        hps = self.config.hands_per_session
        self.console.print(
            Panel(
                hand_result(record, self.names, self.config.lowball),
                title=f"Hand {record['hand_number'] + 1} of {hps}",
                title_align="left",
            )
        )
        if not self.game.session_over:  # the summary shows the last standings
            self.console.print(
                standings(
                    record["chips_after"],
                    self.config.starting_chips,
                    self.names,
                    f"Chips after hand {record['hand_number'] + 1} of {hps}",
                )
            )
        self.history.write(record, 0, self.seed)

    def _why_it_ended(self) -> str:
        """The reason of a session that ended by the rules, in one line."""
        hps = self.config.hands_per_session
        if self.hands_done >= hps:
            return f"Session over: {'all ' if hps > 1 else ''}{plural(hps, 'hand')} played"
        out = self.game.sitting_out
        left = [self.names[s] for s in range(self.config.num_players) if s not in out]
        who = " and ".join(left) if left else "nobody"
        return (
            f"Session over after {self.hands_done} of {plural(hps, 'hand')}: only {who} can "
            "still pay the ante"
        )

    # ------------------------------------------------------------------ loop
    def run(self) -> str:
        env, game = self.env, self.game
        self._reset_table(self.seed)
        self._announce_hand()
        for name, seat, agent in self._live_turns():
            obs = env.observe(name)
            if agent is None:
                action = self._ask_human(obs)
            else:
                action = int(agent.act(obs["observation"], obs["action_mask"]))
            finished = len(game.hand_results)
            env.step(action)
            news, record = brag_news(
                game, self.config, seat, action, finished, self.names, self.human
            )
            self._print_news(news)
            if record is None:
                continue
            self._end_of_hand(record)
            if game.session_over:
                break
            if self.human in game.sitting_out:
                chips = game.chips[self.human]
                held = (
                    f"only {chips} chips, less than the ante of {self.config.ante}"
                    if chips
                    else "no chips left"
                )
                self.console.print(
                    f"[bold red]You have {held}: you sit out the rest of the session.[/]"
                )
                return "You sit out: you leave the table, the others play on"
            self.prompter.pause("Press Enter for the next hand (q to leave the table): ")
            self._announce_hand()
        return self._why_it_ended()

    def summary(self, reason: str) -> None:
        """Final standings, from the last finished hand (chips in an unfinished pot excluded)."""
        cfg = self.config
        records = self.game.history()
        chips = records[-1]["chips_after"] if records else [cfg.starting_chips] * cfg.num_players
        over = self.game.session_over
        self.console.print()
        self.console.rule(f"[bold]{reason}[/]")
        title = "Final chips" if over else "Chips when you left"
        title += f" after {plural(self.hands_done, 'hand')}"
        self.console.print(standings(chips, cfg.starting_chips, self.names, title))
        if self.hands_done:
            top = max(chips)
            leaders = " and ".join(self.names[s] for s, c in enumerate(chips) if c == top)
            if over:
                self.console.print(f"Most chips: {leaders} with {top}.")
            else:
                self.console.print(f"Most chips so far: {leaders} with {top}.")
        net = chips[self.human] - cfg.starting_chips
        self.console.print(f"[bold]Your result: {net:+d} chips.[/]")
