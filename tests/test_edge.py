"""methods/edge.py: the domain's dataclasses become the protocol's result models, and a None
the domain gives for a field the model leaves out when unknown is left out of the answer."""

from __future__ import annotations

from zettelclaw.briefing.service import BriefingRun, SectionCount
from zettelclaw.briefing.summaries import ModelReport
from zettelclaw.methods.edge import from_domain
from zettelclaw.protocol.results import Briefing


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
