"""The rules document (``docs/rules.md``) by section: what ``guandan rules`` prints.

The repository keeps the document at ``docs/rules.md``; a built wheel carries a copy as
``guandan_cli/rules.md`` (``setup.py``'s ``build_py``). :func:`document_path` finds either.

A section is a Markdown heading that starts with a number (``## 10. Tribute and return``,
``### 10.4 Return (还贡)``); it runs to the next heading of its level or above, so section
10 holds 10.1 to 10.5. Code and docs cite sections as ``§10``, ``§ 4.2``, ``rules.md §3–6``
or ``(§10, §12)``: :func:`citations` finds them (tests/test_rules_doc.py checks that each
one names a section the document has). Standard library only: ``guandan rules`` imports
nothing heavy.

>>> text = "# Rules\\n\\n## 1. Deck\\n108 cards.\\n\\n## 2. Play\\nIn turn.\\n\\n### 2.1 Passing\\nAllowed.\\n"
>>> [(s.number, s.title) for s in sections(text)]
[('1', 'Deck'), ('2', 'Play'), ('2.1', 'Passing')]
>>> print(find_section(text, "§2").text)
## 2. Play
In turn.
<BLANKLINE>
### 2.1 Passing
Allowed.
>>> outline(sections(text))
'1, 2 (2.1)'
>>> citations("tribute (rules.md §10, §12); combinations (§4–6), notation (§ 2)")
['10', '12', '4', '5', '6', '2']
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

#: the document's name, in the repository's ``docs/`` and in the installed package
DOCUMENT = "rules.md"

_HEADING = re.compile(r"^(#{1,6})[ \t]+(?:(\d+(?:\.\d+)*)\.?[ \t]+)?(.*?)[ \t#]*$")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
#: ``§10``, ``§ 4.2``, ``§3–6``, ``§8-9`` (the section sign and a number, or a range)
_CITATION = re.compile(r"§[ \t]?(\d+(?:\.\d+)*)(?:[ \t]?[–—-][ \t]?(\d+(?:\.\d+)*))?")
_NUMBER = re.compile(r"\d+(?:\.\d+)*")


class Section(NamedTuple):
    """A numbered section: ``number`` (``"10"``, ``"4.2"``), its heading's ``title``, its
    heading ``depth`` (2 for ``##``) and its ``text`` (heading and sub-sections included)."""

    number: str
    title: str
    depth: int
    text: str


def document_path() -> Path:
    """Where the rules document is: the copy inside the installed package, else the
    repository's ``docs/rules.md`` (an editable install, a checkout on ``sys.path``).

    Raises ``FileNotFoundError`` (naming both places) when neither exists.
    """
    package = Path(__file__).resolve().parent
    installed = package / DOCUMENT
    if installed.is_file():
        return installed
    repository = package.parent / "docs" / DOCUMENT
    if repository.is_file():
        return repository
    raise FileNotFoundError(f"the rules document is missing: neither {installed} nor {repository} exists")


def read_document() -> str:
    """The rules document's text."""
    return document_path().read_text(encoding="utf-8")


def normalize(name: str) -> str | None:
    """A section name as typed (``10``, ``§10``, ``§ 4.2``, ``rules.md §4``, ``10.``) as the
    document numbers it, or ``None`` when it is no section number.

    >>> normalize("§ 4.2"), normalize("rules.md §10"), normalize("10."), normalize("04"), normalize("x")
    ('4.2', '10', '10', '4', None)
    """
    text = name.strip()
    if text.startswith(DOCUMENT):
        text = text[len(DOCUMENT) :].strip()
    text = text.lstrip("§").strip().rstrip(".")
    if not _NUMBER.fullmatch(text):
        return None
    return ".".join(str(int(part)) for part in text.split("."))


def sections(text: str) -> list[Section]:
    """The numbered sections of ``text`` in document order (headings inside code fences are
    not headings). A section's text ends before the next heading of its depth or above."""
    lines = text.splitlines()
    headings: list[tuple[int, int, str | None, str]] = []  # (line, depth, number, title)
    fenced = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match:
            headings.append((i, len(match.group(1)), match.group(2), match.group(3)))
    found = []
    for k, (start, depth, number, title) in enumerate(headings):
        if number is None:
            continue
        end = next((line for line, d, _n, _t in headings[k + 1 :] if d <= depth), len(lines))
        body = "\n".join(lines[start:end]).rstrip()
        found.append(Section(number, title, depth, body))
    return found


def find_section(text: str, name: str) -> Section | None:
    """The section of ``text`` that ``name`` names (as :func:`normalize` reads it), or ``None``."""
    number = normalize(name)
    return next((s for s in sections(text) if s.number == number), None)


def outline(found: list[Section]) -> str:
    """The section numbers in one line, sub-sections in brackets: ``1, 2, 3 (3.1–3.4), …``."""
    tops: dict[str, list[str]] = {}
    for section in found:
        top = section.number.split(".")[0]
        subs = tops.setdefault(top, [])
        if section.number != top:
            subs.append(section.number)
    parts = []
    for top, subs in tops.items():
        if not subs:
            parts.append(top)
        elif len(subs) == 1:
            parts.append(f"{top} ({subs[0]})")
        else:
            parts.append(f"{top} ({subs[0]}–{subs[-1]})")
    return ", ".join(parts)


def citations(text: str) -> list[str]:
    """Every section that ``text`` cites with a section sign, in order, a range (``§3–6``,
    ``§8-9``, ``§4.1–4.3``) as each section in it.

    >>> citations("§3–5, §4.1–4.3 and §7-7.2")
    ['3', '4', '5', '4.1', '4.2', '4.3', '7', '7.2']
    """
    found: list[str] = []
    for match in _CITATION.finditer(text):
        first, last = match.group(1), match.group(2)
        if last is None:
            found.append(first)
            continue
        a, b = first.split("."), last.split(".")
        if len(a) == len(b) and a[:-1] == b[:-1] and int(a[-1]) <= int(b[-1]):
            prefix = a[:-1]
            found += [".".join([*prefix, str(n)]) for n in range(int(a[-1]), int(b[-1]) + 1)]
        else:
            found += [first, last]
    return found
