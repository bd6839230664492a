"""The optional parts of slidelab: a command whose extra is not installed says, in one line, which one to install.

The missing library is simulated by `None` in `sys.modules`, which is how
Python reports a module it may not import: `ModuleNotFoundError` naming it.
"""

import importlib
import sys
import tomllib

import pytest
from packaging.requirements import Requirement

import orchestrator.publish
from orchestrator.cli.options import EXTRAS, user_errors
from tests.conftest import ROOT
from tests.orchestrator.clirun import orchestrate

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
OPTIONAL = PYPROJECT["project"]["optional-dependencies"]
EXTRA_OF = {"web": "starlette"}  # the library each test takes away


def assert_needs(result, extra: str, message: str) -> None:
    """Exit 1 with one `error:` line naming the extra and how to install it."""
    assert result.exit_code == 1, (result.stdout, result.stderr, result.exception)
    lines = result.stderr.strip().splitlines()
    assert lines == [f"error: {message} needs the {extra} extra ({EXTRA_OF[extra]} is not installed):"
                     f" pip install 'slidelab[{extra}]'"], result.stderr


def test_the_dashboard_without_the_web_extra(monkeypatch, tmp_path):
    for loaded in [name for name in sys.modules if name.startswith("starlette.")]:  # imported by an earlier test
        monkeypatch.delitem(sys.modules, loaded)
    monkeypatch.setitem(sys.modules, "starlette", None)
    monkeypatch.delitem(sys.modules, "orchestrator.publish.dashboard", raising=False)
    monkeypatch.delattr(orchestrator.publish, "dashboard", raising=False)
    result = orchestrate("dashboard", "--db", f"sqlite:///{tmp_path / 'none.db'}")
    assert_needs(result, "web", "orchestrate dashboard")


def test_an_import_error_of_another_library_is_not_blamed_on_an_extra():
    with pytest.raises(ModuleNotFoundError), user_errors():
        importlib.import_module("no_such_library_of_slidelab")


def test_every_library_the_messages_name_is_installed_by_the_extra_they_name():
    for module, (extra, _) in EXTRAS.items():
        distributions = {Requirement(line).name for line in OPTIONAL[extra]}
        assert module in distributions, (module, extra, OPTIONAL[extra])


def test_the_test_extra_installs_every_other_extra():
    own = next(Requirement(line) for line in OPTIONAL["test"] if Requirement(line).name == "slidelab")
    assert own.extras == set(OPTIONAL) - {"test"}
    assert "bench" not in OPTIONAL
