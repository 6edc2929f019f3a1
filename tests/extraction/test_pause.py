"""The one owner of extraction's pause: why jobs wait, and until when."""

from __future__ import annotations

import logging

import pytest

from zettelclaw.extraction.pause import ModelPause


def test_waiting_pauses_and_says_each_reason_once(caplog: pytest.LogCaptureFixture) -> None:
    now = [1000.0]
    pause = ModelPause(clock=lambda: now[0])
    assert not pause.active()
    with caplog.at_level(logging.WARNING):
        pause.waiting("no key", 60)
        pause.waiting("no key", 60)
        pause.waiting("rate limited", 30)
    assert [r.getMessage() for r in caplog.records] == ["extraction waits: no key",
                                                        "extraction waits: rate limited"]
    assert (pause.reason, pause.until, pause.active()) == ("rate limited", 1030.0, True)
    now[0] = 1030.0
    assert not pause.active()


def test_an_answer_clears_the_reason_and_a_lift_the_pause() -> None:
    pause = ModelPause(clock=lambda: 0.0)
    pause.waiting("host gone", 60)
    pause.answered()
    assert (pause.reason, pause.active()) == (None, True)  # the wait already set stands
    pause.lift()
    assert (pause.reason, pause.active()) == (None, False)
