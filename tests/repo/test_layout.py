"""tests/ mirrors the package (CONTRIBUTING.md, "Where the tests are"): a package's tests in the
folder of its name, a top-level module's in tests/ itself, and every folder that holds tests a
package of its own, so that two modules of the same name in two folders never collide."""

from __future__ import annotations

from pathlib import Path

import zettelclaw

TESTS = Path(__file__).resolve().parents[1]
PACKAGE = Path(zettelclaw.__file__).parent


def test_every_folder_of_tests_is_a_package() -> None:
    missing = sorted({path.parent.relative_to(TESTS.parent).as_posix()
                      for path in TESTS.rglob("test_*.py")
                      if not (path.parent / "__init__.py").is_file()})
    assert not missing, f"add an empty __init__.py to: {', '.join(missing)}"


def test_the_top_folder_holds_only_the_tests_of_top_level_modules() -> None:
    # test_serve_killed.py is serve.py's too: a module's name, then what of it is tested
    modules = {path.stem for path in PACKAGE.glob("*.py")} | {path.stem for path in
                                                               TESTS.glob("*.py")}
    astray = [path.name for path in sorted(TESTS.glob("test_*.py"))
              if not any(path.stem == f"test_{name}" or path.stem.startswith(f"test_{name}_")
                         for name in modules)]
    assert not astray, ("a test of a package goes in the folder of its name (tests/index/ for "
                        f"zettelclaw/index/): {', '.join(astray)}")
