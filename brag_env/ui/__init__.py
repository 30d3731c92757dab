"""Terminal front ends shared by ``brag_env.play`` and ``brag_env.replay``.

``terminal`` reads answers and draws cards with rich; ``brag_view``/``put_view`` turn a decoded
observation (what ONE seat knows) and the public record of a finished hand into rich renderables;
``session`` is what both games' tables share and ``brag_play``/``put_play`` run a human's
session at a table of agents (``seating``: who sits where, the history file); ``records`` checks
the shape of a history line and ``brag_replay``/``put_replay`` rebuild what each player knew at
each recorded decision.
"""
