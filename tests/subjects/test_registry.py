"""The subject registry, subjects.json (docs/03-log.md, ``zettelclaw.subjects.registry``).

Covers adding a subject (and SubjectExistsError, with data, for one already there), loading
(entries with a bad slug or shape are skipped with a warning), ``ensure_locked`` (only missing
slugs are added, Title Case, type ``project``), and ``title_case``.
"""

from __future__ import annotations

import logging

import orjson
import pytest

from zettelclaw import lock
from zettelclaw.errors import SubjectExistsError
from zettelclaw.home import Home
from zettelclaw.subjects.registry import Subject, SubjectRegistry, title_case


@pytest.fixture
def registry(home: Home) -> SubjectRegistry:
    return SubjectRegistry(home)


def write_subjects(home: Home, value: object) -> None:
    home.subjects.write_bytes(orjson.dumps(value))


def on_disk(home: Home) -> object:
    return orjson.loads(home.subjects.read_bytes())


# -- title_case ------------------------------------------------------------------------------


@pytest.mark.parametrize(("slug", "display"), [
    ("auth-migration", "Auth Migration"),
    ("max", "Max"),
    ("whisper-stt", "Whisper Stt"),
    ("v2-api", "V2 Api"),
    ("2026-goals", "2026 Goals"),
    ("a-b-c", "A B C"),
])
def test_title_case(slug: str, display: str) -> None:
    assert title_case(slug) == display


# -- add -------------------------------------------------------------------------------------


def test_load_without_a_file_is_empty(registry: SubjectRegistry, home: Home) -> None:
    assert not home.subjects.exists()
    assert registry.load() == {}


def test_add_registers_with_title_case_display_and_project_type(
        registry: SubjectRegistry, home: Home) -> None:
    subject = registry.add("auth-migration")
    assert subject == Subject(display="Auth Migration", type="project")
    assert registry.load() == {"auth-migration": subject}
    assert on_disk(home) == {"auth-migration": {"display": "Auth Migration", "type": "project"}}
    assert home.subjects.stat().st_mode & 0o777 == 0o600


def test_add_with_type_and_display(registry: SubjectRegistry, home: Home) -> None:
    registry.add("whisper-stt", type="system", display="Whisper STT")
    registry.add("max", type="person")
    assert on_disk(home) == {  # a person and a system
        "max": {"display": "Max", "type": "person"},
        "whisper-stt": {"display": "Whisper STT", "type": "system"},
    }


def test_adding_an_existing_subject_raises_with_its_data_and_changes_nothing(
        registry: SubjectRegistry, home: Home) -> None:
    registry.add("max", type="person", display="Max M.")
    before = home.subjects.read_bytes()
    with pytest.raises(SubjectExistsError) as info:
        registry.add("max", type="project")
    assert info.value.data == {"slug": "max", "display": "Max M.", "type": "person"}
    assert "max" in info.value.message
    assert home.subjects.read_bytes() == before


def test_add_keeps_the_other_subjects_and_fields_a_newer_version_wrote(
        registry: SubjectRegistry, home: Home) -> None:
    write_subjects(home, {"max": {"display": "Max", "type": "person", "color": "blue"}})
    registry.add("auth-migration")
    assert on_disk(home) == {
        "auth-migration": {"display": "Auth Migration", "type": "project"},
        "max": {"display": "Max", "type": "person", "color": "blue"},
    }


# -- load ------------------------------------------------------------------------------------


@pytest.mark.parametrize("slug", ["Auth_Migration", "authMigration", "auth migration", "-auth",
                                  "auth-", "auth--migration", "", "auth\n"])
def test_load_skips_a_bad_slug_with_a_warning(registry: SubjectRegistry, home: Home, slug: str,
                                              caplog: pytest.LogCaptureFixture) -> None:
    write_subjects(home, {slug: {"display": "X"}, "good": {"display": "Good"}})
    with caplog.at_level(logging.WARNING, logger="zettelclaw.subjects.registry"):
        loaded = registry.load()
    assert list(loaded) == ["good"]
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert repr(slug) in record.getMessage()


@pytest.mark.parametrize("value", [
    "Auth Migration",  # not an object
    None,
    {},  # no display
    {"display": ""},
    {"display": "   "},
    {"display": "Auth", "type": "Project"},  # type not lower case
    {"display": "Auth", "type": 3},
    {"display": "x" * 121},
])
def test_load_skips_a_bad_shape_with_a_warning(registry: SubjectRegistry, home: Home,
                                               value: object,
                                               caplog: pytest.LogCaptureFixture) -> None:
    write_subjects(home, {"auth": value, "good": {"display": "Good", "type": "person"}})
    with caplog.at_level(logging.WARNING, logger="zettelclaw.subjects.registry"):
        loaded = registry.load()
    assert loaded == {"good": Subject(display="Good", type="person")}
    [record] = caplog.records
    assert "auth" in record.getMessage()
    assert "ignored" in record.getMessage()


def test_load_defaults_the_type_to_project(registry: SubjectRegistry, home: Home) -> None:
    write_subjects(home, {"auth": {"display": "Auth"}})
    assert registry.load()["auth"].type == "project"


def test_load_of_a_file_that_is_not_an_object_names_the_file(registry: SubjectRegistry,
                                                             home: Home) -> None:
    write_subjects(home, ["auth"])
    with pytest.raises(ValueError, match=r"subjects\.json"):
        registry.load()


# -- ensure_locked ---------------------------------------------------------------------------


def test_ensure_locked_adds_only_missing_slugs(registry: SubjectRegistry, home: Home) -> None:
    registry.add("max", type="person", display="Max M.")
    with lock.exclusive(home.lock):
        new = registry.ensure_locked(["whisper-stt", "max", "auth-migration", "whisper-stt"])
    assert new == ["auth-migration", "whisper-stt"]
    assert registry.load() == {
        "max": Subject(display="Max M.", type="person"),  # untouched
        "auth-migration": Subject(display="Auth Migration", type="project"),
        "whisper-stt": Subject(display="Whisper Stt", type="project"),
    }


def test_ensure_locked_with_nothing_new_does_not_rewrite(registry: SubjectRegistry,
                                                         home: Home) -> None:
    registry.add("max")
    inode = home.subjects.stat().st_ino
    before = home.subjects.read_bytes()
    with lock.exclusive(home.lock):
        assert registry.ensure_locked({"max"}) == []
        assert registry.ensure_locked([]) == []
    assert home.subjects.stat().st_ino == inode  # a rewrite would have replaced the file
    assert home.subjects.read_bytes() == before


def test_ensure_locked_creates_the_file(registry: SubjectRegistry, home: Home) -> None:
    with lock.exclusive(home.lock):
        assert registry.ensure_locked(["auth"]) == ["auth"]
    assert on_disk(home) == {"auth": {"display": "Auth", "type": "project"}}


def test_saved_registry_is_sorted_by_slug(registry: SubjectRegistry, home: Home) -> None:
    for slug in ["zeta", "alpha", "mid"]:
        registry.add(slug)
    assert home.subjects.read_bytes().endswith(b"\n")
    assert list(orjson.loads(home.subjects.read_bytes())) == ["alpha", "mid", "zeta"]
