"""Every way a text reaches the disk or a model goes through the scrubber (scrub/): the log's
appends and the index beside it (its WAL included), the spool and the transcript copies, the
index's chunks of workspace files, what vault-state/ keeps of an edited or deleted line, the
MEMORY.md block, and every prompt. Each test reads the bytes that were written (or the prompts
the fake Messages API received) for the secrets of ``CASES``: the kinds of docs/03-log.md's
"Secrets" list that the scrubber used to miss."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.briefing import briefing_data as data
from tests.briefing.briefing_data import NOW
from tests.conftest import entry
from tests.direct import open_app, open_pool
from tests.fakes.anthropic_api import FakeAnthropic, Reply
from zettelclaw.agents.pool import Agents
from zettelclaw.app import App
from zettelclaw.briefing.service import Briefing
from zettelclaw.config import ExtractionConfig, load_config
from zettelclaw.extraction.intake import HookCall, Intake
from zettelclaw.extraction.provenance import Provenance
from zettelclaw.extraction.spool import Spool
from zettelclaw.forget.service import hide_for_vault
from zettelclaw.home import Home
from zettelclaw.index.database import Index
from zettelclaw.index.file_chunks import WorkspaceIndexer
from zettelclaw.methods import build_methods
from zettelclaw.protocol.dispatcher import Dispatcher
from zettelclaw.vault import sync as vault_sync
from zettelclaw.vault.build import build

HEX32 = "3f9a0c47e1b25d68a9f0e3c7b1d4a6e2"
HEX64 = "9c1e7b3a5f2d8e4c6a0b9d7f1e3c5a7b" + "2d4f6e8a0c1b3d5f7e9a2c4b6d8f0e1a"
HF_LETTERS = "hf_" + "QwErTyUiOpAsDfGhJkLzXcVbNmQwErTyUi"
# (what is said, what must not survive)
CASES: list[tuple[str, str]] = [
    ("Passwort: Geheim123!", "Geheim123"),
    ("Mein Kennwort ist Sommerwind77", "Sommerwind77"),
    ("mot de passe : Soleil2024x", "Soleil2024x"),
    ("mi contraseña es GatoAzul88", "GatoAzul88"),
    ("мой пароль Tigrenok55", "Tigrenok55"),
    ("パスワードは Sakura2031 です", "Sakura2031"),
    ("the door code is 482193", "482193"),
    ("alarm code 739561", "739561"),
    ("pw is hunter2!", "hunter2"),
    (f'api_key = "{HEX32}"', HEX32),
    (f"X-Api-Key: {HEX32[::-1]}", HEX32[::-1]),
    (f"SECRET_KEY={HEX64}", HEX64),
    (f"the hub token is {HF_LETTERS}", HF_LETTERS),
    ("card cvv 7391", "7391"),
    ("my IBAN is GB82WEST12345698765432", "GB82WEST12345698765432"),
]
SECRETS = [secret for _, secret in CASES]


def _pattern(secret: str) -> re.Pattern[bytes]:
    # not inside a longer run of digits: tantivy's segment footers say their checksum in
    # decimal ("crc":2473916931), where a four-digit code turns up by chance now and then
    return re.compile(rb"(?<![0-9])" + re.escape(secret.encode()) + rb"(?![0-9])")


PATTERNS = [(secret, _pattern(secret)) for secret in SECRETS]


def leaked(root: Path) -> list[tuple[str, str]]:
    """(file, secret) for each secret found in any file under ``root``."""
    out = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        out += [(str(path.relative_to(root)), s) for s, found in PATTERNS if found.search(data)]
    return out


def test_a_secret_is_found_wherever_it_is_written_but_not_inside_a_longer_number(
        tmp_path: Path) -> None:
    (tmp_path / "footer.fast").write_bytes(b'{"index_format_version":7},"crc":2473916931}V\0')
    assert leaked(tmp_path) == []
    (tmp_path / "terms.idx").write_bytes(b"\x00\x04" + b"7391" + b"\x05cvv")
    (tmp_path / "log.jsonl").write_bytes(b'{"content":"card cvv 7391"}\n')
    assert leaked(tmp_path) == [("log.jsonl", "7391"), ("terms.idx", "7391")]


@pytest.fixture
async def pool(home: Home, workspace: Path) -> AsyncIterator[Agents]:
    agents = open_pool(home, workspace)
    yield agents
    agents.close_all()


@pytest.mark.slow
async def test_remembered_secrets_reach_neither_the_log_nor_the_index_and_its_wal(
        pool: Agents, home: Home) -> None:
    d = Dispatcher(build_methods(pool, dict))
    for said, _ in CASES:
        await d.call("memory.remember", {"type": "fact", "content": f"Note: {said}",
                                         "detail": said})
    found = await d.call("memory.search", {"query": "door code alarm IBAN"})
    assert found["results"]  # the index was written (and its WAL) before the bytes are read
    assert leaked(home.root) == []
    assert b"[redacted: password]" in home.log.read_bytes()


def test_intake_keeps_none_of_them_in_the_spool_or_the_transcript_copy(home: Home) -> None:
    messages = [{"role": "user", "content": said, "timestamp": 1_795_000_000_000 + i}
                for i, (said, _) in enumerate(CASES)]
    intake = Intake(home, ExtractionConfig(), Provenance(home), Spool(home), [])
    intake.accept(HookCall(trigger="sessionEnd", session_id="s-secret",
                           session_key="agent:main:main", messages=messages))
    assert (home.root / "transcripts").is_dir()
    assert leaked(home.root) == []


def test_a_workspace_files_secrets_stay_out_of_the_index_and_its_lines_keep_their_numbers(
        index: Index, workspace: Path) -> None:
    key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc\n-----END RSA PRIVATE KEY-----"
    text = "\n".join(["# Monday", key, *(said for said, _ in CASES),
                      "my password is Hunter22", "the last line"]) + "\n"
    (workspace / "memory").mkdir(exist_ok=True)
    (workspace / "memory" / "2026-12-07.md").write_text(text)
    WorkspaceIndexer(index, workspace).sync()
    with index.read() as conn:
        rows = conn.execute("SELECT start_line, end_line, text FROM chunks").fetchall()
    kept = "\n".join(r[2] for r in rows)
    assert "MIIEowIBAAKCAQEA7" not in kept
    assert "Hunter22" not in kept
    assert "[redacted: private key]" in kept
    # the lines after the key are where they are in the file
    last = next(r for r in rows if "the last line" in r[2])
    assert r_line(last, "the last line") == text.splitlines().index("the last line") + 1
    assert leaked(index.path.parent) == []


def r_line(row: Any, needle: str) -> int:
    start, _, chunk = row
    return int(start) + next(i for i, line in enumerate(chunk.split("\n")) if needle in line)


# -- the vault ------------------------------------------------------------------------------

@pytest.fixture
def app(home: Home, workspace: Path) -> Iterator[App]:
    made = open_app(home, workspace)
    yield made
    made.close()


def _vault_page(app: App, write_log: Callable[..., Any]) -> Path:
    write_log(entry("fact", "The office wifi is on the second floor", subject="office",
                    timestamp="2026-02-20T09:00:00Z"),
              entry("fact", "The alarm panel is by the back door", subject="office",
                    timestamp="2026-02-20T09:01:00Z"))
    build(app)
    return app.home.root / "vault" / "01 Notes" / "Office.md"


def test_a_secret_typed_into_a_vault_line_reaches_neither_the_log_nor_vault_state(
        app: App, write_log: Callable[..., Any]) -> None:
    page = _vault_page(app, write_log)
    text = page.read_text()
    page.write_text(text.replace("on the second floor", "on the second floor, my password is "
                                 "Hunter22 and Passwort: Geheim123!"))
    synced = vault_sync.sync(app, hide=hide_for_vault)
    assert synced.corrections == 1
    assert "[redacted: password]" in synced.receipts[0].line
    for secret in ("Hunter22", "Geheim123"):
        assert secret not in synced.receipts[0].line
        assert secret.encode() not in app.home.log.read_bytes()
        assert not [p for p in (app.home.root / "vault-state").rglob("*")
                    if p.is_file() and secret.encode() in p.read_bytes()]
    # the page itself is the person's, as typed; a second sync finds nothing new
    assert "Hunter22" in page.read_text()
    assert vault_sync.sync(app, hide=hide_for_vault).receipts == []


def test_a_deleted_lines_text_leaves_vault_state(app: App, write_log: Callable[..., Any]
                                                   ) -> None:
    page = _vault_page(app, write_log)
    typed = "left 12 right 34 left 56"  # a combination no scrubber can know for one
    page.write_text(page.read_text().replace("is by the back door", f"opens with {typed}"))
    assert vault_sync.sync(app, hide=hide_for_vault).corrections == 1
    state = app.home.root / "vault-state"
    assert any(typed.encode() in p.read_bytes() for p in state.rglob("*.json"))
    page.write_text("\n".join(row for row in page.read_text().split("\n") if typed not in row))
    assert vault_sync.sync(app, hide=hide_for_vault).receipts == []
    assert not [p for p in state.rglob("*.json") if typed.encode() in p.read_bytes()]
    # the deleted line is not put back by the next build
    build(app)
    assert typed not in page.read_text()


# -- MEMORY.md and the prompt -----------------------------------------------------------------

@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    api = FakeAnthropic().start()
    api.default = None
    yield api
    api.stop()


@pytest.mark.slow
async def test_neither_memory_md_nor_the_model_sees_a_secret_written_into_the_log_by_hand(
        home: Home, workspace: Path, write_log: Callable[..., Any], fake: FakeAnthropic
        ) -> None:
    """A line written into log.jsonl by hand is the person's and kept as written; the prompt
    quoting it and the block showing it are scrubbed, and so is a summary that echoes it."""
    said = "; ".join(s for s, _ in CASES[:8])
    log = [{**e, "content": f"{e['content']} ({said})"} if e.get("subject") == "auth-migration"
           else e for e in data.LOG]
    data.write(home, write_log, log)
    fake.add(Reply(text=orjson.dumps({"subject": "auth-migration",
                                      "summary": f"Retries done; {CASES[8][0]}"}).decode()),
             Reply(text="{}"))
    config = load_config(home, env={"ANTHROPIC_API_KEY": "test-key",
                                    "ANTHROPIC_BASE_URL": fake.url},
                         overrides=[f"cron.timezone={data.ZONE}", "extraction.model=claude-test",
                                    "extraction.timeoutSeconds=5"])
    app = open_app(home, workspace, settings=config)
    try:
        result = await Briefing(home, workspace, config, app.syncer, app.router,
                                clock=lambda: NOW).generate()
    finally:
        app.close()
    assert result.model.used
    assert fake.prompts()
    for secret in SECRETS[:9]:
        assert not [p for p in fake.prompts() if secret in p], secret
        assert secret not in (workspace / "MEMORY.md").read_text(), secret
    assert "[redacted: " in (workspace / "MEMORY.md").read_text()
    assert "Geheim123" in home.log.read_text()  # the hand-written line is left as written


@pytest.mark.slow
def test_an_embedding_server_is_sent_no_secret_of_a_hand_written_line_nor_of_a_query(
        home: Home, workspace: Path, write_log: Callable[..., Any]) -> None:
    from tests.direct import Direct
    from tests.fakes.embeddings_api import FakeEmbeddings
    from zettelclaw.config import SearchConfig
    from zettelclaw.protocol.params import SearchParams
    from zettelclaw.search.http_embeddings import HttpEmbedder

    api = FakeEmbeddings().start()
    settings = SearchConfig(embeddings="http", embedding_url=api.url,
                            embedding_model="nomic-embed-text", semantic="auto")
    write_log(*[entry("fact", f"The office: {said}") for said, _ in CASES])
    m = Direct.open(home, workspace, settings)
    try:
        m.searcher.semantic.use(HttpEmbedder(settings))
        m.sync()
        while m.searcher.semantic.embed_pending():
            pass
        m.search(SearchParams.model_validate({"query": "was the Passwort: Geheim123! right"}))
    finally:
        m.close()
        api.stop()
    sent = orjson.dumps(api.requests).decode()
    assert "office" in sent
    assert [s for s in SECRETS if s in sent] == []
