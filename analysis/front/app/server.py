"""Serving the app: localhost unless asked, the URL printed, a clean stop on Ctrl-C or SIGTERM, and a front door
(:class:`Guard`) that answers only requests for the address it serves (no DNS rebinding), caps request bodies and
sends the security headers.

>>> check_port(8050), check_port(0)
(8050, 0)
>>> check_port(70000)
Traceback (most recent call last):
...
analysis.base.params.ParamError: port = 70000 is not allowed; allowed: an integer in 0..65535 (0: any free port)
"""

from __future__ import annotations

import ipaddress
import logging
import os
import signal
import socket
import sys
import threading
import webbrowser
from typing import Any, Callable

from analysis.base.params import DicelabError, ParamError

LOCALHOST = "127.0.0.1"
DEFAULT_PORT = 8050
MAX_BODY = 4 << 20
"""The largest request body (bytes): a callback with a 1 MiB rules file, base64-encoded, fits with room to spare."""
HEADERS = (("X-Frame-Options", "DENY"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
           ("Cross-Origin-Opener-Policy", "same-origin"))


def content_policy(script_hashes: list[str]) -> str:
    """The Content-Security-Policy: everything from the app itself; Dash's inline start-up script by its hash
    (plotly needs ``unsafe-eval``); no framing, no plugins, no other origin.

    >>> content_policy(["'sha256-x'"]).split("; ")[:2]
    ["default-src 'self'", "script-src 'self' 'unsafe-eval' 'sha256-x'"]
    """
    return "; ".join([
        "default-src 'self'", "script-src 'self' 'unsafe-eval' " + " ".join(script_hashes),
        "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob:", "font-src 'self' data:",
        "connect-src 'self'", "object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'",
    ])


def served_hosts(host: str, port: int) -> frozenset[str] | None:
    """The ``Host`` headers a request may carry: the served address with its port (and the loopback names for a
    loopback address); ``None`` (any) when serving every address (``0.0.0.0``, ``::``), which the user chose.

    >>> sorted(served_hosts("127.0.0.1", 8050))
    ['127.0.0.1:8050', '[::1]:8050', 'localhost:8050']
    """
    try:
        if ipaddress.ip_address(host).is_unspecified:
            return None
    except ValueError:
        pass
    names = {host} | ({"127.0.0.1", "localhost", "::1"} if is_loopback(host) else set())
    return frozenset(f"[{n}]:{port}" if ":" in n else f"{n}:{port}" for n in names)


class Guard:
    """WSGI middleware in front of the app: a request whose ``Host`` is not one the app serves (a DNS-rebinding
    page) gets 421, a body past ``max_body`` bytes 413, each with one line; every response carries the security
    headers and ``policy``."""

    def __init__(self, app: Callable[..., Any], policy: str, max_body: int = MAX_BODY):
        self.app, self.policy, self.max_body = app, policy, max_body
        self.hosts: frozenset[str] | None = frozenset()
        """Set once the port is known (:func:`served_hosts`); until then every request is refused."""

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        host = environ.get("HTTP_HOST", "").strip().lower()
        if self.hosts is not None and host not in self.hosts:
            return self._refuse(start_response, "421 Misdirected Request",
                                f"dicelab app: refused: Host {host[:80]!r} is not the address this app serves")
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= self.max_body:
            return self._refuse(start_response, "413 Content Too Large",
                                f"dicelab app: refused: a request body of at most {self.max_body:,} bytes is allowed")

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            return start_response(status, [*headers, *self._headers()], exc_info)

        return self.app(environ, start)

    def _headers(self) -> list[tuple[str, str]]:
        return [*HEADERS, ("Content-Security-Policy", self.policy)]

    def _refuse(self, start_response: Callable[..., Any], status: str, message: str) -> list[bytes]:
        body = (message + "\n").encode("utf-8")
        start_response(status, [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body))),
                                *self._headers()])
        return [body]


def check_port(port: Any) -> int:
    """A TCP port to listen on (0: the system picks a free one)."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ParamError("port", port, "an integer in 0..65535 (0: any free port)")
    return port


def is_loopback(host: str) -> bool:
    """Whether only this machine can reach ``host``.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_of(host: str, port: int) -> str:
    """The address a browser opens.

    >>> url_of("::1", 8050)
    'http://[::1]:8050/'
    """
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def has_display() -> bool:
    """Whether a browser window can open here (a terminal browser would take over the console)."""
    return sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def listen(host: str, port: int) -> socket.socket:
    """A listening socket, bound before anything else starts (a busy port is one line, not werkzeug's exit)."""
    from werkzeug.serving import get_sockaddr, select_address_family

    try:
        family = select_address_family(host, port)
        sock = socket.socket(family, socket.SOCK_STREAM)
    except (OSError, ValueError) as err:
        raise DicelabError(f"cannot listen on {host}:{port}: {err}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(get_sockaddr(host, port, family))
        sock.listen(128)
    except (OSError, OverflowError, UnicodeError) as err:
        sock.close()
        reason = getattr(err, "strerror", None) or str(err)
        raise DicelabError(f"cannot listen on {host}:{port}: {reason}; allowed: a free port on an address of this "
                           "machine (--port 0 picks a free one)") from None
    return sock


def serve(host: str = LOCALHOST, port: int = DEFAULT_PORT, open_browser: bool = True,
          say: Callable[[str], None] = print) -> int:
    """Serve until interrupted; prints the URL first.  Exit status 0 after Ctrl-C or SIGTERM."""
    from werkzeug.serving import make_server

    from analysis.front.app.shell import cleanup, create_app

    sock = listen(host, check_port(port))
    app = create_app()
    app.server.config["MAX_CONTENT_LENGTH"] = MAX_BODY  # a chunked body without a length is capped as it is read
    guard = Guard(app.server, content_policy(app.csp_hashes()))
    try:
        server = make_server(host, port, guard, threaded=True, fd=sock.fileno())
    finally:
        sock.close()
    guard.hosts = served_hosts(host, server.port)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    url = url_of(host, server.port)
    say(f"dicelab app: serving on {url}  (Ctrl-C stops it)")
    if not is_loopback(host):
        say(f"dicelab app: listening on {host}: other machines on the network can reach it")
    if open_browser and has_display():
        threading.Timer(0.5, webbrowser.open, [url]).start()

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop) if threading.current_thread() is threading.main_thread() else None
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        say("dicelab app: stopped")
    finally:
        server.server_close()
        cleanup(app)
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return 0
