"""docs/architecture.md stays true: every file, module, function, class, method and setting
it names in code spans exists in the code, so the map cannot drift from the territory."""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
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


def test_every_code_name_on_the_architecture_page_exists():
    doc = DOC.read_text()
    gone = {span: why for span in names_in(doc) if (why := missing(span)) is not None}
    assert not gone, f"docs/architecture.md names what the code does not have: {gone}"


def test_the_check_finds_a_name_that_is_gone():
    assert missing("sockets.converse") is not None
    assert missing("Game.hand_plays") is not None
    assert missing("changes.TableChanges") is None
    assert missing("TableChanges.run") is None
    assert missing("server/realtime/changes.py") is None
    assert missing("server/realtime/nowhere.py") is not None
