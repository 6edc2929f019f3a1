"""The ``briefing`` record in state.json: the last run, its result, and the next run.

Part of state.json's one model (``state.BriefingRecord``), written under the data lock with the
rest of the file kept.
"""

from __future__ import annotations

from zettelclaw.home import Home
from zettelclaw.state import BriefingRecord, LastResult, State, load_state, update_state_locked


def load(home: Home) -> BriefingRecord:
    try:
        return load_state(home).briefing
    except ValueError:  # a damaged state.json: status still answers
        return BriefingRecord()


def ran_locked(home: Home, when: str, result: LastResult) -> None:
    """A run's time and result; the caller holds the data lock."""
    def change(state: State) -> None:
        state.briefing = state.briefing.model_copy(update={"last_run": when,
                                                           "last_result": result})
    update_state_locked(home, change)


def next_locked(home: Home, when: str | None) -> None:
    """The next run's time (None: none is scheduled); the caller holds the data lock."""
    def change(state: State) -> None:
        state.briefing = state.briefing.model_copy(update={"next_run": when})
    update_state_locked(home, change)
