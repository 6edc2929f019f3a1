"""A fake OpenAI-compatible embeddings server on 127.0.0.1: ``POST /v1/embeddings``.

A text's vector is a bag of its words, each word (after ``concepts``, which maps words of one
meaning to one concept: ``postgres`` and ``database`` to ``db``) hashed to one of ``DIM``
dimensions: texts that share meaning are close, unrelated ones far. Deterministic, no model.
Answers in a shuffled ``data`` order with ``index`` set (as servers may), records each request,
and can be told to fail (``status``) or to check a bearer token (``api_key``).

``python -m tests.fakes.embeddings_api --log FILE`` runs it as a process (the end-to-end test's:
OpenClaw's ``openai`` embedding provider pointed at it), printing its URL, each request body
appended to ``FILE``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from tests.fakes.local_server import LocalServer

DIM = 64
CONCEPTS = {"postgres": "db", "postgresql": "db", "database": "db", "ledger": "books",
            "accounting": "books", "pick": "choose", "chose": "choose", "picked": "choose",
            "decided": "choose"}


def vector(text: str) -> list[float]:
    out = [0.0] * DIM
    for found in re.findall(r"[a-z0-9]+", text.lower()):
        word = CONCEPTS.get(found, found)
        out[int(hashlib.sha256(word.encode()).hexdigest(), 16) % DIM] += 1.0
    if not any(out):
        out[0] = 1.0
    return out


class FakeEmbeddings(LocalServer):
    path = "/v1"

    def __init__(self, log: Path | None = None) -> None:
        self.log = log  # each request body, a JSON line (the process's --log)
        self.status = 200  # anything else: the server answers that error
        self.api_key: str | None = None
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []  # lower-cased names
        self.peers: list[tuple[str, int]] = []  # each request's client address (its connection)
        super().__init__(self._handler())

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                fake.requests.append(body)
                if fake.log is not None:
                    with fake.log.open("a") as out:
                        out.write(json.dumps({"path": self.path, **body}) + "\n")
                fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                fake.peers.append(self.client_address)
                if self.path != "/v1/embeddings":
                    return self._send(404, {"error": {"message": f"no {self.path}"}})
                if fake.api_key and self.headers.get("authorization") != f"Bearer {fake.api_key}":
                    return self._send(401, {"error": {"message": "bad key"}})
                if fake.status != 200:
                    return self._send(fake.status, {"error": {"message": "fake failure"}})
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = [{"object": "embedding", "index": i, "embedding": vector(t)}
                        for i, t in enumerate(texts)]
                return self._send(200, {"object": "list", "model": body.get("model"),
                                        "data": data[::-1]})  # out of order, by index

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log", type=Path, help="append every request body here (JSON lines)")
    FakeEmbeddings(parser.parse_args().log).serve_until_interrupted()


if __name__ == "__main__":
    main()
