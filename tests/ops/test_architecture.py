"""docs/architecture.md and docs/recipes.md stay true: every file, module, function,
class, method, setting and test they name in code spans exists in the code; each name a
module's row (or a "`name` in `module.py`") places in a module is defined in that very
module (or, named as what the module works with, used there); and the realtime table's
import column lists exactly the realtime modules each module imports; and the code's own
`module.Name` pointers name what those modules define. So the map cannot drift from the
territory."""

from __future__ import annotations

import ast
import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
# The pages whose code names are checked: the map and the recipes for adding things.
PAGES = (DOC, ROOT / "docs" / "recipes.md")
SOURCES = ("server", "web", "bench", "migrations", "scripts")
SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
NAME = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:\(\))?$")
FILE = re.compile(r"^[\w./-]+\.(?:py|js|md|css|html|json|toml|yml|ini)$|^[\w./-]+/$")


@cache
def repo_files() -> tuple[str, ...]:
    """Every file git tracks, plus new ones not ignored, as paths from the repo's top."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode()  # fmt: skip
    return tuple(name for name in listed.split("\0") if name and (ROOT / name).is_file())


@cache
def source_files() -> tuple[Path, ...]:
    return tuple(
        ROOT / name
        for name in repo_files()
        if name.split("/")[0] in SOURCES
        and Path(name).suffix in (".py", ".js", ".sh", "")
        and "vendor" not in name
    )


@cache
def words() -> frozenset[str]:
    return frozenset(re.findall(r"\w+", corpus()))


@cache
def examples_text() -> str:
    """The tests' text: a recipe's worked example is named by its test function."""
    names = [name for name in repo_files() if name.startswith("tests/") and name.endswith(".py")]
    return "\n".join((ROOT / name).read_text(errors="ignore") for name in names)


@cache
def corpus() -> str:
    return "\n".join(path.read_text(errors="ignore") for path in source_files())


def defined(name: str, text: str) -> bool:
    """Whether `name` is defined in `text`: a def, a class, an assignment, an attribute or
    field, a method, a parameter or dict key set by name, an export."""
    word = re.escape(name)
    return bool(
        re.search(
            rf"(?:def|class|function|const|let|var)\s+{word}\b|\b{word}\s*[:=(]|"
            rf"\bself\.{word}\b|[\"']{word}[\"']|export\s+\{{[^}}]*\b{word}\b",
            text,
        )
    )


def module_text(module: str) -> str | None:
    """The text of the module named `module` (its file name without `.py`), if one exists."""
    texts = [
        path.read_text(errors="ignore")
        for path in source_files()
        if path.suffix == ".py" and path.stem == module
    ]
    return "\n".join(texts) if texts else None


def missing(span: str) -> str | None:
    """Why `span` names nothing in the code; None when it holds (or is not a code name)."""
    if span.startswith("/"):
        return None  # a URL path
    if FILE.match(span):
        name = span.rstrip("/")
        return None if any(repo_path(name)) else f"no file {span}"
    if (ROOT / span.replace(".", "/")).exists() or (ROOT / f"{span.replace('.', '/')}.py").exists():
        return None  # a package or module, named as Python imports it
    if not NAME.match(span):
        return None  # a command, a JSON snippet, a value: not a code name
    parts = span.removesuffix("()").split(".")
    if span.isupper() or parts[0].startswith("SPADES_") or parts[0].endswith("_URL"):
        setting = parts[0].removeprefix("SPADES_").lower()
        return None if setting in corpus().lower() else f"no setting {span}"
    last = parts[-1]
    if last.startswith("test_"):
        return None if f"def {last}(" in examples_text() else f"no test {last}"
    if len(parts) > 1:
        owner = module_text(parts[-2])
        if owner is not None:
            return None if defined(last, owner) else f"{last} is not in module {parts[-2]}"
    return None if last in words() else f"nothing named {last}"


def repo_path(name: str) -> list[Path]:
    """Files and folders of the repo whose path ends with `name`."""
    if (ROOT / name).exists():
        return [ROOT / name]
    folders = {str(Path(file).parent) + "/" for file in repo_files()}
    return [
        ROOT / path
        for path in (*repo_files(), *folders)
        if ("/" + path).endswith("/" + name) or ("/" + path).endswith("/" + name + "/")
    ]


def names_in(doc: str) -> list[str]:
    """The code spans of the page, and the dotted names of its fenced diagrams."""
    spans = SPAN.findall(FENCE.sub("", doc))
    for block in FENCE.findall(doc):
        spans += re.findall(r"\b[A-Za-z_]\w*\.[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", block)
    return spans


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_code_name_on_the_page_exists(page: Path):
    doc = page.read_text()
    gone = {span: why for span in names_in(doc) if (why := missing(span)) is not None}
    assert not gone, f"docs/{page.name} names what the code does not have: {gone}"


def test_the_check_finds_a_name_that_is_gone():
    assert missing("sockets.no_such_name") is not None
    assert missing("Game.hand_plays") is not None
    assert missing("changes.TableChanges") is None
    assert missing("TableChanges.run") is None
    assert missing("server/realtime/changes.py") is None
    assert missing("server/realtime/nowhere.py") is not None
    assert missing("test_ten_for_two_hundred") is None
    assert missing("test_ten_for_two_thousand") is not None


# -- names placed in a module ------------------------------------------------------------

PACKAGE = re.compile(r"^### `(server/[\w/]*/)`")
ROW = re.compile(r"^\| `([\w/.]+)` \|")
PLACED = re.compile(r"`([A-Za-z_][\w.]*)(?:\([^`]*\))?` (?:in `([\w/]+\.py)`|\(`([\w/]+\.py)`\))")


def module_rows(doc: str) -> list[tuple[str, list[str]]]:
    """Each row of the module tables: the module's path from the repo's top, its cells."""
    rows: list[tuple[str, list[str]]] = []
    folder = ""
    for line in doc.splitlines():
        if line.startswith("#"):
            found = PACKAGE.match(line)
            folder = found.group(1) if found else ""
        elif ROW.match(line):
            cells = table_cells(line)
            rows.append((folder + cells[0].strip("`"), cells[1:]))
    return rows


def table_cells(line: str) -> list[str]:
    """The cells of a Markdown table row (a `|` inside a code span is no border)."""
    cells, cell, code = [], "", False
    for char in line.strip().strip("|"):
        if char == "`":
            code = not code
        if char == "|" and not code:
            cells.append(cell.strip())
            cell = ""
        else:
            cell += char
    return [*cells, cell.strip()]


def python_file(path: str) -> Path | None:
    """The Python file a row or a sentence names: a path from the top, else the one file
    of that name under server/."""
    if (ROOT / path).is_file():
        return ROOT / path
    found = [ROOT / name for name in repo_files() if name.endswith("/" + path)]
    return found[0] if len(found) == 1 and found[0].suffix == ".py" else None


def misplaced(span: str, path: Path) -> str | None:
    """Why `span` (a name the page places in the module at `path`) is not defined there."""
    name = span.removesuffix("()")
    if not NAME.match(span) or FILE.match(span):
        return None
    text = path.read_text()
    parts = name.split(".")
    if len(parts) > 1 and not defined(parts[0], text):
        return None  # another module's name (`replay.decisions`): the global check's
    if all(defined(part, text) for part in parts):
        return None
    if len(parts) == 1 and re.search(rf"\b{re.escape(name)}\b", text):
        return None  # a name the module takes from elsewhere and uses (`Game`, `openskill`)
    return f"{span} is neither defined nor used in {path.relative_to(ROOT)}"


def placed_names(doc: str) -> list[tuple[str, Path]]:
    """(name, module file) for each name of a module row, and each "`name` in `file.py`"."""
    placed: list[tuple[str, Path]] = []
    for module, cells in module_rows(doc):
        path = python_file(module)
        if path is None or not cells:
            continue
        placed += [(span, path) for span in SPAN.findall(cells[0])]
    for name, in_file, paren_file in PLACED.findall(FENCE.sub("", doc)):
        path = python_file(in_file or paren_file)
        if path is not None:
            placed.append((name, path))
    return placed


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_each_name_the_page_places_in_a_module_is_there(page: Path):
    doc = page.read_text()
    wrong = [why for span, path in placed_names(doc) if (why := misplaced(span, path))]
    assert not wrong, f"docs/{page.name} puts names in the wrong module: {wrong}"


def realtime_imports(path: Path) -> set[str]:
    """The modules of server/realtime/ that the module at `path` imports."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "server.realtime":
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "server.realtime."
        ):
            found.add((node.module or "").split(".")[2])
        elif isinstance(node, ast.Import):
            found.update(
                alias.name.split(".")[2]
                for alias in node.names
                if alias.name.startswith("server.realtime.")
            )
    return found


