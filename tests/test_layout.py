"""The layout keeps its promises: SQL only in the storage layer, the orchestrator's stages in one direction,
Typer only in the command line, and no module too long to read."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("puzzles", "workers", "orchestrator")
MAX_LINES = 500
MAX_COMMAND_LINES = 30  # a command's body: options in, one library call, output out
# The orchestrator's stages in the order data flows through them: each may import the ones before it, never after.
STAGES = ("text", "boards", "sweeps", "reports", "publish", "cli")
SERVICE_ERRORS = ROOT / "workers" / "failures.py"  # words the database's and broker's exceptions for the user


def modules(*packages: str) -> list[Path]:
    return sorted(path for package in packages for path in (ROOT / package).rglob("*.py"))


def imported_modules(path: Path) -> set[str]:
    """The dotted names a module imports anywhere in it (inside functions too), with `from X import y` as X.y."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def imported(path: Path) -> set[str]:
    """The top-level packages a module imports."""
    return {name.split(".")[0] for name in imported_modules(path)}


def stage(name: str) -> str | None:
    """The orchestrator stage a dotted name belongs to (`orchestrator.sweeps.plan` -> `sweeps`), None outside them."""
    parts = name.split(".")
    if parts[0] != "orchestrator" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in STAGES else None


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
    long = {str(path.relative_to(ROOT)): n for path in modules(*PACKAGES, "tests", "bench") if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_the_orchestrator_stages_import_only_earlier_stages():
    upward = {}
    for path in modules("orchestrator"):
        own = stage(".".join(path.relative_to(ROOT).with_suffix("").parts))
        if own is None:
            continue
        later = {name for name in imported_modules(path)
                 if (other := stage(name)) is not None and STAGES.index(other) > STAGES.index(own)}
        if later:
            upward[str(path.relative_to(ROOT))] = sorted(later)
    assert upward == {}


def test_only_the_command_line_imports_typer():
    cli = ROOT / "orchestrator" / "cli"
    typed = [str(path.relative_to(ROOT)) for path in modules(*PACKAGES, "slidelab")
             if {"typer", "click"} & imported(path) and cli not in path.parents]
    assert typed == []


def test_the_orchestrator_is_a_package_per_stage():
    top = {path.stem for path in (ROOT / "orchestrator").iterdir() if path.suffix == ".py" or (path / "__init__.py").exists()}
    assert top == {"__init__", *STAGES}


# The packages in the order they build on each other: each may import the ones before it, never after (the
# solver core, the runner and its store, the orchestrator's stages, the Python API over them); the command line,
# a thin layer over the Python API, may import it too.
LAYERS = ("puzzles", "workers", "orchestrator", "slidelab")
COMMAND_LINE = ROOT / "orchestrator" / "cli"


def test_each_package_imports_only_the_packages_below_it():
    upward = {}
    for level, package in enumerate(LAYERS):
        for path in modules(package):
            above = set(LAYERS[level + 1:]) - ({"slidelab"} if COMMAND_LINE in path.parents else set())
            if later := imported(path) & above:
                upward[str(path.relative_to(ROOT))] = sorted(later)
    assert upward == {}


def test_every_command_is_options_in_one_call_output_out():
    """A command's body (after its docstring) is short: the work is a call of the `slidelab` library."""
    long = {}
    for path in modules("orchestrator/cli"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and node.name.endswith("_command"):
                first = node.body[1] if ast.get_docstring(node) else node.body[0]
                if (size := node.end_lineno - first.lineno + 1) > MAX_COMMAND_LINES:
                    long[f"{path.name}:{node.name}"] = size
    assert long == {}


# A new domain is a package and a `DOMAINS` entry: what the command line shows of a domain is asked of its
# `puzzles.domains.Domain`, so nothing above the solver core names a domain's own modules.
DOMAIN_PACKAGES = ("puzzles.rushhour", "puzzles.npuzzle")


def is_domain_module(name: str) -> bool:
    return any(name == package or name.startswith(f"{package}.") for package in DOMAIN_PACKAGES)


def test_the_orchestrator_and_the_library_import_no_domain_module():
    naming = {str(path.relative_to(ROOT)): sorted(filter(is_domain_module, imported_modules(path)))
              for path in modules("orchestrator", "slidelab")}
    assert {path: names for path, names in naming.items() if names} == {}
    assert is_domain_module("puzzles.npuzzle.pdb") and not is_domain_module("puzzles.domains")
