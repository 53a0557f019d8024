"""The development server: dist/ on http://127.0.0.1:N/, under the site's Content-Security-Policy."""

from __future__ import annotations

import functools
import http.server
import os
import sys
from pathlib import Path

from .common import DIST
from .policy import SITE_POLICY, policy_text
from .site import build


class Handler(http.server.SimpleHTTPRequestHandler):
    """Static files with the MIME types Pyodide needs and no caching during development."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".whl": "application/zip",
        ".json": "application/json",
        ".zip": "application/zip",
    }

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        # On every response, not only pages: a worker (and the service worker) is governed
        # by the policy delivered with its own script.
        if self.server.policy:
            self.send_header("Content-Security-Policy", policy_text(self.server.policy))
            self.send_header("Referrer-Policy", "no-referrer")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:
        if os.environ.get("RAGCHUNK_SERVER_LOG"):
            super().log_message(format, *args)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    policy: dict[str, str] | None = None

    def handle_error(self, request, client_address) -> None:
        # A browser that closes a connection mid-response is normal, not an error.
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


def make_server(directory: Path, host: str = "127.0.0.1", port: int = 0, policy: dict[str, str] | None = SITE_POLICY) -> Server:
    """A threaded static server for ``directory``; port 0 lets the OS choose.

    Every response carries ``policy`` as its Content-Security-Policy (the site's by
    default; ``None`` serves without one, as a third-party page that embeds the tools).
    """
    handler = functools.partial(Handler, directory=str(directory))
    server = Server((host, port), handler)
    server.policy = policy
    return server


def serve(host: str, port: int) -> None:
    build()
    server = make_server(DIST, host, port)
    url = f"http://{host}:{server.server_address[1]}/"
    print(f"Serving ragchunk at {url} (Ctrl+C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
