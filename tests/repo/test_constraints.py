"""constraints.txt pins every dependency pyproject.toml declares (runtime and test), each within
the range pyproject.toml allows: CI installs with ``-c constraints.txt``, so a dependency added
without a pin, or a pin the range no longer admits, is caught here rather than by a broken
install."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]


def declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        lines.extend(extra)
    return [Requirement(line) for line in lines]


def pins() -> dict[str, Version]:
    pinned: dict[str, Version] = {}
    for raw in (ROOT / "constraints.txt").read_text().splitlines():
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        requirement = Requirement(text)
        (spec,) = requirement.specifier  # one exact pin a line: name==version
        assert spec.operator == "==", f"constraints.txt: {raw!r} is not an exact pin"
        name = canonicalize_name(requirement.name)
        assert name not in pinned, f"constraints.txt pins {name} twice"
        pinned[name] = Version(spec.version)
    return pinned


def test_every_dependency_is_pinned_within_its_range() -> None:
    pinned = pins()
    problems = []
    for requirement in declared():
        name = canonicalize_name(requirement.name)
        if name not in pinned:
            problems.append(f"{requirement}: not in constraints.txt")
        elif not requirement.specifier.contains(pinned[name], prereleases=True):
            problems.append(f"{requirement}: constraints.txt pins {pinned[name]}")
    assert not problems, "regenerate constraints.txt (its header says how):\n" + "\n".join(
        problems)


def test_every_runtime_dependency_has_an_upper_bound() -> None:
    """A new major version of a dependency is a change to make on purpose, not one pip makes."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    unbounded = [line for line in project["dependencies"]
                 if not any(s.operator in {"<", "<=", "==", "~="}
                            for s in Requirement(line).specifier)]
    assert not unbounded


def test_the_project_itself_is_not_pinned() -> None:
    """A pin of zettelclaw would stop the install of the clone's own (next) version."""
    assert "zettelclaw" not in pins()
