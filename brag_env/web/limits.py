"""Bounds on what a request may make the server read, and on what an error echoes back.

A body is refused on its ``Content-Length`` when that is over the limit, and otherwise read
from the stream only until the limit is passed (a chunked body has no length to check), so
a huge request costs the server at most the limit and one chunk. Uploads (a history file, a
report) are parsed from the same bounded stream.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request

#: An API body is a few dozen bytes: {"action": "stay", "turn": 12}.
MAX_BODY_BYTES = 4096
#: The new-game form: a few short fields.
MAX_FORM_BYTES = 64 * 2**10
#: A history file opened in the browser (a Brag hand's line is a few KB: thousands of hands).
MAX_REPLAY_BYTES = 32 * 2**20
#: An evaluate.py --json report (``brag_env.io.MAX_JSON_BYTES``, the limit of any JSON file).
MAX_REPORT_BYTES = 16 * 2**20
#: What a multipart upload adds around its file: the boundaries and part headers.
FORM_OVERHEAD_BYTES = 64 * 2**10


class TooLarge(Exception):
    """A body over its limit; ``str`` says so in one line."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the request is larger than {limit:,} bytes: refused")
        self.limit = limit


def check_declared_length(request: Request, limit: int) -> None:
    """``TooLarge`` when the request says (``Content-Length``) it is over ``limit``."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        raise TooLarge(limit)


async def read_body(request: Request, limit: int) -> bytes:
    """The body, read from the stream only up to ``limit`` + 1 bytes (``TooLarge`` beyond)."""
    check_declared_length(request, limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def bounded_request(request: Request, limit: int) -> Request:
    """The request again, its body stream stopped with ``TooLarge`` once past ``limit`` bytes:
    ``request.form()`` on it parses at most that much, whatever the client declared."""
    check_declared_length(request, limit)
    receive: Callable[[], Awaitable[dict[str, Any]]] = request.receive
    size = 0

    async def bounded_receive() -> dict[str, Any]:
        nonlocal size
        message = await receive()
        if message["type"] == "http.request":
            size += len(message.get("body", b""))
            if size > limit:
                raise TooLarge(limit)
        return message

    return Request(request.scope, bounded_receive)
