"""briefing/service.py: whole runs on a workspace, with a fixed log and a fixed clock.

Covers: MEMORY.md created when missing (exact file); markers appended to a file without them;
manual content before, after and between runs kept byte for byte; an unchanged block is not
rewritten (same inode and mtime); a dry run writes nothing and records nothing; maxLines cuts the
block with its last line; the block held so that MEMORY.md fits in 200 lines (and a warning
when it cannot); the fake model's summaries and flags in the file; a 500 and a garbage reply, and
no API key, give the deterministic block; malformed markers refused, the file untouched, the
failure recorded; another workspaceDir; a link leading outside refused; state.json's record;
status (last and next run in the zone, MEMORY.md's lines, the 200-line and failure warnings).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.briefing import briefing_data as data
from tests.briefing.briefing_data import NOW, e
from tests.direct import open_app
from tests.fakes.anthropic_api import FakeAnthropic, Reply
from zettelclaw.app import App
from zettelclaw.briefing import record
from zettelclaw.briefing.service import Briefing, BriefingRun, BriefingStatus, SectionCount
from zettelclaw.briefing.summaries import NO_KEY, ModelReport
from zettelclaw.config import Config, load_config
from zettelclaw.errors import MarkersError, PathNotAllowedError
from zettelclaw.home import Home
from zettelclaw.state import BriefingRecord, LastResult, ModelRun
from zettelclaw.workspace.markers import BEGIN, END

Make = Callable[..., Briefing]
MANUAL = "## Goals\n- Ship auth migration by end of month\n\n## Preferences\n- Bun, never yarn\n"


def settings(home: Home, *extra: str, env: dict[str, str] | None = None) -> Config:
    return load_config(home, env=env or {}, overrides=[
        f"cron.timezone={data.ZONE}", "extraction.model=claude-test",
        "extraction.timeoutSeconds=5", *extra])


@pytest.fixture
def make(home: Home, workspace: Path, write_log: Callable[..., Any]) -> Iterator[Make]:
    apps: list[App] = []

    def build(*extra: str, log: list[dict[str, Any]] = data.LOG,
              env: dict[str, str] | None = None) -> Briefing:
        if not apps:
            data.write(home, write_log, log)
        config = settings(home, *extra, env=env)
        apps.append(app := open_app(home, workspace, settings=config))
        return Briefing(home, workspace, config, app.syncer, app.router, clock=lambda: NOW)

    yield build
    for app in apps:
        app.close()


def file_with(*lines: str, before: str = "") -> str:
    return before + "".join(f"{line}\n" for line in (BEGIN, *lines, END))


async def test_memory_md_is_created_when_missing(make: Make, workspace: Path,
                                                 home: Home) -> None:
    result = await make().generate()
    path = workspace / "MEMORY.md"
    assert path.read_text() == file_with(*data.DETERMINISTIC)
    assert result == BriefingRun(
        path=str(path), dry_run=False, changed=True, written=True,
        block="".join(f"{line}\n" for line in data.DETERMINISTIC), lines=18, cut=False,
        sections={"active": SectionCount(2, 2), "decisions": SectionCount(2, 2),
                  "pending": SectionCount(2, 2), "questions": SectionCount(1, 1),
                  "stale": SectionCount(2, 2), "contradictions": SectionCount(0, 0)},
        model=ModelReport(used=False, summaries=0, contradictions=0, skipped=NO_KEY),
        memory_md_lines=20, warnings=[])
    assert record.load(home) == BriefingRecord(
        last_run="2026-02-21T03:00:00-05:00", last_result=LastResult(
            ok=True, trigger="manual", path=str(path), changed=True, lines=18, cut=False,
            model=ModelRun(used=False, summaries=0, contradictions=0, skipped=NO_KEY)))


async def test_manual_content_is_kept_around_and_between_runs(make: Make,
                                                              workspace: Path) -> None:
    path = workspace / "MEMORY.md"
    path.write_text(MANUAL)
    briefing = make()
    await briefing.generate()
    assert path.read_text() == file_with(*data.DETERMINISTIC, before=MANUAL + "\n")
    # the person edits the manual part above and below the block, and the block itself
    edited = MANUAL.replace("- Bun, never yarn\n", "- Bun, never yarn\n- No Friday deploys\n")
    text = path.read_text().replace(MANUAL, edited)
    text = text.replace("## Stale", "## Stale (edited by hand)") + "\n## Notes\nverbatim  \t\n"
    path.write_bytes(text.encode())
    result = await briefing.generate()
    assert result.changed
    assert path.read_text() == (file_with(*data.DETERMINISTIC, before=edited + "\n")
                                + "\n## Notes\nverbatim  \t\n")


async def test_an_unchanged_block_is_not_rewritten(make: Make, workspace: Path) -> None:
    briefing = make()
    await briefing.generate()
    path = workspace / "MEMORY.md"
    before = path.stat()
    result = await briefing.generate()
    assert (result.changed, result.written) == (False, False)
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


async def test_a_dry_run_writes_and_records_nothing(make: Make, workspace: Path,
                                                    home: Home) -> None:
    result = await make().generate(dry_run=True)
    assert (result.dry_run, result.changed, result.written) == (True, True, False)
    assert result.block == "".join(f"{line}\n" for line in data.DETERMINISTIC)
    assert not (workspace / "MEMORY.md").exists()
    assert record.load(home) == BriefingRecord()


async def test_max_lines_cuts_the_block_with_a_last_line(make: Make, workspace: Path) -> None:
    result = await make("briefing.maxLines=10").generate()
    assert result.cut
    assert result.lines == 10
    lines = (workspace / "MEMORY.md").read_text().splitlines()
    assert lines[0] == BEGIN
    assert lines[-1] == END
    assert len(lines) == 12
    assert lines[-2].startswith("_Not shown: 1 active subject, 1 recent decision, ")
    assert result.sections["stale"] == SectionCount(shown=0, total=2)


def tasks(n: int) -> list[dict[str, Any]]:
    return [e(f"t{i:011d}", "2026-02-20T10:00:00Z", "task", f"task number {i}")
            for i in range(n)]


async def test_the_block_is_held_so_that_memory_md_fits_in_200_lines(
        make: Make, workspace: Path) -> None:
    path = workspace / "MEMORY.md"
    path.write_text("".join(f"manual line {i}\n" for i in range(150)))
    result = await make(log=tasks(100)).generate()
    # 150 manual lines, a blank line, two markers: 47 lines are left for the block
    assert result.lines == 47
    assert result.memory_md_lines == 200
    assert result.cut
    assert result.warnings == [
        "the block was held to 47 lines (briefing.maxLines is 80) so that MEMORY.md fits in "
        "the 200 lines OpenClaw loads"]


async def test_a_manual_part_too_long_for_200_lines_is_warned_about(
        make: Make, workspace: Path) -> None:
    path = workspace / "MEMORY.md"
    path.write_text("".join(f"manual line {i}\n" for i in range(195)))
    briefing = make(log=tasks(100))
    result = await briefing.generate()
    assert result.lines == 10  # never fewer
    assert result.memory_md_lines == 208
    assert result.warnings[-1] == ("MEMORY.md is 208 lines; OpenClaw loads only the first "
                                      "200: shorten the part outside the briefing markers")
    status = briefing.status()
    assert status.memory_md_lines == 208
    assert status.warnings == [result.warnings[-1]]


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    api = FakeAnthropic().start()
    api.default = None
    yield api
    api.stop()


def model_env(fake: FakeAnthropic) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.url}


async def test_the_model_writes_summaries_and_flags(make: Make, workspace: Path,
                                                    fake: FakeAnthropic) -> None:
    fake.add(Reply(text=orjson.dumps({"subject": "auth-migration",
                                      "summary": "Retries done;\nbackfill next"}).decode()),
             Reply(text=orjson.dumps({"older": "d0000000sync", "newer": "d000000queue",
                                      "reason": "retry count"}).decode()))
    result = await make(env=model_env(fake)).generate()
    assert result.model == ModelReport(used=True, summaries=1, contradictions=1)
    active = ["## Active", "- auth-migration — Retries done; backfill next",
              data.SECTIONS["active"][2]]
    sections = dict(data.SECTIONS, active=active)
    expected = data.block(*sections.values(), ["## Contradictions", data.CONTRADICTION])
    assert (workspace / "MEMORY.md").read_text() == file_with(*expected)


@pytest.mark.parametrize("replies", [
    [Reply(status=500), Reply(status=500)],
    [Reply(text="Sure! Here is the briefing you asked for."), Reply(text="{{{")],
], ids=["500", "garbage"])
async def test_a_model_failure_leaves_the_deterministic_block(
        make: Make, workspace: Path, fake: FakeAnthropic, replies: list[Reply]) -> None:
    fake.add(*replies)
    result = await make(env=model_env(fake)).generate()
    assert result.model.error is not None
    assert result.written
    assert (workspace / "MEMORY.md").read_text() == file_with(*data.DETERMINISTIC)


async def test_no_api_key_calls_no_model(make: Make, workspace: Path,
                                         fake: FakeAnthropic) -> None:
    result = await make(env={"ANTHROPIC_BASE_URL": fake.url}).generate()
    assert result.model.skipped == NO_KEY
    assert fake.requests == []
    assert (workspace / "MEMORY.md").read_text() == file_with(*data.DETERMINISTIC)


async def test_malformed_markers_leave_the_file_alone(make: Make, workspace: Path,
                                                      home: Home) -> None:
    path = workspace / "MEMORY.md"
    path.write_text(f"{MANUAL}{BEGIN}\n- half a block\n")
    briefing = make()
    with pytest.raises(MarkersError):
        await briefing.generate()
    assert path.read_text() == f"{MANUAL}{BEGIN}\n- half a block\n"
    saved = record.load(home).last_result
    assert saved is not None
    assert saved.ok is False
    assert "without an END" in str(saved.error)
    assert briefing.status().warnings == [f"the last briefing failed: {saved.error}"]


async def test_another_workspace_dir(make: Make, workspace: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    result = await make().generate(str(other))
    assert result.path == str(other / "MEMORY.md")
    assert (other / "MEMORY.md").read_text() == file_with(*data.DETERMINISTIC)
    assert not (workspace / "MEMORY.md").exists()
    assert sorted(os.listdir(other)) == ["MEMORY.md"]


async def test_a_link_leading_outside_is_refused(make: Make, workspace: Path,
                                                 tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("not yours\n")
    (workspace / "MEMORY.md").symlink_to(outside)
    with pytest.raises(PathNotAllowedError):
        await make().generate()
    assert outside.read_text() == "not yours\n"


async def test_status_shows_the_last_and_the_next_run(make: Make, workspace: Path) -> None:
    briefing = make()
    assert briefing.status() == BriefingStatus(
        schedule="0 3 * * *", timezone=data.ZONE, last_run=None, last_result=None,
        next_run="2026-02-22T03:00:00-05:00", model=None,
        memory_md=str(workspace / "MEMORY.md"), memory_md_lines=None, warnings=[])
    await briefing.generate()
    status = briefing.status()
    assert status.last_run == "2026-02-21T03:00:00-05:00"
    assert status.last_result is not None
    assert status.last_result.ok is True
    assert status.memory_md_lines == 20
    assert make("cron.schedule=off").status().next_run is None
