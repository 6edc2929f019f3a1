"""methods/edge.py: the domain's dataclasses become the protocol's result models, and a None
the domain gives for a field the model leaves out when unknown is left out of the answer.

Covers also: every dataclass a handler sends (``MIRRORS``, nested ones included) has its
model's fields and no other, so a field renamed on one side fails here; every ``from_domain``
in methods/ is in that table; a renamed field fails the call.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args, get_type_hints

import pytest
from pydantic import BaseModel

from zettelclaw.agents import roster
from zettelclaw.briefing import service as briefing_service
from zettelclaw.briefing.service import BriefingRun, SectionCount
from zettelclaw.briefing.summaries import ModelReport
from zettelclaw.extraction import reports as extraction_reports
from zettelclaw.extraction import sweep as extraction_sweep
from zettelclaw.forget.select import Kept
from zettelclaw.importing import answers
from zettelclaw.index import entries
from zettelclaw.llm import route
from zettelclaw.methods import edge
from zettelclaw.methods.edge import from_domain
from zettelclaw.protocol import results as r
from zettelclaw.protocol.results import Briefing
from zettelclaw.recall import receipts
from zettelclaw.search import searcher
from zettelclaw.vault import sync as vault_sync
from zettelclaw.workspace import claims


def run(model: ModelReport) -> BriefingRun:
    return BriefingRun(path="/w/MEMORY.md", dry_run=False, changed=True, written=True,
                       block="b\n", lines=1, cut=False,
                       sections={"active": SectionCount(shown=1, total=3)}, model=model,
                       memory_md_lines=3, warnings=[])


def test_nested_dataclasses_become_camel_case_and_unknowns_are_left_out() -> None:
    wire = from_domain(Briefing, run(ModelReport(used=False, summaries=0, contradictions=0,
                                                 skipped="no key"))).wire()
    assert wire == {"path": "/w/MEMORY.md", "dryRun": False, "changed": True, "written": True,
                    "block": "b\n", "lines": 1, "cut": False,
                    "sections": {"active": {"shown": 1, "total": 3}},
                    "model": {"used": False, "summaries": 0, "contradictions": 0,
                              "skipped": "no key"},
                    "memoryMdLines": 3, "warnings": []}


def test_a_field_without_a_default_is_sent_as_null() -> None:
    from zettelclaw.extraction.sweep import After, Need, SweepReport
    from zettelclaw.protocol.results import Sweep

    wire = from_domain(Sweep, SweepReport(sessions=[Need("s1", None), Need("s2", After("k", None))],
                                          skipped=[], retried=[])).wire()
    assert wire["sessions"] == [{"sessionId": "s1", "after": None},
                                {"sessionId": "s2", "after": {"key": "k", "timestamp": None}}]


# -- every domain dataclass a handler sends, held to its result model ------------------------

# (result model, the domain's dataclass): what each ``from_domain`` in methods/ turns into what
MIRRORS: list[tuple[type[BaseModel], type]] = [
    (r.Briefing, briefing_service.BriefingRun),
    (r.BriefingStatus, briefing_service.BriefingStatus),
    (r.JobsList, extraction_reports.JobsReport),
    (r.ExtractionStatus, extraction_reports.ExtractionStatus),
    (r.Sweep, extraction_sweep.SweepReport),
    (r.SearchStatus, searcher.SearchStatus),
    (r.Route, route.RouteStatus),
    (r.EntryWithChain, entries.Chain),
    (r.InvalidLine, entries.InvalidLine),
    (r.WorkspaceConflict, claims.Conflict),
    (r.Refusal, roster.Refusal),
    (r.Conversation, receipts.Written),
    (r.ImportPlan, answers.Plan),
    (r.ImportProgress, answers.Progress),
    (r.ImportRow, answers.Row),
    (r.ImportKept, Kept),
    (r.VaultSynced, vault_sync.Synced),
]


def _types(annotation: Any) -> Iterator[Any]:
    """The classes an annotation names: itself, a union's members, a list's or dict's items."""
    for member in edge._members(annotation):
        args = get_args(member)
        if args:
            for arg in args:
                yield from _types(arg)
        elif isinstance(member, type):
            yield member


def nested(model: type[BaseModel], domain: type) -> Iterator[tuple[type[BaseModel], type]]:
    """The pair, and the pairs of the domain's types its fields hold (dataclasses, models)."""
    yield model, domain
    hints = get_type_hints(domain)
    for name in edge.domain_fields(domain) or []:
        inner = [t for t in _types(hints[name])
                 if isinstance(t, type) and edge.domain_fields(t) is not None]
        target = model.model_fields.get(name)
        models = ([t for t in _types(target.annotation) if issubclass(t, BaseModel)]
                  if target else [])
        for found in inner:
            names = set(edge.domain_fields(found) or [])
            pick = next((m for m in models if names <= set(m.model_fields)),
                        models[0] if models else None)
            assert pick is not None, f"{domain.__name__}.{name}: no result model for it"
            yield from nested(pick, found)


def test_every_domain_dataclass_sent_has_its_models_fields() -> None:
    wrong = []
    for model, domain in MIRRORS:
        for pair in nested(model, domain):
            try:
                edge.mirror(*pair)
            except TypeError as exc:
                wrong.append(str(exc))
    assert not wrong, "rename the field on both sides:\n" + "\n".join(wrong)


def test_every_handler_conversion_is_in_the_table() -> None:
    methods = Path(edge.__file__).parent
    named = {model.__name__ for model, _ in MIRRORS}
    used = set()
    for path in methods.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "from_domain" and isinstance(node.args[0], ast.Name)):
                used.add(node.args[0].id)
    assert used, "the scan finds the calls"
    assert used <= named, f"add to MIRRORS: {sorted(used - named)}"


def test_a_renamed_field_fails_the_call_instead_of_leaving_the_answer() -> None:
    @dataclasses.dataclass
    class Renamed:  # BriefingModel's ``skipped`` renamed ``skip_reason``
        used: bool
        summaries: int
        contradictions: int
        error: str | None = None
        skip_reason: str | None = None

    with pytest.raises(TypeError, match=r"skip_reason"):
        from_domain(r.BriefingModel, Renamed(False, 0, 0, skip_reason="no key"))
