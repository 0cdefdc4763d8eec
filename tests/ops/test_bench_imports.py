"""README's `bench/` commands work as written: after the quick start's `pip install -e .`
and the `bench` extra the README installs before them, every module a named bench script
imports (directly, or through bench/, server/ or anything else of the repository) is the
standard library's, the repository's, or installed by the runtime dependencies or the
`bench` extra: never only by the `test` extra."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from functools import cache
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
READMES = (ROOT / "README.md", ROOT / "bench" / "investigations" / "README.md")
SCRIPT = re.compile(r"\bbench/[\w/]+\.py\b")
MODULE = re.compile(r"\bbench(?:\.\w+)+(?=:)")
INSTALL = ".venv/bin/pip install -e '.[bench]'"


def named_scripts() -> list[Path]:
    """Every bench script the READMEs tell a reader to run, by path or as a module."""
    found: set[Path] = set()
    for readme in READMES:
        text = readme.read_text()
        found.update(ROOT / path for path in SCRIPT.findall(text))
        found.update(ROOT / (name.replace(".", "/") + ".py") for name in MODULE.findall(text))
    return sorted(found)


def local_file(module: str) -> Path | None:
    base = ROOT / module.replace(".", "/")
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported(path: Path) -> set[str]:
    """The modules `path` imports, wherever in it (a function's lazy import too), as
    absolute names; `from package import name` also yields `package.name`."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def third_party(scripts: list[Path]) -> dict[str, Path]:
    """Each top-level module outside the standard library and the repository that the
    scripts' import graph reaches, with one file that imports it."""
    seen: set[Path] = set()
    outside: dict[str, Path] = {}
    queue = list(scripts)
    while queue:
        path = queue.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in imported(path):
            top = name.split(".")[0]
            if top in sys.stdlib_module_names or top == "__future__":
                continue
            found = local_file(name)
            if found is not None:
                queue.append(found)
            elif local_file(top) is None and not (ROOT / top).is_dir():
                outside.setdefault(top, path)
    return outside


@cache
def installed_with(extra: str) -> frozenset[str]:
    """The distributions `pip install -e '.[extra]'` installs: pyproject.toml's runtime
    dependencies and `extra`'s, and everything they require in turn."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [Requirement(text) for text in project["dependencies"]]
    wanted += [Requirement(text) for text in project["optional-dependencies"][extra]]
    found: set[str] = set()
    while wanted:
        requirement = wanted.pop()
        name = canonicalize_name(requirement.name)
        if name in found:
            continue
        found.add(name)
        for text in metadata.requires(requirement.name) or []:
            needed = Requirement(text)
            extras = {"", *requirement.extras}
            if needed.marker is None or any(
                needed.marker.evaluate({"extra": wanted_extra}) for wanted_extra in extras
            ):
                wanted.append(needed)
    return frozenset(found)


@cache
def providers() -> dict[str, list[str]]:
    """Top-level module -> the installed distributions that provide it."""
    return dict(metadata.packages_distributions())


def distributions_of(module: str) -> set[str]:
    return {canonicalize_name(name) for name in providers().get(module, [])}


def test_the_readme_names_bench_scripts_that_exist():
    scripts = named_scripts()
    assert len(scripts) >= 6
    assert [path for path in scripts if not path.is_file()] == []


def test_the_readme_installs_the_bench_extra_before_its_bench_commands():
    text = (ROOT / "README.md").read_text()
    assert INSTALL in text
    assert text.index(INSTALL) < text.index(".venv/bin/python bench/")


def test_every_module_the_bench_scripts_import_is_installed_by_the_runtime_and_bench_extra():
    """The scripts the READMEs name, and every other file of bench/ (docs/ name more)."""
    scripts = sorted({*named_scripts(), *(ROOT / "bench").rglob("*.py")})
    installed = installed_with("bench")
    missing = {
        module: str(where.relative_to(ROOT))
        for module, where in third_party(scripts).items()
        if not distributions_of(module) & installed
    }
    assert missing == {}, "imported by bench/ but not installed by '.[bench]'"
