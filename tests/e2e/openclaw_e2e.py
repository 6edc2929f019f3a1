"""End-to-end: the OpenClaw plugin, the sidecar and a real OpenClaw gateway, offline.

Run by ``tests/e2e/run.sh`` (which installs Node 24 and OpenClaw into a cache, makes the
sandbox directory and cleans up after us). Everything lives under that directory: OpenClaw's
state and config, the workspace, the sidecar's data, every log. A fake OpenAI-compatible model
answers the agent (``tests.fakes.openai_api``: ``CALL_TOOL:<name> {args}`` in a message makes it
call a tool) and a fake Anthropic API answers extraction (``tests.fakes.anthropic_api``, replying
with the entries in a file we rewrite before each extraction).

The path a user takes: the released wheel installed into a venv of its own (``--sidecar-venv``,
made by scripts/package from the sdist, outside the clone), a fresh OpenClaw config, ``zettelclaw
init`` (which installs the compiled plugin the wheel carries into OpenClaw and configures it), then
a gateway that starts the sidecar by itself. Checks:

- ``extract_at_reset`` (1): a turn that states a fact, then a reset: the fact, one handoff and the
  session id in the log;
- ``handoff_injected`` (2): the next turn's model request holds the handoff (prependContext);
- ``search_and_get_tools`` (3): the agent's memory_search call returns the fact; memory_get returns
  it by id;
- ``new_extracts_only_new`` (4): a second reset of the same sessionId (a ``/new``, which re-sends
  the whole session) extracts only the messages after the first;
- ``group_and_cron_left_out`` (5): a group session and a cron run get no handoff; the cron session
  is not extracted;
- ``sidecar_stopped`` (6): with the sidecar stopped, turns complete and the tools answer
  "unavailable"; once it is back, the sweep extracts the reset it missed;
- ``plugin_installed`` (7): ``zettelclaw init`` on a fresh config installs the plugin from the
  wheel and gives a config the gateway accepts (``openclaw zettelclaw init`` after it changes
  nothing), and ``openclaw plugins inspect zettelclaw --runtime --json`` shows the compiled plugin
  loaded from OpenClaw's own copy, with its hooks and tools; the sidecar the gateway started is the
  wheel's;
- ``host_model_route`` (8): the host's model route: the gateway restarted with no Anthropic key or
  base URL anywhere (its environment, so the sidecar's, and the sidecar's config), its only model
  the fake OpenAI-compatible one: a turn stating a fact, a reset, and the fact and one handoff are
  in the log, made by that model through the plugin's llm.complete (its request log holds the
  extraction prompt; the fake Anthropic API gets nothing); ``status`` names the route;
- ``second_agent_isolated`` (9): a second agent (``family``, its own workspace) has its own memory:
  its turns carry no handoff of main's, its memory_search does not find main's fact nor its
  memory_get by id, its MEMORY.md (briefed for it) does not mention it; a fact told to it and
  extracted at its reset is in its own log only, injected in its next turn and never in main's;
- ``write_receipts`` (10): write receipts: a fact told, a reset; a group turn then gets no receipt
  line, the owner's next private turn gets "Remembered from your last conversation: ..." (after the
  handoff, naming the fact and its id), the turn after it does not (once), and ``memory.receipts``
  says told;
- ``forget_tool`` (11): the agent's ``memory_forget`` tool (``text``) hides a decision that was in
  the handoff: ``zettelclaw search <word>`` (the installed CLI) finds nothing after it, and the
  owner's next turn's injected context no longer carries it;
- ``purge_leaves_no_byte`` (12): ``zettelclaw forget --purge --text <word>`` on a fact told in a
  turn: no byte of the word (any case) is left anywhere in Zettelclaw's data directory or the
  agent's workspace (OpenClaw's own session store and logs are not ours, and are not looked at).
- ``offline_status`` (13): ``openclaw status --all --json`` with the gateway stopped (OpenClaw's
  offline status, in a process of its own that loads the memory slot's runtime; online status
  collects no memory) shows Zettelclaw's counts for the default agent: provider ``zettelclaw``, the
  memory files and chunks, and the log's current entries, as the sidecar reports them.
- ``memory_wiki_bridge`` (14): memory-wiki (bundled with OpenClaw) in bridge mode, with
  ``artifacts.publish`` on: on the running gateway, ``openclaw wiki status`` counts the artifacts
  the sidecar lists (main's: the briefing, the vault's pages, the log's export; family's too: the
  wiki's default scope is one vault for every agent), ``openclaw wiki bridge import`` makes a wiki
  page of each, and a fact told through the sidecar is in the imported export and vault pages; the
  gateway's ``doctor.memory.status`` (the Control UI's memory tab) names Zettelclaw as the
  provider.
- ``import_gateway_sessions`` (15): ``zettelclaw import openclaw`` of the gateway's own session
  store (what the checks before made, and a message long enough to be stored compressed) into a
  fresh data directory: the plan counts the conversations (each session cut at its resets; the
  group and cron ones out of scope) and writes nothing; ``--apply`` with a second sidecar on that
  directory extracts main's own conversations through the fake API, dated when they happened, under
  the gateway's session ids, the group and cron sessions left out; applying again adds nothing;
  ``--rollback last`` purges them. ``zettelclaw import STATE`` tells the kind, ``zettelclaw import
  openclaw`` finds ``$OPENCLAW_STATE_DIR``.
- ``host_embeddings`` (16): the host's embeddings: ``search.embeddings = host`` in the sidecar's
  config and OpenClaw's own memory-search provider set (``memory.search.provider = openai``, its
  ``remote.baseUrl`` a fake OpenAI-compatible ``/v1/embeddings`` on 127.0.0.1, a dummy key): the
  plugin offers ``embeddings.embed`` with that provider and model, the sidecar's vectors are made
  through it (``status``: ``host:openai/text-embedding-3-small``), and the agent's memory_search
  finds a decision by meaning in hybrid mode, its query embedded by that server.
- ``sync_two_gateways`` (17): two gateways (two HOMEs) share one memory through a bare git
  repository: the fact ``extract_at_reset`` told is found by the second gateway's agent's
  memory_search after ``zettelclaw sync init`` on both; a fact remembered on the second reaches the
  first (tests/e2e/sync_gateways.py).

``--only write_receipts,forget_tool`` (``ZC_E2E_ONLY`` of tests/e2e/run.sh) runs only those
checks (after the setup, init and the gateway's start, which every run needs); a check's number,
as the list above gives it, is accepted for its name; without it, all of them.

Waits poll files, sockets and logs against deadlines; nothing sleeps a fixed time to be safe.
Prints one line per check and ``N passed, M failed`` last; exits 1 when a check failed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from zettelclaw.client import Client, SidecarUnavailableError

ANSI = re.compile(r"\x1b\[[0-9;]*m")
HANDOFF_HEADING = "## Last Session Handoff"
MAIN_KEY = "agent:main:main"
FAMILY_KEY = "agent:family:main"
GROUP_KEY = "agent:main:telegram:group:-1001234567890"
RECEIPT = "Remembered from your last conversation:"


class CheckFailed(Exception):
    pass


def expect(condition: object, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


# The checks in the order a run makes them (each needs what the ones before it left: the
# docstring says what each checks). ``--only`` takes their names; the number a check had before
# the checks were named is accepted for its name (the list above gives both).
CHECKS = ("extract_at_reset", "handoff_injected", "search_and_get_tools", "new_extracts_only_new",
          "group_and_cron_left_out", "second_agent_isolated", "write_receipts", "forget_tool",
          "purge_leaves_no_byte", "import_gateway_sessions", "sidecar_stopped",
          "plugin_installed", "offline_status", "host_model_route", "memory_wiki_bridge",
          "host_embeddings", "sync_two_gateways")
NUMBERS = {1: "extract_at_reset", 2: "handoff_injected", 3: "search_and_get_tools",
           4: "new_extracts_only_new", 5: "group_and_cron_left_out", 6: "sidecar_stopped",
           7: "plugin_installed", 8: "host_model_route", 9: "second_agent_isolated",
           10: "write_receipts", 11: "forget_tool", 12: "purge_leaves_no_byte",
           13: "offline_status", 14: "memory_wiki_bridge", 15: "import_gateway_sessions",
           16: "host_embeddings", 17: "sync_two_gateways"}


def chosen(only: str) -> set[str] | None:
    """The checks ``--only`` names (comma-separated names, or their old numbers); None: all.
    An unknown name is an error that lists the names, never a run that checks nothing."""
    names = set()
    for word in (w.strip() for w in only.split(",")):
        if not word:
            continue
        name = NUMBERS.get(int(word)) if word.isdigit() else word
        if name not in CHECKS:
            raise ValueError(f"no check {word!r}: the checks are {', '.join(CHECKS)}")
        names.add(name)
    return names or None


@dataclass
class Result:
    name: str
    title: str
    passed: bool
    seconds: float
    details: list[str] = field(default_factory=list)


class Sandbox:
    def __init__(self, root: Path, repo: Path, node_bin: Path, openclaw_package: Path,
                 sidecar_venv: Path) -> None:
        self.root = root
        self.sidecar_venv = sidecar_venv
        self.repo = repo
        self.node_bin = node_bin
        self.openclaw_package = openclaw_package
        self.state = root / "state"
        self.workspace = root / "workspace"
        self.family_workspace = root / "workspace-family"  # the second agent's own
        self.data = self.state / "zettelclaw"
        self.socket = self.data / "sidecar.sock"
        self.logs = root / "logs"
        self.reply_file = root / "extraction-reply.jsonl"
        self.model_log = self.logs / "model-requests.jsonl"
        self.anthropic_log = self.logs / "anthropic-requests.jsonl"
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.gateway_port = free_port()
        for d in (root / "home", self.state, self.workspace, self.family_workspace, self.logs):
            d.mkdir(parents=True, exist_ok=True)
        # `zettelclaw` on PATH is the installed wheel's: the gateway starts that sidecar
        path = [str(sidecar_venv / "bin"), str(node_bin), str(openclaw_package.parent / ".bin"),
                "/usr/local/bin", "/usr/bin", "/bin"]
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("ZETTELCLAW_", "OPENCLAW_", "ANTHROPIC_"))}
        self.env.update({
            "PATH": os.pathsep.join(path),
            "HOME": str(root / "home"),
            "OPENCLAW_HOME": str(root / "home"),
            "OPENCLAW_STATE_DIR": str(self.state),
            "OPENCLAW_CONFIG_PATH": str(self.state / "openclaw.json"),
            "OPENCLAW_OFFLINE": "1",
            "OPENCLAW_DISABLE_BONJOUR": "1",
            "OPENCLAW_NO_AUTO_UPDATE": "1",
            "OPENCLAW_GATEWAY_TOKEN": f"e2e-{os.getpid()}",
            "OPENCLAW_PACKAGE": str(openclaw_package),
            "GATEWAY_PORT": str(self.gateway_port),
            "NO_COLOR": "1",
        })

    # -- processes --------------------------------------------------------------------------------

    def start(self, name: str, argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        """A background process in its own process group (recorded for run.sh's clean-up)."""
        log = (self.logs / f"{name}.log").open("ab")
        proc = subprocess.Popen(argv, cwd=kwargs.pop("cwd", self.root),
                                env=kwargs.pop("env", self.env),
                                stdin=subprocess.DEVNULL, stdout=kwargs.pop("stdout", log),
                                stderr=log, start_new_session=True, **kwargs)
        self.processes[name] = proc
        with (self.root / "pgids").open("a") as f:
            f.write(f"{proc.pid}\n")
        return proc

    def stop(self, name: str, grace: float = 15.0) -> None:
        proc = self.processes.pop(name, None)
        if proc is None or proc.poll() is not None:
            return
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)

    def stop_all(self) -> None:
        for name in list(self.processes):
            self.stop(name, grace=10.0)

    def run(self, argv: list[str], timeout: float = 120.0, name: str | None = None
            ) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(argv, cwd=self.root, env=self.env, capture_output=True, text=True,
                              timeout=timeout, check=False)
        if name:
            (self.logs / f"{name}.out").write_text(proc.stdout)
            (self.logs / f"{name}.err").write_text(proc.stderr)
        return proc

    def openclaw(self, *args: str, timeout: float = 120.0, name: str | None = None
                 ) -> subprocess.CompletedProcess[str]:
        return self.run(["openclaw", *args], timeout=timeout, name=name)

    def openclaw_json(self, *args: str, timeout: float = 120.0, name: str | None = None) -> Any:
        proc = self.openclaw(*args, timeout=timeout, name=name)
        expect(proc.returncode == 0, f"openclaw {' '.join(args[:3])} exited {proc.returncode}: "
               f"{tail(proc.stderr or proc.stdout)}")
        return parse_json_output(proc.stdout)

    # -- the fakes ---------------------------------------------------------------------------------

    def start_fake(self, name: str, module: str, *args: str) -> str:
        """Start a fake server; returns the URL it prints when ready."""
        url_file = self.logs / f"{name}.url"
        with url_file.open("wb") as out:  # the fakes are test code: the repo's venv runs them
            self.start(name, [sys.executable, "-m", module, *args], stdout=out, cwd=self.repo,
                       env={**self.env, "PYTHONPATH": str(self.repo)})
        wait_for(lambda: url_file.read_text().strip().startswith("http"), f"{name} to listen",
                 30, self.processes[name])
        return url_file.read_text().strip()

    def set_extraction_reply(self, *entries: dict[str, Any]) -> None:
        self.reply_file.write_text("".join(json.dumps(e) + "\n" for e in entries))

    # -- what happened -----------------------------------------------------------------------------

    def log_entries(self, agent: str = "main") -> list[dict[str, Any]]:
        home = self.data if agent == "main" else self.data / "agents" / agent
        try:
            lines = (home / "log.jsonl").read_text().splitlines()
        except FileNotFoundError:
            return []
        entries = []
        for line in lines:
            try:
                entries.append(json.loads(line))
            except ValueError:
                continue
        return entries

    def model_requests(self) -> list[dict[str, Any]]:
        return read_jsonl(self.model_log)

    def extraction_requests(self) -> list[str]:
        return [r["messages"][0]["content"] for r in read_jsonl(self.anthropic_log)]

    def gateway_log(self) -> str:
        try:
            return ANSI.sub("", (self.logs / "gateway.log").read_text(errors="replace"))
        except FileNotFoundError:
            return ""

    def last_words(self, lines: int = 25) -> list[str]:
        """The plugin's last lines in the gateway log, and the hand-started sidecar's."""
        said = [f"gateway.log: {line[:300]}" for line in self.gateway_log().splitlines()
                if "zettelclaw" in line][-lines:]
        try:
            sidecar = (self.logs / "sidecar.log").read_text(errors="replace").splitlines()
        except FileNotFoundError:
            sidecar = []
        said += [f"sidecar.log: {line[:300]}" for line in sidecar[-lines:]]
        try:
            extraction = self.sidecar_status().get("extraction")
        except (SidecarUnavailableError, OSError) as exc:
            return [*said, f"status: {exc}"]
        return [*said, f"status: extraction {json.dumps(extraction)}"]

    def sidecar_status(self) -> dict[str, Any]:
        with Client(self.socket, timeout=5) as client:
            status: dict[str, Any] = client.call("status")
            return status

    def sidecar_answers(self) -> bool:
        try:
            self.sidecar_status()
        except (SidecarUnavailableError, OSError):
            return False
        return True


