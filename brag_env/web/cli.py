"""``brag-web``: serve the web app (docs/web.md).

Examples::

    brag-web                          # http://127.0.0.1:8000
    brag-web --port 8080 --bot-delay 0.3
    brag-web --host 0.0.0.0           # reachable from other machines: only on a trusted network
"""

from __future__ import annotations

import argparse
import socket
import sys

from brag_env.extras import MissingExtra, require
from brag_env.ui.cli import OneLineParser, one_line, prog_name, quiet_on_closed_pipe

PROG = "python -m brag_env.web"


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=prog,
        description="Play Brag, Seven-card Brag and Put against the bots in a browser, replay "
        "saved hands and read tournament results.",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=0.8,
        metavar="SECONDS",
        help="pause before each bot's move, so a person can follow (default 0.8)",
    )
    parser.add_argument(
        "--max-games", type=int, default=32, help="open games kept at most (default 32)"
    )
    parser.add_argument(
        "--idle-minutes",
        type=float,
        default=60.0,
        help="a game or replay unused this long is dropped (default 60)",
    )
    return parser


def bind(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (``OSError``: busy, or no such address), bound before
    the start message is printed so that the message is true."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    listening = socket.socket(family, kind, proto)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart: TIME_WAIT
        listening.bind(address)
    except OSError:
        listening.close()
        raise
    return listening


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    prog = prog_name("brag-web", PROG, argv)
    args = build_parser(prog).parse_args(argv)
    if not 0 <= args.port <= 65535:
        print(f"{prog}: error: --port must be 0..65535, got {args.port}", file=sys.stderr)
        return 2
    if not 0 <= args.bot_delay <= 60:
        print(f"{prog}: error: --bot-delay must be 0 to 60 seconds", file=sys.stderr)
        return 2
    if args.max_games < 1 or args.idle_minutes <= 0:
        print(f"{prog}: error: --max-games and --idle-minutes must be positive", file=sys.stderr)
        return 2
    try:
        require("web", "the web app", "uvicorn", "starlette", "jinja2", "python_multipart")
    except MissingExtra as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    import uvicorn

    from brag_env.web.app import Settings, create_app

    try:
        listening = bind(args.host, args.port)
    except OSError as error:
        reason = error.strerror or one_line(error)
        print(f"{prog}: error: cannot listen on {args.host}:{args.port}: {reason}", file=sys.stderr)
        return 2
    app = create_app(Settings(args.bot_delay, args.max_games, args.idle_minutes))
    port = listening.getsockname()[1]  # the one bound, also for --port 0
    print(f"{prog}: open http://{args.host}:{port}/ in a browser (Ctrl-C stops)", flush=True)
    # log_config=None: uvicorn leaves the logging set-up alone (its warnings still reach stderr)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", log_config=None))
    server.run(sockets=[listening])
    return 0


if __name__ == "__main__":
    sys.exit(main())