def listed_imports(cell: str) -> set[str] | None:
    """The realtime modules an import cell lists (None: "everything", not a list)."""
    if cell.startswith("everything"):
        return None
    modules = {path.stem for path in (ROOT / "server" / "realtime").glob("*.py")}
    return {span for span in SPAN.findall(cell) if span in modules}


def test_the_realtime_import_column_is_what_each_module_imports():
    """Each row lists what its module imports of `realtime`, all of it from rows above."""
    wrong = {}
    above: set[str] = set()
    for module, cells in module_rows(DOC.read_text()):
        if not module.startswith("server/realtime/") or len(cells) < 2:
            continue
        listed = listed_imports(cells[1])
        actual = realtime_imports(ROOT / module)
        if listed is not None and listed != actual:
            wrong[module] = {"page": sorted(listed), "code": sorted(actual)}
        if not actual <= above:
            wrong[module] = {"imports rows below it": sorted(actual - above)}
        above.add(Path(module).stem)
    assert not wrong, f"docs/architecture.md's import column is wrong: {wrong}"


def test_the_checks_catch_a_misplaced_name_and_a_wrong_import():
    effects = ROOT / "server" / "realtime" / "effects.py"
    assert misplaced("TableChange", ROOT / "server" / "realtime" / "hosting.py") is not None
    assert misplaced("Effects", effects) is None
    assert misplaced("Effects.nowhere", effects) is not None
    assert placed_names("| `x.py` | `Y` |\n`Effects` (`effects.py`)")[-1] == ("Effects", effects)
    rows = module_rows("### `server/realtime/`: x\n| `timer.py` | the timer | `messages` |")
    assert rows == [("server/realtime/timer.py", ["the timer", "`messages`"])]
    assert listed_imports(rows[0][1][1]) != realtime_imports(ROOT / rows[0][0])


