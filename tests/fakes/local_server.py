"""The scaffolding every in-process fake API shares: an HTTP server on a free port of 127.0.0.1,
serving on a daemon thread from ``start()`` until ``stop()``."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class LocalServer:
    path = ""  # appended to the URL (an API's version prefix, e.g. "/v1")

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}{self.path}"

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def serve_until_interrupted(self) -> None:
        """Run as a process of its own (a fake's ``main``, for the end-to-end test): print the
        URL, then serve on this thread until ^C (or the process is killed)."""
        print(self.url, flush=True)
        try:
            self.server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            self.server.server_close()
