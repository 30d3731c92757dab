"""Play Brag, Seven-card Brag and Put against the bots in a browser, replay hands, read results.

``brag-web`` (or ``python -m brag_env.web``) serves a local web app, on 127.0.0.1 unless told
otherwise (docs/web.md):

- ``tables``: a human's table moved one request at a time; every state it sends is built for
  the human's seat from what that seat may see (``brag_env.ui.turns``, shared with the terminal);
- ``store``: open games and replays under unguessable ids, bounded in number and idle time;
- ``forms``: the new-game form (opponents as agent specs, the rule options that matter);
- ``replays``/``results``: a history file stepped through, an ``evaluate.py --json`` report drawn;
- ``app``: the Starlette routes, Jinja2 templates and one small plain script; ``cli``: the command.
"""