# -- the code's own pointers -------------------------------------------------------------

POINTER = re.compile(r"`+([a-z_]+)\.([A-Za-z_]\w*)`+")
# Pointers that name a library's object, not a module of the server.
LIBRARY_POINTERS = {("server/api/wire.py", "protocol.send")}  # uvicorn's protocol


def broken_pointers(where: str, text: str) -> list[str]:
    """The `module.Name` spans in the text of a server file (`where`, from the repo's top)
    whose module is one of the server's and does not define that name."""
    broken = []
    for module, name in POINTER.findall(text):
        owners = list((ROOT / "server").rglob(f"{module}.py"))
        if name == "py" or not owners or (where, f"{module}.{name}") in LIBRARY_POINTERS:
            continue
        if not any(defined(name, owner.read_text()) for owner in owners):
            broken.append(f"{where}: {module}.{name}")
    return broken


def test_each_module_name_the_code_points_at_exists():
    """`changes.TableChanges` in a docstring is checked like the page's names."""
    broken = [
        why
        for path in sorted((ROOT / "server").rglob("*.py"))
        for why in broken_pointers(path.relative_to(ROOT).as_posix(), path.read_text())
    ]
    assert not broken, f"the code points at names its modules do not have: {broken}"


def test_the_pointer_check_finds_a_name_that_is_gone():
    where = "server/realtime/effects.py"
    assert broken_pointers(where, "(`changes.TableChanges`)") == []
    assert broken_pointers(where, "(`changes.TableUpdates`)") == [f"{where}: changes.TableUpdates"]
    assert broken_pointers(where, "`effects.py`, `uvicorn.Server`") == []
