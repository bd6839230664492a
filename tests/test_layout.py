"""The layout keeps its promises: SQL only in the storage layer, and no module too long to read."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("puzzles", "workers", "orchestrator")
MAX_LINES = 500
SERVICE_ERRORS = ROOT / "workers" / "failures.py"  # words the database's and broker's exceptions for the user


def modules(*packages: str) -> list[Path]:
    return sorted(path for package in packages for path in (ROOT / package).rglob("*.py"))


def imported(path: Path) -> set[str]:
    """The top-level packages a module imports."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_only_the_storage_layer_imports_sqlalchemy():
    store = ROOT / "workers" / "store"
    speaking_sql = [path.relative_to(ROOT) for path in modules(*PACKAGES)
                    if "sqlalchemy" in imported(path) and store not in path.parents and path != SERVICE_ERRORS]
    assert speaking_sql == []


def test_the_orchestrator_imports_no_database_or_queue_library():
    found = {str(path.relative_to(ROOT)): imported(path) & {"sqlalchemy", "alembic", "celery", "kombu"}
             for path in modules("orchestrator")}
    assert {path: names for path, names in found.items() if names} == {}


def test_no_module_is_longer_than_500_lines():
    long = {str(path.relative_to(ROOT)): n for path in modules(*PACKAGES) if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert long == {}