# -- helpers ---------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def tail(text: str, lines: int = 12) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except FileNotFoundError:
        return []


def parse_json_output(text: str) -> Any:
    """The JSON document in a CLI's output (some commands print a notice line first)."""
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    expect(start >= 0, f"no JSON in the output: {tail(text)}")
    return json.loads(text[start:])


def wait_for(predicate: Callable[[], object], what: str, timeout: float,
             process: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + timeout
    delay = 0.05
    while True:
        try:
            if predicate():
                return
        except (OSError, ValueError):
            pass
        if process is not None and process.poll() is not None:
            raise CheckFailed(f"{what}: the process exited with {process.returncode}")
        if time.monotonic() > deadline:
            raise CheckFailed(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(delay)
        delay = min(delay * 1.5, 0.5)


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def turn_text(request: dict[str, Any]) -> str:
    """The user's text of the turn a model request belongs to (after the last assistant message)."""
    parts: list[str] = []
    for message in reversed(request.get("messages", [])):
        if message.get("role") == "assistant":
            break
        if message.get("role") == "user":
            parts.append(text_of(message.get("content")))
    return "\n".join(reversed(parts))


def request_for(requests: list[dict[str, Any]], marker: str) -> dict[str, Any]:
    """The first model request of the turn whose user text holds ``marker``."""
    for request in requests:
        if marker in turn_text(request):
            return request
    raise CheckFailed(f"no model request for the turn {marker!r}")


def tool_result(requests: list[dict[str, Any]], marker: str) -> Any:
    """The JSON a tool answered in the turn whose user message holds ``marker``."""
    for request in requests:
        messages = request.get("messages", [])
        asked = [i for i, m in enumerate(messages)
                 if m.get("role") == "user" and marker in text_of(m.get("content"))]
        answers = [m for m in messages[asked[-1]:] if m.get("role") == "tool"] if asked else []
        if answers:
            return json.loads(text_of(answers[-1].get("content")))
    raise CheckFailed(f"no tool result in the requests of the turn {marker!r}")


# -- the run ---------------------------------------------------------------------------------------


class E2E:
    def __init__(self, box: Sandbox) -> None:
        self.box = box
        self.results: list[Result] = []
        self.main_session: str | None = None
        self.fact_id: str | None = None
        self.inspect: subprocess.Popen[bytes] | None = None
        self.turns = 0
        self.only: set[str] | None = None  # --only: these checks, else all
        # every session a turn ran in: sessionId -> (agent, key, first start, last end); OpenClaw
        # keeps a session id across resets: the conversations (parts between resets, with
        # messages) each session holds, and those whose last part takes the next turn's messages
        self.sessions: dict[str, tuple[str, str, float, float]] = {}
        self.parts: dict[str, int] = {}
        self.open_parts: set[str] = set()
        self.cron_runs = 0  # group_and_cron_left_out's: a session of main the import leaves out

    @contextmanager
    def check(self, name: str, title: str) -> Iterator[list[str]]:
        details: list[str] = []
        started = time.monotonic()
        passed = False
        try:
            yield details
            passed = True
        except CheckFailed as exc:
            details.append(f"FAILED: {exc}")
        except (subprocess.TimeoutExpired, OSError, ValueError, KeyError) as exc:
            details.append(f"FAILED: {type(exc).__name__}: {exc}")
        result = Result(name, title, passed, time.monotonic() - started, details)
        self.results.append(result)
        status = "PASS" if passed else "FAIL"
        print(f"{status} {name}: {title} ({result.seconds:.1f} s)", flush=True)
        for line in details:
            print(f"       {line}", flush=True)
        if not passed:  # CI keeps only this output: what the plugin and the sidecar said last
            for line in self.box.last_words():
                print(f"         | {line}", flush=True)

    def turn(self, message: str, session_key: str | None = None,
             agent: str = "main") -> dict[str, Any]:
        args = ["agent", "-m", message, "--json", "--timeout", "120"]
        args += ["--session-key", session_key] if session_key else ["--agent", agent]
        self.turns += 1
        started = time.time()
        result = self.box.openclaw_json(*args, timeout=180, name=f"turn-{self.turns}")
        expect(result.get("status") == "ok", f"the turn did not complete: {result}")
        session = str(result.get("result", {}).get("meta", {}).get("agentMeta", {})
                      .get("sessionId", ""))
        if session:
            key = session_key or f"agent:{agent}:main"
            first = self.sessions.get(session, (agent, key, started, 0.0))[2]
            self.sessions[session] = (agent, key, first, time.time())
            if session not in self.open_parts:
                self.parts[session] = self.parts.get(session, 0) + 1
                self.open_parts.add(session)
        return dict(result)

    def parts_ended(self, key: str, new: bool = False) -> None:
        """A reset of ``key``: its session's part ends (``new``: a /new, whose command and
        injected reply are the next part's first messages)."""
        for session, (agent, at_key, first, _) in list(self.sessions.items()):
            if at_key != key:
                continue
            self.open_parts.discard(session)
            if new:
                self.parts[session] += 1
                self.open_parts.add(session)
                self.sessions[session] = (agent, at_key, first, time.time())

    def reset(self, key: str = MAIN_KEY) -> None:
        self.box.openclaw_json("gateway", "call", "sessions.reset", "--params",
                               json.dumps({"key": key}), "--json", name="reset")
        self.parts_ended(key)

    def slash_new(self, key: str = MAIN_KEY) -> None:
        """``/new`` in the session, as a chat message (needs the operator.admin scope)."""
        params = {"sessionKey": key, "message": "/new", "idempotencyKey": f"e2e-new-{time.time()}"}
        proc = self.box.run([str(self.box.node_bin / "node"),
                             str(self.box.repo / "tests/e2e/gateway_call.mjs"), "chat.send",
                             json.dumps(params), "operator.admin"], timeout=90, name="slash-new")
        expect(proc.returncode == 0, f"chat.send /new failed: {tail(proc.stderr)}")
        self.parts_ended(key, new=True)

    def wait_entries(self, what: str, predicate: Callable[[list[dict[str, Any]]], bool],
                     timeout: float = 60) -> list[dict[str, Any]]:
        wait_for(lambda: predicate(self.box.log_entries()), what, timeout)
        return self.box.log_entries()

    def told_and_extracted(self, message: str, *entries: dict[str, Any]
                           ) -> tuple[str, list[dict[str, Any]]]:
        """A main-session turn, a reset, and its extraction (``entries``, a handoff last) done:
        in the log and its job gone from the spool (so indexed, the handoff and the receipt line
        formatted). Returns the session id and the entries this extraction wrote.

        The main session keeps its id across resets, so an earlier conversation's handoff is
        in it already: the wait is for a handoff that was not in the log before this turn (the
        gateway may call the reset hook after ``sessions.reset`` has answered; waiting for any
        handoff of the session, and then for no job of it, could read the log before the job
        existed)."""
        box = self.box
        box.set_extraction_reply(*entries)
        known = {e["id"] for e in box.log_entries()}
        session = str(self.turn(message)["result"]["meta"]["agentMeta"]["sessionId"])
        self.reset()
        self.wait_entries("the extracted entries",
                          lambda es: any(e["session"] == session and e["type"] == "handoff"
                                         and e["id"] not in known for e in es), timeout=90)

        def job_gone() -> bool:
            with Client(box.socket, timeout=10) as client:
                jobs = client.call("jobs.list")["jobs"]
            return not any(j["sessionId"] == session for j in jobs)

        wait_for(job_gone, "the extraction's job to leave the spool", 60)
        return session, [e for e in box.log_entries()
                         if e["session"] == session and e["id"] not in known]

    def cli(self, *args: str, name: str) -> subprocess.CompletedProcess[str]:
        """The installed ``zettelclaw`` CLI, on the running sidecar's socket."""
        return self.box.run(["zettelclaw", *args, "--socket", str(self.box.socket)], name=name)

    # -- setup and plugin_installed (first half) ---------------------------------------------------

    def setup(self) -> None:
        box = self.box
        model_url = box.start_fake("fake-model", "tests.fakes.openai_api", "--log",
                                   str(box.model_log), "--reply-file", str(box.reply_file))
        box.set_extraction_reply({"type": "handoff", "content": "nothing yet"})
        anthropic_url = box.start_fake("fake-anthropic", "tests.fakes.anthropic_api",
                                       "--reply-file", str(box.reply_file), "--log",
                                       str(box.anthropic_log))
        box.env.update({"ANTHROPIC_BASE_URL": anthropic_url, "ANTHROPIC_API_KEY": "e2e-fake"})
        # A fresh OpenClaw config: a local gateway, the fake model, a workspace. Nothing else.
        config = {
            "gateway": {"mode": "local", "port": box.gateway_port, "bind": "loopback"},
            "models": {"providers": {"fake": {
                "baseUrl": model_url, "apiKey": "x", "api": "openai-completions",
                "models": [{"id": "fake-model", "name": "Fake", "reasoning": False,
                            "input": ["text"], "contextWindow": 128000, "maxTokens": 4096,
                            "cost": {"input": 0, "output": 0, "cacheRead": 0,
                                     "cacheWrite": 0}}]}}},
            "agents": {"defaults": {"model": {"primary": "fake/fake-model"},
                                    "workspace": str(box.workspace)}},
            "tools": {"toolSearch": False},  # else plugin tools hide behind tool_search
            "logging": {"file": str(box.logs / "openclaw-file.log")},  # not /tmp/openclaw/
        }
        (box.state / "openclaw.json").write_text(json.dumps(config, indent=2) + "\n")
        # a second agent with its own workspace (and so its own memory), as a user adds one
        added = box.openclaw("agents", "add", "family", "--workspace", str(box.family_workspace),
                             "--non-interactive", name="agents-add")
        expect(added.returncode == 0, f"openclaw agents add: {tail(added.stderr)}")

    def check_init(self) -> None:
        box = self.box
        with self.check("plugin_installed",
                        "`zettelclaw init` installs the wheel's plugin into OpenClaw "
                        "and gives a config the gateway accepts (first half)") as notes:
            proc = box.run(["zettelclaw", "init"], name="init")
            expect(proc.returncode == 0, f"init exited {proc.returncode}: {tail(proc.stderr)}")
            expect("OpenClaw plugin: installed zettelclaw" in proc.stdout,
                   f"init did not install the plugin: {tail(proc.stdout)}")
            shown = box.openclaw_json("plugins", "inspect", "zettelclaw", "--json",
                                      name="plugins-inspect-static")
            source, root = Path(shown["plugin"]["source"]), Path(shown["plugin"]["rootDir"])
            expect(root == box.state / "extensions" / "zettelclaw",
                   f"the plugin is not OpenClaw's own copy: {root}")
            expect(source == root / "dist" / "index.js", f"not the compiled plugin: {source}")
            config = json.loads((box.state / "openclaw.json").read_text())
            plugins = config["plugins"]
            expect(plugins["slots"]["memory"] == "zettelclaw", "memory slot not set")
            expect(plugins["entries"]["zettelclaw"]["hooks"]["allowConversationAccess"] is True,
                   "allowConversationAccess not set")
            expect(plugins["entries"]["memory-core"]["enabled"] is False, "memory-core enabled")
            expect(config["hooks"]["internal"]["entries"]["session-memory"]["enabled"] is False,
                   "session-memory not disabled")
            expect(config["agents"]["defaults"]["compaction"]["memoryFlush"]["enabled"] is False,
                   "memoryFlush not disabled")
            # what `openclaw doctor` reads as OpenClaw's own memory search (no OpenAI key asked)
            expect(config["memory"]["search"] == {"provider": "none",
                                                  "rememberAcrossConversations": False},
                   f"memory.search: {config.get('memory')}")
            expect(list(box.state.glob("openclaw.json.zettelclaw-backup-*")), "no backup")
            memory_md = (box.workspace / "MEMORY.md").read_text()
            expect("<!-- BEGIN GENERATED BRIEFING -->" in memory_md, "no markers in MEMORY.md")
            family_md = (box.family_workspace / "MEMORY.md").read_text()
            expect("<!-- BEGIN GENERATED BRIEFING -->" in family_md,
                   "no markers in the second agent's MEMORY.md")
            again = box.openclaw("zettelclaw", "init", "--json", name="init-again")
            report = parse_json_output(again.stdout)
            expect(again.returncode == 0 and report["changes"] == [] and report["nothingToDo"],
                   f"a second init changed something: {report.get('changes')}")
            expect(report["plugin"]["action"] == "present",
                   f"a second init touched the plugin: {report['plugin']}")
            valid = box.openclaw("config", "validate", name="config-validate")
            expect(valid.returncode == 0, f"openclaw config validate: {tail(valid.stdout)}"
                   f"{tail(valid.stderr)}")
            notes.append(f"init installed the plugin ({source}), set the slot, hook access, "
                         "memory-core/session-memory/memoryFlush off, memory.search's provider "
                         "none and no transcript recall, markers (both agents); "
                         "`openclaw zettelclaw init` then changed nothing; config valid")
        # Runs while the gateway starts: a separate process that loads the plugin by itself.
        self.inspect = box.start("plugins-inspect", ["openclaw", "plugins", "inspect",
                                                     "zettelclaw", "--runtime", "--json"],
                                 stdout=(box.logs / "plugins-inspect.json").open("wb"))

    def start_gateway(self) -> None:
        box = self.box
        started = time.monotonic()
        before = box.gateway_log().count("[gateway] ready")  # the log outlives a restart
        gateway = box.start("gateway", ["openclaw", "gateway", "run", "--port",
                                        str(box.gateway_port), "--auth", "token"])
        wait_for(lambda: box.gateway_log().count("[gateway] ready") > before,
                 "the gateway to be ready", 240, gateway)
        ready = time.monotonic() - started
        wait_for(box.sidecar_answers, "the sidecar the plugin starts to answer", 60, gateway)
        print(f"     gateway ready in {ready:.1f} s; sidecar (started by the plugin) answers "
              f"after {time.monotonic() - started:.1f} s", flush=True)

    # -- the first turns: extraction, handoff, the tools, /new, group and cron --------------------

    def check_extract_at_reset(self) -> None:
        box = self.box
        with self.check("extract_at_reset",
                        "a fact stated in a turn, then a reset: the fact, one "
                        "handoff and the session id are in log.jsonl") as notes:
            box.set_extraction_reply(
                {"type": "fact", "content": "The launch code name is BLUEHERON",
                 "subject": "launch"},
                {"type": "handoff", "content": "Agreed on BLUEHERON as the launch code name"})
            result = self.turn("ZC-TURN-ONE Remember this: the launch code name is BLUEHERON.")
            session = result["result"]["meta"]["agentMeta"]["sessionId"]
            self.main_session = session
            self.reset()
            entries = self.wait_entries(
                "the extracted entries",
                lambda es: any(e["session"] == session and e["type"] == "handoff" for e in es))
            mine = [e for e in entries if e["session"] == session]
            facts = [e for e in mine if e["type"] == "fact" and "BLUEHERON" in e["content"]]
            handoffs = [e for e in mine if e["type"] == "handoff"]
            expect(len(facts) == 1, f"expected the fact once, found {len(facts)}")
            expect(len(handoffs) == 1, f"expected one handoff, found {len(handoffs)}")
            self.fact_id = facts[0]["id"]
            notes.append(f"session {session}: fact {self.fact_id}, handoff {handoffs[0]['id']}")

    def check_handoff_injected(self) -> None:
        with self.check("handoff_injected",
                        "the next turn's model request holds the handoff "
                        "(prependContext)") as notes:
            self.turn("ZC-TURN-TWO What did we call the launch?")
            request = request_for(self.box.model_requests(), "ZC-TURN-TWO")
            text = turn_text(request)
            expect(HANDOFF_HEADING in text, "no handoff in the model request")
            expect("Agreed on BLUEHERON" in text, "the handoff's content is missing")
            expect(text.index(HANDOFF_HEADING) < text.index("ZC-TURN-TWO"),
                   "the handoff does not come before the user's words")
            system = "\n".join(text_of(m.get("content")) for m in request["messages"]
                               if m.get("role") == "system")
            expect("<name>zettelclaw</name>" in system, "the zettelclaw skill is not offered")
            expect("## Memory (Zettelclaw)" in system, "no memory section in the system prompt")
            notes.append("handoff before the user's words; system prompt: the zettelclaw skill "
                         "and the memory section")

    def check_search_and_get_tools(self) -> None:
        with self.check("search_and_get_tools",
                        "the agent's memory_search returns the fact; memory_get "
                        "returns it by id") as notes:
            expect(self.fact_id, "no fact id from extract_at_reset")
            self.turn('ZC-TURN-THREE CALL_TOOL:memory_search {"query": "launch code name"}')
            found = tool_result(self.box.model_requests(), "ZC-TURN-THREE")
            ids = [r.get("id") or r.get("path") for r in found.get("results", [])]
            expect(self.fact_id in ids, f"memory_search did not return {self.fact_id}: {ids}")
            self.turn(f'ZC-TURN-FOUR CALL_TOOL:memory_get {{"path": "{self.fact_id}"}}')
            got = tool_result(self.box.model_requests(), "ZC-TURN-FOUR")
            expect(got.get("status") == "ok", f"memory_get status: {got.get('status')}")
            expect(got["entry"]["id"] == self.fact_id and "BLUEHERON" in got["entry"]["content"],
                   f"memory_get returned {got.get('entry')}")
            notes.append(f"search returned {len(ids)} result(s) incl. the fact; get returned it")

    def check_new_extracts_only_new(self) -> None:
        box = self.box
        with self.check("new_extracts_only_new",
                        "a second reset of the same sessionId (/new) extracts only "
                        "the new messages") as notes:
            session = self.main_session
            expect(session, "no session from extract_at_reset")
            before = len(box.extraction_requests())
            box.set_extraction_reply(
                {"type": "decision", "content": "Announce the launch on Friday",
                 "subject": "launch"},
                {"type": "handoff", "content": "Checked the code name; launch announced Friday"})
            self.turn("ZC-TURN-FIVE Let's announce the launch on Friday.")
            self.slash_new()
            entries = self.wait_entries(
                "the second extraction",
                lambda es: any(e["session"] == session and "Friday" in e["content"] for e in es))
            prompts = box.extraction_requests()[before:]
            mine = [p for p in prompts if session and session in p]
            expect(len(mine) == 1, f"expected one extraction for the session, saw {len(mine)}")
            transcript = mine[0][mine[0].index("## Transcript"):]
            expect("ZC-TURN-FIVE" in transcript and "ZC-TURN-TWO" in transcript,
                   "the new messages are missing from the extraction")
            expect("ZC-TURN-ONE" not in transcript,
                   "the first reset's messages were extracted again")
            handoffs = [e for e in entries if e["session"] == session and e["type"] == "handoff"]
            expect(len(handoffs) == 2, f"expected two handoffs for the session, found "
                   f"{len(handoffs)}")
            new_id = self.turn("ZC-TURN-SIX after new")["result"]["meta"]["agentMeta"]["sessionId"]
            notes.append(f"same sessionId after /new: {new_id == session}; the extraction held "
                         "turns 2-5 only")

    def check_group_and_cron_left_out(self) -> None:
        box = self.box
        with self.check("group_and_cron_left_out",
                        "a group session and a cron run get no handoff and are not "
                        "extracted; memory_search in the group finds nothing") as notes:
            main = request_for(box.model_requests(), "ZC-TURN-SIX")
            expect(HANDOFF_HEADING in turn_text(main), "the main session has no handoff to leak")
            self.turn("ZC-GROUP hello from the group", session_key=GROUP_KEY)
            group = turn_text(request_for(box.model_requests(), "ZC-GROUP"))
            expect(HANDOFF_HEADING not in group, "the group session got the handoff")
            self.turn('ZC-GROUP-TOOL CALL_TOOL:memory_search {"query": "launch code name"}',
                      session_key=GROUP_KEY)
            answer = tool_result(box.model_requests(), "ZC-GROUP-TOOL")
            expect(answer.get("results") == [] and answer.get("mode") == "restricted",
                   f"memory_search in the group answered {answer}")
            self.reset(GROUP_KEY)  # its transcript goes to the sidecar, which must not keep it
            job = box.openclaw_json("cron", "add", "--name", "zc-e2e", "--agent", "main",
                                    "--cron", "0 3 * * *", "--tz", "UTC", "--exact",
                                    "--session", "isolated", "--message", "ZC-CRON run",
                                    "--timeout-seconds", "120", "--no-deliver", "--json",
                                    name="cron-add")
            run = box.openclaw_json("cron", "run", job["id"], "--wait", "--json", timeout=180,
                                    name="cron-run")
            expect(run.get("status") == "ok", f"the cron run: {run.get('status')}")
            cron = turn_text(request_for(box.model_requests(), "ZC-CRON"))
            expect(HANDOFF_HEADING not in cron, "the cron run got the handoff")
            cron_key = f"agent:main:cron:{job['id']}"
            self.cron_runs += 1
            self.reset(cron_key)  # ends the cron session: its transcript goes to the sidecar
            state_file = box.data / "state.json"
            wait_for(lambda: any("cron session" in str(v.get("reason"))
                                 for v in json.loads(state_file.read_text())
                                 .get("skippedSessions", {}).values()),
                     "the sidecar to record the cron session as skipped", 30)
            skipped = json.loads(state_file.read_text())["skippedSessions"]
            cron_sessions = [sid for sid, v in skipped.items() if cron_key in str(v["reason"])]
            expect(cron_sessions, f"the cron session is not among the skipped: {skipped}")
            expect(not any(e["session"] in cron_sessions for e in box.log_entries()),
                   "the cron session has entries in the log")
            expect(not any((box.data / "transcripts" / f"{sid}.jsonl").exists()
                           for sid in cron_sessions), "the cron transcript was spooled")
            group_sessions = [sid for sid, v in skipped.items() if GROUP_KEY in str(v["reason"])]
            expect(group_sessions, f"the group session is not among the skipped: {skipped}")
            expect(not any(e["session"] in group_sessions for e in box.log_entries()),
                   "the group session has entries in the log")
            notes.append(f"cron session {cron_sessions[0]} skipped: "
                         f"{skipped[cron_sessions[0]]['reason']}; group session skipped: "
                         f"{skipped[group_sessions[0]]['reason']}; memory_search in the group: "
                         f"restricted ({answer['restricted']['reason']})")

    def check_second_agent_isolated(self) -> None:
        box = self.box
        with self.check("second_agent_isolated",
                        "a second agent has its own memory: no injection, no search "
                        "hit, no briefing of main's fact; its own fact stays its own") as notes:
            expect(self.fact_id, "no fact id from extract_at_reset")
            self.turn("ZC-FAMILY-ONE hello", agent="family")
            first = turn_text(request_for(box.model_requests(), "ZC-FAMILY-ONE"))
            expect(HANDOFF_HEADING not in first, "the family agent's turn got main's handoff")
            expect("BLUEHERON" not in first, "main's fact reached the family agent's turn")
            self.turn('ZC-FAMILY-SEARCH CALL_TOOL:memory_search {"query": "launch code name"}',
                      agent="family")
            found = tool_result(box.model_requests(), "ZC-FAMILY-SEARCH")
            expect(found.get("results") == [] and not found.get("unavailable"),
                   f"the family agent's memory_search answered {found}")
            self.turn(f'ZC-FAMILY-GET CALL_TOOL:memory_get {{"path": "{self.fact_id}"}}',
                      agent="family")
            got = tool_result(box.model_requests(), "ZC-FAMILY-GET")
            expect(got.get("status") == "not_found", f"memory_get of main's fact: {got}")
            rows = {a["agentId"]: a for a in box.sidecar_status()["agents"]}
            expect(rows.get("family", {}).get("workspace") == str(box.family_workspace),
                   f"the plugin did not register family's workspace: {rows.get('family')}")
            brief = box.run(["zettelclaw", "briefing", "--agent", "family", "--json",
                             "--socket", str(box.socket)], name="briefing-family")
            expect(brief.returncode == 0, f"briefing --agent family: {tail(brief.stderr)}")
            family_md = (box.family_workspace / "MEMORY.md").read_text()
            expect("BLUEHERON" not in family_md and "launch" not in family_md.lower(),
                   f"the family agent's MEMORY.md mentions main's memory: {family_md}")
            # its own fact: extracted at its reset into its own log, injected in its own turns
            box.set_extraction_reply(
                {"type": "fact", "content": "The dog is called REXFORD", "subject": "dog"},
                {"type": "handoff", "content": "FAMILY-HANDOFF: named the dog REXFORD"})
            self.turn("ZC-FAMILY-TWO Our dog is called REXFORD.", agent="family")
            self.reset(FAMILY_KEY)
            wait_for(lambda: any("REXFORD" in e["content"] for e in box.log_entries("family")),
                     "the family agent's entries in its own log", 60)
            expect(not any("REXFORD" in e["content"] for e in box.log_entries()),
                   "the family agent's fact is in main's log")
            self.turn("ZC-FAMILY-THREE what is new?", agent="family")
            own = turn_text(request_for(box.model_requests(), "ZC-FAMILY-THREE"))
            expect("FAMILY-HANDOFF" in own, "the family agent's own handoff was not injected")
            self.turn("ZC-MAIN-AFTER-FAMILY what is new?")
            main = turn_text(request_for(box.model_requests(), "ZC-MAIN-AFTER-FAMILY"))
            expect("REXFORD" not in main and "FAMILY-HANDOFF" not in main,
                   "the family agent's memory reached main's turn")
            expect(HANDOFF_HEADING in main and "launch" in main,
                   "main's own handoff is missing from its turn")
            notes.append(f"family: no handoff, search [] , get not_found; MEMORY.md briefed for "
                         f"it without main's fact; its fact in agents/family/log.jsonl "
                         f"({len(box.log_entries('family'))} entries), injected in its turn "
                         "only")

    # -- receipts, forgetting ---------------------------------------------------------------------

    def check_write_receipts(self) -> None:
        box = self.box
        with self.check("write_receipts",
                        "write receipts: the owner's next private turn names what "
                        "the last conversation wrote, once; a group turn does not") as notes:
            session, mine = self.told_and_extracted(
                "ZC-RECEIPT-ONE The office fern is called FERNWALDO.",
                {"type": "fact", "content": "The office fern is called FERNWALDO",
                 "subject": "office"},
                {"type": "handoff", "content": "Named the office fern"})
            facts = [e for e in mine if e["type"] == "fact" and "FERNWALDO" in e["content"]]
            expect(len(facts) == 1, f"expected the fact once, found {len(facts)}")
            fact_id = facts[0]["id"]
            # first a group turn, while the receipt waits: it must not get it (nor take it)
            self.turn("ZC-RECEIPT-GROUP hello again from the group", session_key=GROUP_KEY)
            group = request_for(box.model_requests(), "ZC-RECEIPT-GROUP")
            expect(RECEIPT not in json.dumps(group, ensure_ascii=False),
                   "the group turn's model request holds the receipt line")
            expect("FERNWALDO" not in json.dumps(group), "the fact reached the group turn")
            self.turn("ZC-RECEIPT-TWO good morning")
            text = turn_text(request_for(box.model_requests(), "ZC-RECEIPT-TWO"))
            expect(RECEIPT in text, "no receipt line in the owner's next turn")
            line = next(x for x in text.splitlines() if RECEIPT in x)
            expect("FERNWALDO" in line and f"(id {fact_id})" in line,
                   f"the receipt line does not name the fact {fact_id}: {line}")
            expect(HANDOFF_HEADING in text
                   and text.index(HANDOFF_HEADING) < text.index(RECEIPT) < text.index(
                       "ZC-RECEIPT-TWO"),
                   "the receipt line is not after the handoff and before the user's words")

            def told() -> bool:
                with Client(box.socket, timeout=10) as client:
                    got = client.call("memory.receipts", {"limit": 20})["conversations"]
                return any(c["sessionId"] == session and c["told"] for c in got)

            wait_for(told, "memory.receipts to mark the conversation told", 30)
            self.turn("ZC-RECEIPT-THREE and again")
            again = turn_text(request_for(box.model_requests(), "ZC-RECEIPT-THREE"))
            expect(RECEIPT not in again, "the receipt line was shown a second time")
            notes.append(f"session {session}: group turn without it; owner turn: {line[:160]}; "
                         "the turn after: none; memory.receipts: told")

    def check_forget_tool(self) -> None:
        box = self.box
        with self.check("forget_tool",
                        "the memory_forget tool hides a decision: `zettelclaw "
                        "search` finds nothing, the next handoff does not carry it") as notes:
            session, mine = self.told_and_extracted(
                "ZC-FORGET-ONE Let's paint the shed SHEDTEAL green.",
                {"type": "decision", "content": "Paint the shed SHEDTEAL green",
                 "subject": "shed"},
                {"type": "handoff", "content": "Chose the SHEDTEAL paint for the shed"})
            decisions = [e for e in mine if e["type"] == "decision" and "SHEDTEAL" in e["content"]]
            expect(len(decisions) == 1, f"expected the decision once, found {len(decisions)}")
            decision_id = decisions[0]["id"]
            self.turn("ZC-FORGET-TWO what was decided?")
            before = turn_text(request_for(box.model_requests(), "ZC-FORGET-TWO"))
            handoff = before.split(RECEIPT)[0]  # the receipt line names it too: not that
            expect(HANDOFF_HEADING in handoff and f"(id {decision_id})" in handoff,
                   "the handoff does not carry the decision before the forget")
            found = self.cli("search", "SHEDTEAL", "--json", name="search-before-forget")
            expect(found.returncode == 0 and decision_id in found.stdout,
                   f"`zettelclaw search SHEDTEAL` before the forget: exit {found.returncode}")
            self.turn('ZC-FORGET-THREE CALL_TOOL:memory_forget {"text": "SHEDTEAL"}')
            answer = tool_result(box.model_requests(), "ZC-FORGET-THREE")
            forgotten = {e["id"] for e in answer.get("entries", [])}
            expect(answer.get("status") == "ok" and answer.get("action") == "hide"
                   and decision_id in forgotten and answer.get("changed", 0) >= 1,
                   f"memory_forget answered {answer}")
            after = self.cli("search", "SHEDTEAL", "--json", name="search-after-forget")
            expect(after.returncode == 1 and "SHEDTEAL" not in after.stdout,
                   f"`zettelclaw search SHEDTEAL` after the forget: exit {after.returncode}: "
                   f"{tail(after.stdout)}")
            self.turn("ZC-FORGET-FOUR what was decided?")
            later = turn_text(request_for(box.model_requests(), "ZC-FORGET-FOUR"))
            expect("SHEDTEAL" not in later and decision_id not in later,
                   "the next turn's injected context still carries the forgotten decision")
            notes.append(f"session {session}: memory_forget hid {answer.get('changed')} "
                         f"entr{'y' if answer.get('changed') == 1 else 'ies'} "
                         f"({sorted(forgotten)}); search before: exit 0 with {decision_id}, "
                         f"after: exit {after.returncode}; next turn: handoff "
                         f"{'present' if HANDOFF_HEADING in later else 'absent'}, without it")

    def check_purge_leaves_no_byte(self) -> None:
        box = self.box
        word = "WOMBATRIX"
        with self.check("purge_leaves_no_byte",
                        f"`zettelclaw forget --purge --text {word}`: no byte of the "
                        "word is left in the data directory or the workspace") as notes:
            session, mine = self.told_and_extracted(
                f"ZC-PURGE-ONE Our garden gnome is called {word}.",
                {"type": "fact", "content": f"The garden gnome is called {word}",
                 "subject": "garden"},
                {"type": "handoff", "content": f"Named the garden gnome {word}"})
            expect(any(word in e["content"] for e in mine), "the fact was not extracted")
            held = holding(word, box.data, box.workspace)
            expect(held, "the word is nowhere before the purge (is the grep blind?)")
            notes.append("before: in " + ", ".join(sorted(held)))
            proc = self.cli("forget", "--purge", "--text", word, "--json", name="forget-purge")
            expect(proc.returncode == 0, f"forget --purge exited {proc.returncode}: "
                   f"{tail(proc.stderr or proc.stdout)}")
            result = parse_json_output(proc.stdout)
            expect(result.get("action") == "purge" and result.get("changed", 0) >= 2,
                   f"forget --purge answered {result.get('action')}, {result.get('changed')}")
            left = holding(word, box.data, box.workspace)
            expect(not left, f"{word} is still in: {', '.join(sorted(left))}")
            # for the report: what else lost its conversation copy, and what OpenClaw keeps
            others = [e for e in box.log_entries() if e["session"] == session]
            theirs = [p for p in holding(word, box.state)
                      if not p.startswith(f"{box.state.name}/{box.data.name}/")]
            notes.append(f"{len(others)} other entries of session {session} stay in the log, "
                         "their conversation copy gone with it; OpenClaw's own state still "
                         f"holds the word (not ours): {', '.join(sorted(theirs)) or 'nowhere'}")
            notes.append(f"session {session}: purged {result['changed']} entries, removed "
                         f"{json.dumps(result.get('removed'))}; after: no byte of {word} "
                         f"(any case) under {box.data.name}/ or {box.workspace.name}/")

    def check_import_gateway_sessions(self) -> None:
        """Needs sessions made by earlier checks: at least extract_at_reset (main's session);
        with group_and_cron_left_out (and write_receipts), a group session and a cron run, which
        the import must leave out. Runs before host_model_route, which takes the Anthropic key
        away (the second sidecar's extraction uses the fake API), and before sidecar_stopped (a
        turn of its own in main's session, which that check's reset ends)."""
        box = self.box
        with self.check("import_gateway_sessions",
                        "`zettelclaw import openclaw` of the real gateway's store "
                        "into a fresh memory: plan, apply (source times, the "
                        "gateway's session ids, no group/cron), again (nothing), "
                        "rollback") as notes:
            started = time.time()
            expect(self.sessions,
                   "no session made by an earlier check (run extract_at_reset first)")
            # a message long enough (1 KiB and more) for the gateway to store it compressed
            self.turn("ZC-IMPORT-LONG Here is the whole moving plan: "
                      + "pack the kitchen, label every box, book the van for Saturday. " * 40
                      + "ZC-LONG-END")
            mine = {sid: v for sid, v in self.sessions.items() if v[0] == "main"}
            direct = {sid for sid, v in mine.items() if v[1] == MAIN_KEY}
            conversations = sum(self.parts[sid] for sid in mine) + self.cron_runs
            extracted = sum(self.parts[sid] for sid in direct)
            store = box.state / "agents/main/agent/openclaw-agent.sqlite"
            conn = sqlite3.connect(f"{store.as_uri()}?mode=ro", uri=True)
            try:
                compressed = conn.execute("SELECT count(*) FROM transcript_events"
                                          " WHERE event_zstd IS NOT NULL").fetchone()[0]
            finally:
                conn.close()
            expect(compressed, "the gateway stored no event compressed (zstd)")
            fresh = box.root / "import-memory"
            home, workspace = fresh / "data", fresh / "workspace"
            workspace.mkdir(parents=True)
            sock = home / "sidecar.sock"  # never the gateway's (the plugin's socketPath)

            def zc(*args: str, name: str) -> Any:
                proc = box.run(["zettelclaw", *args, "--home", str(home), "--socket", str(sock),
                                "--workspace", str(workspace), "--json"], name=name,
                               timeout=300)
                expect(proc.returncode == 0, f"zettelclaw {' '.join(args[:3])} exited "
                       f"{proc.returncode}: {tail(proc.stderr or proc.stdout)}")
                return parse_json_output(proc.stdout)

            def fresh_log() -> list[dict[str, Any]]:
                return read_jsonl(home / "log.jsonl")

            # 1. the plan: what the e2e's turns made, nothing written
            plan = zc("import", "openclaw", str(box.state), "--agent", "main", name="import-plan")
            expect(plan["kind"] == "openclaw" and plan["path"] == str(box.state),
                   f"plan of {plan['kind']} {plan['path']}")
            expect(not plan["problems"], f"problems reading the store: {plan['problems']}")
            expect((plan["conversations"], plan["outOfScope"])
                   == (extracted, conversations - extracted),
                   f"the plan lists {plan['conversations']} conversations, "
                   f"{plan['outOfScope']} out of scope; the e2e made {conversations} in main's "
                   f"{len(mine)} sessions ({self.parts}, cron runs {self.cron_runs}), "
                   f"{extracted} in its direct session")
            expect(plan["messages"] >= 2 * extracted,
                   f"{plan['messages']} messages for {extracted} conversations")
            expect(plan["estimate"]["inputTokens"] > 0, f"estimate {plan['estimate']}")
            written = [p for p in (home / "imports", home / "spool", home / "transcripts")
                       if p.exists() and any(p.iterdir())]
            expect(not fresh_log() and not written, f"the plan wrote: {written or 'log.jsonl'}")
            found = zc("import", str(box.state), name="import-detect")  # the kind told by it
            expect(found["kind"] == "openclaw" and found["conversations"] == extracted,
                   f"`zettelclaw import STATE` planned {found['kind']} "
                   f"{found['conversations']}")
            default = zc("import", "openclaw", name="import-default")  # $OPENCLAW_STATE_DIR
            expect(default["path"] == str(box.state), f"the default path {default['path']}")
            notes.append(f"store: {len(mine)} sessions of main, {compressed} event(s) stored "
                         f"compressed; plan: {plan['conversations']} conversations "
                         f"({plan['outOfScope']} out of scope), {plan['messages']} "
                         f"messages, estimate {plan['estimate']['inputTokens']} + "
                         f"{plan['estimate']['outputTokens']} tokens; `import STATE` and "
                         "`import openclaw` (no path) plan the same")

            # 2. apply, with a second sidecar on the fresh memory extracting
            box.set_extraction_reply(
                {"type": "fact", "content": "ZC-IMPORTED a fact from a past session",
                 "subject": "import"},
                {"type": "handoff", "content": "ZC-IMPORTED-HANDOFF must not be written"})
            prompts_before = len(box.extraction_requests())
            box.start("import-sidecar", ["zettelclaw", "serve", "--home", str(home), "--socket",
                                         str(sock), "--workspace", str(workspace)])

            def answers() -> bool:
                Client(sock, timeout=5).connect().close()
                return True

            wait_for(answers, "the fresh memory's sidecar", 60, box.processes["import-sidecar"])
            applied = zc("import", "openclaw", str(box.state), "--agent", "main", "--apply",
                         name="import-apply")
            expect(applied["state"] == "done", f"apply: {applied}")
            expect(applied["conversations"] == extracted
                   and applied["skipped"] == conversations - extracted,
                   f"apply spooled {applied['conversations']} and skipped {applied['skipped']};"
                   f" expected {extracted} and {conversations - extracted}")

            def idle() -> bool:
                with Client(sock, timeout=10) as client:
                    return not client.call("jobs.list")["jobs"]

            wait_for(idle, "the fresh memory's extraction jobs to be done", 180)
            prompts = box.extraction_requests()[prompts_before:]
            # (the gateway's own sidecar has nothing to extract meanwhile: no reset since 12)
            expect(len(prompts) == extracted, f"{len(prompts)} extraction prompts for "
                   f"{extracted} conversations")
            expect(any("ZC-LONG-END" in p for p in prompts),
                   "the long (compressed) message is in no extraction prompt")
            entries = fresh_log()
            by_session = {e["session"] for e in entries}
            expect(by_session == direct, f"entries under sessions {sorted(by_session)}, the "
                   f"gateway's direct sessions {sorted(direct)}")
            expect(all(e["type"] == "fact" for e in entries),
                   f"types {sorted({e['type'] for e in entries})} (a handoff written?)")
            for entry in entries:
                _, _, first, last = mine[entry["session"]]
                at = datetime.fromisoformat(entry["timestamp"].replace("Z", "+00:00"))
                expect(first - 2 <= at.timestamp() <= last + 2,
                       f"entry {entry['id']} of {entry['session']} is dated {entry['timestamp']}"
                       f", not within its session's turns ({hms(first)}-{hms(last)} UTC)")
            manifest = json.loads(next((home / "imports").glob("*.json")).read_text())
            skipped = {r["session"]: r["skipped"] for r in manifest["items"].values()
                       if r.get("skipped")}
            expect(not set(skipped) & direct and set(mine) - direct <= set(skipped)
                   and (not self.cron_runs or any("cron" in r for r in skipped.values())),
                   f"skipped {skipped}; main's group sessions {sorted(set(mine) - direct)}, "
                   f"cron runs {self.cron_runs}")
            sent = sum(len(p) for p in prompts) // 4
            notes.append(f"apply: {applied['conversations']} spooled, {len(prompts)} prompts, "
                         f"{len(entries)} entries under the gateway's session ids, dated within "
                         f"their turns (the import ran at {hms(started)}); skipped: "
                         + "; ".join(sorted(set(skipped.values()))))
            allowance = plan["estimate"]["outputTokens"] // max(plan["conversations"], 1)
            estimated = applied["spooledTokens"] - allowance * applied["conversations"]
            expect(applied["spooledTokens"] == plan["estimate"]["tokens"],
                   f"the plan estimated {plan['estimate']['tokens']} tokens, the apply spooled "
                   f"{applied['spooledTokens']}")
            notes.append(f"estimate of the prompts spooled: {estimated} tokens (+ {allowance} "
                         f"a reply each); the {len(prompts)} prompts sent:"
                         f" {sent} tokens at chars/4")

            # 3. again: nothing added
            again = zc("import", "openclaw", str(box.state), "--agent", "main", "--apply",
                       name="import-again")
            expect(again["importId"] is None and again["conversations"] == 0,
                   f"a second apply: {again}")
            expect(len(fresh_log()) == len(entries), "a second apply changed the log")

            # 4. rollback: the entries leave the fresh log
            rolled = zc("import", "--rollback", "last", name="import-rollback")
            ids = {e["id"] for e in entries}
            left = [e for e in fresh_log() if e["id"] in ids]
            expect(rolled["state"] == "rolledBack" and not left,
                   f"rollback: {rolled}; {len(left)} imported entries still in the log")
            box.stop("import-sidecar")
            notes.append(f"again: nothing; rollback: {rolled['entries']} entries purged")

    def check_sidecar_stopped(self) -> None:
        box = self.box
        with self.check("sidecar_stopped",
                        "sidecar stopped: turns complete, tools answer unavailable; "
                        "back: the sweep extracts what was missed") as notes:
            pid = box.sidecar_status()["pid"]
            os.kill(pid, signal.SIGTERM)
            wait_for(lambda: not box.sidecar_answers() and not pid_alive(pid),
                     "the sidecar to stop", 30)
            down = self.turn("ZC-DOWN-ONE We chose GREENFINCH for staging.")
            took = down["result"]["meta"].get("durationMs")
            text = turn_text(request_for(box.model_requests(), "ZC-DOWN-ONE"))
            expect(HANDOFF_HEADING not in text, "a handoff while the sidecar is down?")
            self.turn('ZC-DOWN-TWO CALL_TOOL:memory_search {"query": "GREENFINCH"}')
            answer = tool_result(box.model_requests(), "ZC-DOWN-TWO")
            expect(answer.get("unavailable") is True and answer.get("results") == [],
                   f"memory_search while down: {answer}")
            expect("zettelclaw serve" in answer.get("action", ""), "no action in the answer")
            self.reset()  # missed: nobody listens
            box.set_extraction_reply(
                {"type": "decision", "content": "Use GREENFINCH as the staging code name",
                 "subject": "launch"},
                {"type": "handoff", "content": "Picked GREENFINCH while memory was down"})
            box.start("sidecar", ["zettelclaw", "serve", "--socket", str(box.socket),
                                  "--workspace", str(box.workspace)])
            wait_for(box.sidecar_answers, "the sidecar to be back", 60,
                     box.processes["sidecar"])
            session = self.main_session
            self.wait_entries(
                "the sweep to extract the missed reset",
                lambda es: any(e["session"] == session and "GREENFINCH" in e["content"]
                               for e in es), timeout=90)
            sweeps = [line for line in box.gateway_log().splitlines()
                      if "zettelclaw: sweep (" in line]  # (sidecar back), or a (retry)
            swept = sweeps[-1].split("zettelclaw: ")[-1] if sweeps else "?"
            notes.append(f"a turn while down: ok, {took} ms in the gateway; tools: unavailable "
                         f"+ action; after restart: {swept}")

    def check_plugin_installed(self) -> None:
        box = self.box
        with self.check("plugin_installed",
                        "`openclaw plugins inspect zettelclaw --runtime --json` "
                        "shows the hooks and the tools (second half)") as notes:
            expect(self.inspect is not None, "inspect was not started")
            assert self.inspect is not None
            self.inspect.wait(180)
            expect(self.inspect.returncode == 0, f"inspect exited {self.inspect.returncode}")
            report = parse_json_output((box.logs / "plugins-inspect.json").read_text())
            plugin = report["plugin"]
            expect(plugin["status"] == "loaded", f"plugin status {plugin['status']}")
            expect(plugin.get("memorySlotSelected") is True, "not the memory slot")
            hooks = {h["name"] for h in report["typedHooks"]}
            wanted = {"before_prompt_build", "before_reset", "session_end", "gateway_start"}
            expect(wanted <= hooks, f"hooks missing: {sorted(wanted - hooks)}")
            tools = {n for t in report["tools"] for n in t["names"]}
            expect({"memory_search", "memory_get"} <= tools, f"tools: {sorted(tools)}")
            notes.append(f"hooks {sorted(hooks)}; tools {sorted(tools)}")
            pid = int(box.sidecar_status()["pid"])
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            expect(any(Path(os.fsdecode(c)).is_relative_to(box.sidecar_venv) for c in command),
                   f"the sidecar is not the installed wheel's: {command}")
            notes.append(f"the sidecar runs from {box.sidecar_venv}")

    def check_offline_status(self) -> None:
        box = self.box
        with self.check("offline_status",
                        "`openclaw status --all --json` with the gateway stopped "
                        "shows Zettelclaw's counts (the memory slot's runtime asks "
                        "the sidecar)") as notes:
            online = box.openclaw_json("status", "--all", "--json", timeout=300,
                                       name="status-all-online")
            skipped = [n for n in online.get("collection", {}).get("notCollected", [])
                       if "memory" in n.get("fields", [])]
            notes.append(f"gateway up: memory {online.get('memory')!r} ({skipped[0]['reason']!r})"
                         if skipped else f"gateway up: memory {online.get('memory')!r}")
            # OpenClaw loads the memory runtime only in offline status: the gateway stopped,
            # sidecar_stopped's sidecar (started by hand) still serving
            box.stop("gateway", grace=30)
            sidecar = box.sidecar_status()
            shown = box.openclaw_json("status", "--all", "--json", timeout=300,
                                      name="status-all")
            memory = shown.get("memory") or {}
            expect(memory.get("provider") == "zettelclaw",
                   f"status shows no Zettelclaw memory: {shown.get('memory')!r}, "
                   f"plugin {shown.get('memoryPlugin')!r}")
            expect(memory.get("agentId") == "main", f"agent {memory.get('agentId')!r}")
            expect(memory["files"] == sidecar["search"]["memoryFiles"]
                   and memory["chunks"] == sidecar["search"]["chunks"],
                   f"files/chunks {memory['files']}/{memory['chunks']}, the sidecar's "
                   f"{sidecar['search']}")
            entries = memory.get("custom", {}).get("entries")
            expect(entries == sidecar["entries"]["current"] and entries > 0,
                   f"entries {entries}, the sidecar's {sidecar['entries']}")
            notes.append(f"memory: {memory['files']} files, {memory['chunks']} chunks, "
                         f"{entries} entries, vector {memory.get('vector')}")

    def check_host_model_route(self) -> None:
        box = self.box
        with self.check("host_model_route",
                        "no Anthropic key anywhere: a reset is extracted by the "
                        "host's own model (the agent's, through the plugin's "
                        "llm.complete)") as notes:
            box.stop("gateway", grace=30)  # (write_receipts may have stopped it)
            box.stop("sidecar", grace=30)  # sidecar_stopped's, started by hand
            wait_for(lambda: not box.sidecar_answers(), "the sidecar to stop", 30)
            for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
                box.env.pop(name, None)
            config = box.data / "config.json"
            expect(not config.exists() or "apiKey" not in config.read_text(),
                   "the sidecar's config holds a key")
            anthropic_before = len(box.extraction_requests())
            self.start_gateway()
            wait_for(lambda: box.sidecar_status()["extraction"]["route"]["active"] == "host",
                     "the plugin to offer the agent's model", 60)
            status = box.sidecar_status()
            pid = int(status["pid"])
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            expect(not [v for v in environ if v.startswith(b"ANTHROPIC_")],
                   "the sidecar has an ANTHROPIC_ variable")
            extraction = status["extraction"]
            expect(extraction["apiKey"] is False and extraction["baseUrl"] is None,
                   f"the sidecar has a key or base URL: {extraction}")
            hosts = extraction["route"]["hosts"]
            expect(hosts and hosts[-1]["client"]["name"] == "openclaw", f"hosts: {hosts}")
            box.set_extraction_reply(
                {"type": "fact", "content": "The beta opens on March 3 under the name KESTREL",
                 "subject": "launch"},
                {"type": "handoff", "content": "KESTREL beta date set; invitations next"})
            result = self.turn("ZC-HOST-ONE Remember: the beta opens on March 3, named KESTREL.")
            session = result["result"]["meta"]["agentMeta"]["sessionId"]
            self.reset()
            entries = self.wait_entries(
                "the host model's entries",
                lambda es: any(e["session"] == session and "KESTREL" in e["content"]
                               and e["type"] == "handoff" for e in es), timeout=90)
            mine = [e for e in entries if e["session"] == session]
            facts = [e for e in mine if e["type"] == "fact" and "KESTREL" in e["content"]]
            handoffs = [e for e in mine if e["type"] == "handoff" and "KESTREL" in e["content"]]
            expect(len(facts) == 1, f"expected the fact once, found {len(facts)}")
            expect(len(handoffs) == 1, f"expected one handoff, found {len(handoffs)}")
            through = [r for r in box.model_requests() if r["_meta"]["reply"].get("extraction")
                       and any("ZC-HOST-ONE" in text_of(m.get("content"))
                               for m in r.get("messages", []))]
            expect(len(through) == 1, f"the extraction prompt went {len(through)} times "
                   "through the agent's model")
            expect(len(box.extraction_requests()) == anthropic_before,
                   "the fake Anthropic API was called")
            notes.append(f"session {session}: fact {facts[0]['id']}, handoff "
                         f"{handoffs[0]['id']}; the extraction prompt went through the fake "
                         f"OpenAI model ({through[0].get('model')}); route: "
                         f"{extraction['route']['reason']}")

    def check_memory_wiki_bridge(self) -> None:
        box = self.box
        with self.check("memory_wiki_bridge",
                        "memory-wiki in bridge mode on the running gateway lists and "
                        "imports the artifacts the sidecar publishes "
                        "(publicArtifacts)") as notes:
            box.stop("gateway", grace=30)
            wait_for(lambda: not box.sidecar_answers(), "the sidecar to stop with the gateway", 30)
            settings = box.data / "config.json"
            current = json.loads(settings.read_text()) if settings.exists() else {}
            settings.write_text(json.dumps({**current, "artifacts": {"publish": True}}))
            path = box.state / "openclaw.json"
            config = json.loads(path.read_text())
            config["plugins"]["entries"]["memory-wiki"] = {
                "enabled": True,
                "config": {"vaultMode": "bridge",
                           "bridge": {"enabled": True, "readMemoryArtifacts": True}}}
            path.write_text(json.dumps(config, indent=2))
            self.start_gateway()
            with Client(box.socket, timeout=60) as client:
                client.call("memory.remember", {"type": "fact", "subject": "harbour",
                                                "content": "The harbour pilot is called OSPREY"})
                client.call("vault.build", {})
                listed = client.call("artifacts.list", {})
            expect(listed["published"] is True, f"not published: {listed}")
            # memory-wiki's default vault scope is "global": one wiki for every agent, so it
            # counts and imports every agent's artifacts (family's too, second_agent_isolated's)
            every = listed["artifacts"]
            mine = [a for a in every if "main" in a["agentIds"]]
            kinds = sorted({a["kind"] for a in mine})
            expect(kinds == ["briefing", "log-export", "vault-page"], f"kinds {kinds}")
            status = box.openclaw_json("wiki", "status", "--agent", "main", "--json",
                                       timeout=180, name="wiki-status")
            expect(status["vaultMode"] == "bridge", f"vault mode {status['vaultMode']!r}")
            expect(status["bridgePublicArtifactCount"] == len(every),
                   f"memory-wiki counts {status['bridgePublicArtifactCount']} artifacts, the "
                   f"sidecar lists {len(every)} ({len(mine)} of main's)")
            codes = [w.get("code") for w in status.get("warnings", [])]
            expect("bridge-artifacts-missing" not in codes, f"warnings: {status['warnings']}")
            imported = box.openclaw_json("wiki", "bridge", "import", "--agent", "main", "--json",
                                         timeout=180, name="wiki-bridge-import")
            expect(imported["artifactCount"] == len(every),
                   f"imported {imported['artifactCount']} of {len(every)}")
            vault = Path(status["vaultPath"])
            holding_fact = sorted(p for p in imported["pagePaths"]
                                  if "OSPREY" in (vault / p).read_text())
            expect(any("exports-log-json" in p for p in holding_fact)
                   and any("harbour" in p for p in holding_fact),
                   f"the fact is not in the imported export and topic page: {holding_fact}")
            doctor = box.openclaw_json("gateway", "call", "doctor.memory.status", "--json",
                                       timeout=120, name="gateway-doctor-memory-status")
            expect(doctor.get("provider") == "zettelclaw", f"doctor.memory.status: {doctor}")
            # zettelclaw init's dreaming.enabled = false: memory-core's default (on) was shown
            expect((doctor.get("dreaming") or {}).get("enabled") is False,
                   f"doctor.memory.status shows dreaming on: {doctor.get('dreaming')}")
            notes.append(f"wiki status: {status['bridgePublicArtifactCount']} exported artifacts "
                         f"({len(mine)} of main's: {', '.join(kinds)}); bridge import: "
                         f"{len(imported['pagePaths'])} pages, the fact in {len(holding_fact)}; "
                         f"doctor.memory.status: provider {doctor['provider']}, embedding "
                         f"{doctor.get('embedding')}, dreaming enabled "
                         f"{doctor['dreaming']['enabled']}")

    def check_host_embeddings(self) -> None:
        box = self.box
        title = ("search.embeddings = host: memory_search finds by meaning through OpenClaw's "
                 "own embedding provider (openai, on a fake server)")
        with self.check("host_embeddings", title) as notes:
            box.stop("gateway", grace=30)
            wait_for(lambda: not box.sidecar_answers(), "the sidecar to stop with the gateway", 30)
            embed_log = box.logs / "fake-embeddings.jsonl"
            url = box.start_fake("fake-embeddings", "tests.fakes.embeddings_api", "--log",
                                 str(embed_log))
            settings = box.data / "config.json"
            current = json.loads(settings.read_text()) if settings.exists() else {}
            current["search"] = {**current.get("search", {}), "embeddings": "host"}
            settings.write_text(json.dumps(current))
            path = box.state / "openclaw.json"
            config = json.loads(path.read_text())
            config["memory"]["search"].update(
                {"provider": "openai", "remote": {"baseUrl": url, "apiKey": "e2e-fake"}})
            path.write_text(json.dumps(config, indent=2))
            self.start_gateway()
            decision = "We went with Postgres for the books"
            with Client(box.socket, timeout=60) as client:
                client.call("memory.remember", {"type": "decision", "subject": "ledger",
                                                "content": decision})
            model = "host:openai/text-embedding-3-small"

            def embedded() -> bool:
                semantic = box.sidecar_status()["search"]["semantic"]
                return bool(semantic["on"] and semantic.get("model") == model
                            and semantic.get("coveredThroughLine") == semantic.get("lines"))

            wait_for(embedded, "the vectors made through the host's provider", 120)
            semantic = box.sidecar_status()["search"]["semantic"]
            hosts = semantic["hosts"]
            expect([(h["client"]["name"], h["provider"], h["model"]) for h in hosts]
                   == [("openclaw", "openai", "text-embedding-3-small")], f"hosts: {hosts}")
            query = "which database did we pick for the ledger"
            self.turn(f'ZC-EMBED-ONE CALL_TOOL:memory_search {{"query": "{query}"}}')
            found = tool_result(box.model_requests(), "ZC-EMBED-ONE")
            expect(found.get("mode") == "hybrid", f"mode {found.get('mode')}: "
                   f"{found.get('fallback')}")
            top = (found.get("results") or [{}])[0]
            expect(decision in str(top.get("snippet")), f"the first result: {top}")
            asked = read_jsonl(embed_log)
            expect(any(r.get("input") == [query] for r in asked),
                   f"the query never reached the embeddings server ({len(asked)} requests)")
            expect({r.get("model") for r in asked} == {"text-embedding-3-small"},
                   f"models asked: {sorted({str(r.get('model')) for r in asked})}")
            notes.append(f"{len(asked)} requests to the fake /v1/embeddings "
                         f"({sum(len(r.get('input') or []) for r in asked)} texts); "
                         f"{semantic['lines']} lines embedded as {model}; the decision first "
                         f"in hybrid mode")

    def check_sync_two_gateways(self) -> None:
        # this file runs as a script (its folder first on sys.path): the repository is put there
        # too, and the check is handed this module, so that its helpers and its CheckFailed are
        # the ones this run catches (an import of tests.e2e.openclaw_e2e would be a second copy)
        sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
        from tests.e2e.sync_gateways import check_sync_two_gateways

        check_sync_two_gateways(self, sys.modules[__name__])

    def run(self) -> None:
        try:
            self.setup()
            self.check_init()
            self.start_gateway()
        except (CheckFailed, subprocess.TimeoutExpired, OSError) as exc:
            print(f"FAIL setup: {exc}", flush=True)
            print(tail(self.box.gateway_log(), 40), flush=True)
            self.results.append(Result("", "setup", False, 0.0))
            return
        for name in CHECKS:
            if self.only is None or name in self.only:
                getattr(self, f"check_{name}")()
        started = time.monotonic()
        self.box.stop("gateway", grace=30)
        print(f"     gateway stopped in {time.monotonic() - started:.1f} s", flush=True)


def holding(word: str, *roots: Path) -> dict[str, int]:
    """The files under ``roots`` whose bytes hold ``word`` in any case: path -> count."""
    needle = word.lower().encode()
    found: dict[str, int] = {}
    for root in roots:
        for path in root.rglob("*"):
            if not path.is_file() or path.is_symlink():
                continue
            try:
                count = path.read_bytes().lower().count(needle)
            except OSError:
                continue
            if count:
                found[f"{root.name}/{path.relative_to(root)}"] = count
    return found


def hms(moment: float) -> str:
    return time.strftime("%H:%M:%S", time.gmtime(moment))


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, required=True, help="the sandbox (empty directory)")
    parser.add_argument("--node-bin", type=Path, required=True, help="Node 24's bin directory")
    parser.add_argument("--openclaw-package", type=Path, required=True,
                        help="the installed openclaw package (node_modules/openclaw)")
    parser.add_argument("--sidecar-venv", type=Path, required=True,
                        help="a venv with the zettelclaw wheel installed (scripts/package)")
    parser.add_argument("--only", default="",
                        help="comma-separated names of the checks to run (their numbers too; "
                             "default: all)")
    args = parser.parse_args()
    try:
        only = chosen(args.only)
    except ValueError as exc:
        parser.error(str(exc))
    repo = Path(__file__).resolve().parents[2]
    box = Sandbox(args.dir.resolve(), repo, args.node_bin.resolve(),
                  args.openclaw_package.resolve(), args.sidecar_venv.resolve())
    e2e = E2E(box)
    started = time.monotonic()

    def interrupted(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupted)
    try:
        e2e.only = only
        e2e.run()
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        e2e.results.append(Result("", "interrupted", False, 0.0))
    finally:
        box.stop_all()
    passed = sum(r.passed for r in e2e.results)
    failed = len(e2e.results) - passed
    checks = [name for name in CHECKS if any(r.name == name for r in e2e.results)]
    ok = [n for n in checks if all(r.passed for r in e2e.results if r.name == n)]
    failing = [n for n in checks if n not in ok]
    print(f"e2e: checks passed: {ok or 'none'}; failed: {failing or 'none'}; "
          f"total {time.monotonic() - started:.1f} s", flush=True)
    print(f"{passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
