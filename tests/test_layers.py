"""The folders are the layers, and each imports only what its docstring allows."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "montones"

# What each layer may import of the project's own, besides itself (see each __init__.py).
ALLOWED = {
    "rules": set(),
    "data": {"montones.rules", "montones.extensions"},
    "service": {"montones.rules", "montones.data", "montones.extensions"},
    "live": {
        "montones.rules",
        "montones.data",
        "montones.service",
        "montones.extensions",
    },
    "web": {
        "montones.rules",
        "montones.data",
        "montones.service",
        "montones.live",
        "montones.extensions",
    },
}


def imported(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return {name for name in found if name.startswith("montones.") or name == "montones"}


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_below_it(layer):
    own = f"montones.{layer}"
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for name in imported(path):
            if name.startswith(own + ".") or name == own:
                continue
            assert any(name == a or name.startswith(a + ".") for a in ALLOWED[layer]), (
                f"{path.relative_to(PACKAGE.parent)} imports {name}"
            )


TESTS = Path(__file__).resolve().parent


def imported_from_tests(path: Path) -> set[str]:
    """What of ``tests`` a module imports that is a test module (``test_*.py``) or a bench script."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "tests" and (
                parts[-1].startswith("test_") or (len(parts) > 1 and parts[1] == "bench")
            ):
                found.add(name)
    return found


def test_no_test_module_imports_another_or_a_bench_script():
    # What tests share lives in tests/helpers/ (or a conftest), not in a test module; the bench
    # scripts (tests/bench/) are run by hand and share only among themselves.
    found = [
        f"{path.relative_to(TESTS.parent)} imports {name}"
        for path in sorted(TESTS.rglob("*.py"))
        if "bench" not in path.relative_to(TESTS).parts
        for name in sorted(imported_from_tests(path))
    ]
    assert not found, "\n".join(found)
