"""What a human's table does for both games: introduce it, play until it closes, sum up."""

from __future__ import annotations

from rich.console import Console

from brag_env.ui.seating import HistoryWriter
from brag_env.ui.terminal import EndOfInput, Prompter, QuitRequested


class TableSession:
    """A human's session at a table of agents; ``play`` runs it from the intro to the summary.

    Subclasses set ``prompter``, ``console`` and ``history`` and implement ``intro``, ``run``
    (returns why the table closed) and ``summary``.
    """

    prompter: Prompter
    console: Console
    history: HistoryWriter

    def intro(self) -> None:
        raise NotImplementedError

    def run(self) -> str:
        raise NotImplementedError

    def summary(self, reason: str) -> None:
        raise NotImplementedError

    def play(self) -> int:
        """Play; the exit code is 0, also when the human leaves, and 130 on Ctrl-C. Finished
        hands are already saved when the session stops."""
        self.intro()
        code = 0
        try:
            reason = self.run()
        except QuitRequested:
            reason = "You left the table"
        except EndOfInput:
            reason = "End of input: you left the table"
        except KeyboardInterrupt:
            reason, code = "Interrupted: you left the table", 130
        self.summary(reason)
        return code
