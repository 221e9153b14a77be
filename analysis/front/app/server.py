"""Serving the app: localhost unless asked, the URL printed, a clean stop on Ctrl-C or SIGTERM.

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
    try:
        server = make_server(host, port, app.server, threaded=True, fd=sock.fileno())
    finally:
        sock.close()
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
