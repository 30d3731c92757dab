"""A human's Seven-card Brag session (B24) against agents, in the terminal.

The human's screen comes from that seat's observation (``brag7_v0.decode_observation``): its
seven cards, stacks, dealer, pot and the previous showdown. Arranging is two questions: the
first hand (a menu of the 35 triples of its cards, strongest first), then the second hand (the
four triples of the cards left). After each deal the showdown is shown: every player's two
hands (the discards stay hidden), who was best in each, and where the pot went.
"""

from __future__ import annotations

from typing import Any

from rich.panel import Panel
from rich.text import Text

from brag_env import brag7_v0
from brag_env.brag7.render import result_lines
from brag_env.cards import parse_cards
from brag_env.ui.seating import Seating
from brag_env.ui.session import TableSession
from brag_env.ui.terminal import Prompter, hand_text, plural, print_menu
from brag_env.ui.turns import brag7_decision

DEFAULT_HANDS = 10  # B24: deals per session


class Brag7Session(TableSession):
    """One session of ``hands_per_session`` deals with the human at ``seating.human``."""

    default_hands = DEFAULT_HANDS  # without --hands or hands_per_session

    def __init__(
        self, seating: Seating, options: dict[str, Any], seed: int, prompter: Prompter
    ) -> None:
        self._open_table(seating, brag7_v0, options, seed, prompter)
        self.deals_done = 0

    def intro(self) -> None:
        cfg = self.config
        self.console.print(
            f"[bold]Seven-card Brag[/]{' (lowball)' if cfg.lowball else ''}: "
            f"{self.seating.num_players} players, {plural(cfg.hands_per_session, 'deal')}, "
            f"ante {cfg.ante}, seed {self.seed} (play this table again with --seed {self.seed})."
        )
        self.console.print(Text(self.seating.who_is_who()))
        self.console.print(
            Text(
                "Split your seven cards into a first and a second hand of three (one card is "
                "thrown away). Win both hands outright to take the pot; otherwise it stays."
            )
        )

    def _ask_human(self) -> int:
        view = brag7_v0.decode_observation(
            self.env.observe(self.human_agent)["observation"], self.config
        )
        cards = parse_cards(view["own_cards"])
        stacks = " · ".join(
            f"{self.names[(self.human + k) % len(self.names)]} {chips}"
            for k, chips in enumerate(view["seat_chips"])
        )
        body = Text.assemble(
            ("Your cards: ", "bold"), hand_text(cards), f"\npot {view['pot']} · chips: {stacks}"
        )
        self.console.print(Panel(body, title="Your turn", title_align="left"))
        obs = self.env.observe(self.human_agent)
        firsts = brag7_decision(obs, self.config)  # the web table asks the same two steps
        self.console.print(Text("First hand:", style="bold"))
        first = firsts.picks[self.prompter_choose(firsts.options, "First hand")]
        seconds = brag7_decision(obs, self.config, first)
        self.console.print(Text("Second hand (the card left over is thrown away):", style="bold"))
        return seconds.action_ids[self.prompter_choose(seconds.options, "Second hand")]

    def prompter_choose(self, options: list[tuple[str, str]], prompt: str) -> int:
        print_menu(self.console, options)
        return self.prompter.choose(options, prompt)

    def run(self) -> str:
        env, game = self.env, self.game
        self._reset_table(self.seed)
        self._announce()
        for name, _, agent in self._live_turns():
            if agent is None:
                action = self._ask_human()
            else:
                obs = env.observe(name)
                action = int(agent.act(obs["observation"], obs["action_mask"]))
            finished = len(game.hand_results)
            env.step(action)
            if len(game.hand_results) == finished:
                continue
            self.deals_done += 1
            self.history.write(game.hand_results[-1].to_dict(), 0, self.seed)
            lines = result_lines(game.hand_results[-1], self.names)
            self.console.print(Panel(Text("\n".join(lines)), title="Showdown", title_align="left"))
            if game.session_over:
                break
            self.prompter.pause("Press Enter for the next deal (q to leave the table): ")
            self._announce()
        return f"Session over: {plural(self.deals_done, 'deal')} played"

    def _announce(self) -> None:
        game = self.game
        self.console.print()
        self.console.rule(
            f"[bold]Deal {game.hand_number + 1} of {self.config.hands_per_session}[/] · dealer "
            f"{self.names[game.dealer]} · pot {game.pot}"
        )

    def summary(self, reason: str) -> None:
        start = self.config.starting_chips
        self.console.print()
        self.console.rule(f"[bold]{reason}[/]")
        changes = " · ".join(
            f"{name} {chips - start:+d}"
            for name, chips in zip(self.names, self.game.chips, strict=True)
        )
        self.console.print(f"Chips won or lost (the pot now: {self.game.pot}): {changes}")
