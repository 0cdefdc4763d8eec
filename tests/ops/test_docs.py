"""The docs stand on their own: the rule book is in the repo and every pointer into it holds.

Code, tests and docs cite the rule book as `docs/rules.md §n`; these tests keep those
citations, the docs' relative links and the rule book's list of settings true, and keep
anything from pointing at files that live outside the repo.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from server.engine.rules import Rules

ROOT = Path(__file__).resolve().parents[2]
RULE_BOOK = ROOT / "docs" / "rules.md"
THIS_TEST = Path(__file__).resolve().relative_to(ROOT).as_posix()

# Files beside the project, not in it: a clone of the repo does not have them.
OUTSIDE_REFERENCES = (b"RULES.md", b"CONTRACT.md", b"../shared")

SECTION_HEADING = re.compile(r"^## (\d+)\. |^### (\d+\.\d+) ", re.MULTILINE)
SECTION = r"§\d+(?:\.\d+)?(?:[-–]\d+(?:\.\d+)?)?"
# "docs/rules.md §8", "§8.5", "§4-6", "§1-3, §7", "§2 and §7".
CITATION = re.compile(rf"docs/rules\.md\s+({SECTION}(?:(?:,\s*|\s+and\s+){SECTION})*)")
MARKDOWN_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def project_files() -> list[str]:
    """Every file git tracks, plus new files not yet committed; nothing ignored, nothing gone."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode()  # fmt: skip
    return [name for name in listed.split("\0") if name and (ROOT / name).is_file()]


def rule_book_sections() -> set[str]:
    """Section numbers of the rule book's headings: "1" ... "10", and "8.1" style ones."""
    return {major or minor for major, minor in SECTION_HEADING.findall(RULE_BOOK.read_text())}


def cited_sections(citation: str) -> list[str]:
    """Every section a citation names; a range of whole sections names each one in it."""
    sections = []
    for part in re.findall(SECTION, citation):
        first, _, last = part.lstrip("§").replace("–", "-").partition("-")
        sections.append(first)
        if last:
            sections.append(last)
            if "." not in first + last:
                sections.extend(str(n) for n in range(int(first) + 1, int(last)))
    return sections


def text_or_none(name: str) -> str | None:
    try:
        return (ROOT / name).read_text()
    except UnicodeDecodeError:
        return None


def test_no_project_file_points_outside_the_repo() -> None:
    found = []
    for name in project_files():
        if name == THIS_TEST:
            continue
        for number, line in enumerate((ROOT / name).read_bytes().splitlines(), start=1):
            for reference in OUTSIDE_REFERENCES:
                if reference in line:
                    found.append(f"{name}:{number}: {reference.decode()}")
    assert not found, "references to files outside the repo:\n" + "\n".join(found)


def test_every_rule_book_citation_names_a_section_of_it() -> None:
    sections = rule_book_sections()
    assert {str(n) for n in range(1, 11)} <= sections, "the rule book keeps sections 1-10"
    missing = []
    for name in project_files():
        text = text_or_none(name)
        if text is None:
            continue
        citations = CITATION.findall(text)
        if name == "docs/rules.md":
            citations += re.findall(SECTION, text)
        missing += [
            f"{name}: §{section}"
            for citation in citations
            for section in cited_sections(citation)
            if section not in sections
        ]
    assert not missing, "citations of sections docs/rules.md lacks:\n" + "\n".join(missing)


def test_relative_links_in_the_docs_point_at_files_that_exist() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for target in MARKDOWN_LINK.findall(page.read_text()):
            path = target.split("#", 1)[0]
            if not path or re.match(r"[a-z][a-z+.-]*:", path):
                continue
            if not (page.parent / path).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, "links to files that do not exist:\n" + "\n".join(broken)


def test_rule_book_names_every_setting_and_preset() -> None:
    rule_book = RULE_BOOK.read_text()
    names = [*Rules.model_fields, *Rules.preset_names()]
    missing = [name for name in names if f"`{name}`" not in rule_book]
    assert not missing, f"docs/rules.md does not name: {', '.join(missing)}"
