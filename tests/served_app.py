"""Shared set-up for the tests that serve the app in a process of its own: a free port, and the
wait until the server answers its health check."""

from __future__ import annotations

import socket
import ssl
import subprocess
import time
import urllib.request
from collections.abc import Callable


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_healthy(
    process: subprocess.Popen, url: str, context: Callable[[], ssl.SSLContext | None] = lambda: None,
    timeout_s: float = 60.0,
) -> None:
    """Poll ``url`` (the server's ``/_stcore/health``) until it answers ``ok``; the last error is
    raised when the process exits or ``timeout_s`` passes first. ``context`` gives the TLS context
    for each try (it may raise :class:`OSError` while the server is not ready for one)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2, context=context()) as response:
                assert response.read() == b"ok"
                return
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise
            time.sleep(0.5)
