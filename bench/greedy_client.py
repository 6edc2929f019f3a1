"""A client that writes and never reads: the sidecar's RSS under it.

Starts ``zettelclaw serve`` on a fresh data directory whose workspace holds one 512 KiB memory
file, connects ``--clients`` times, and on each writes ``--lines`` lines, each a batch of 64
``memory.get`` of that file (32 MiB of answers a line), without reading a byte. Samples the
server's RSS (``/proc/<pid>/status`` VmRSS) every 0.1 s for ``--seconds`` and prints the
largest, then the server's own counter from ``status`` on a fresh connection (when it has one).

    .venv/bin/python bench/greedy_client.py --clients 1 --seconds 20

To measure another tree (the commit before the fix), put its ``sidecar`` first on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def rss_kib(pid: int) -> int:
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith("VmRSS:"):
            return int(row.split()[1])
    return 0


def status_seconds(sock: Path) -> float:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(30)
        probe.connect(str(sock))
        started = time.monotonic()
        probe.sendall(b'{"jsonrpc":"2.0","id":1,"method":"status"}\n')
        data = b""
        while not data.endswith(b"\n"):
            data += probe.recv(1 << 20)
        return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--lines", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="zc-greedy-", dir="/tmp"))
    ws = root / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / "big.md").write_text(("x" * 1023 + "\n") * 512)  # 512 KiB
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZETTELCLAW_", "OPENCLAW_"))}
    env.update(ZETTELCLAW_CRON_SCHEDULE="off", ZETTELCLAW_SEARCH_SEMANTIC="off")
    sock = root / "s.sock"
    server = subprocess.Popen([sys.executable, "-m", "zettelclaw", "serve", "--home",
                               str(root / "home"), "--socket", str(sock), "--workspace", str(ws)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert server.stdout is not None
        server.stdout.readline()
        base = rss_kib(server.pid)
        batch = [{"jsonrpc": "2.0", "id": i, "method": "memory.get",
                  "params": {"path": "memory/big.md"}} for i in range(64)]
        line = json.dumps(batch).encode() + b"\n"
        clients = []
        for _ in range(args.clients):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(str(sock))
            s.setblocking(False)
            clients.append([s, line * args.lines])
        peak, started = base, time.monotonic()
        while time.monotonic() - started < args.seconds:
            for client in clients:  # write what the server takes; never read
                if client[1]:
                    try:
                        sent = client[0].send(client[1])
                        client[1] = client[1][sent:]
                    except (BlockingIOError, BrokenPipeError, ConnectionResetError):
                        pass
            peak = max(peak, rss_kib(server.pid))
            time.sleep(0.1)
        written = sum(len(line) * args.lines - len(c[1]) for c in clients)
        print(f"clients {args.clients}, lines {args.lines}: request bytes taken {written}, "
              f"RSS {base // 1024} MiB at start, peak {peak // 1024} MiB over {args.seconds:g} s")
        print(f"another client's status answered in {status_seconds(sock):.3f} s")
        for client in clients:
            client[0].close()
    finally:
        server.terminate()
        server.wait(timeout=60)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
