"""A lead-in quoted as the answer ("… by running the command cargo fix:") is quoted with
the one line of code it introduces: without it the answer stops at the colon (CMake and
Rust reviews; 14 of the bench's labels are such lead-ins). The code is a claim of its
own, cited and verified, and its excerpt is the code, not the fences around it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from citewise import Agent
from citewise.knowledge.base import KnowledgeBase
from citewise.models.sentence_candidates import candidates

LEAD = "We can automatically apply that suggestion using the rustfix tool by running the command cargo fix:"

PAGE = f"""# Fixing warnings

The rustfix tool is included with Rust installations and can automatically fix compiler
warnings that have a clear way to correct the problem.

{LEAD}

```
$ cargo fix
```

When we look at src/main.rs again, we will see that cargo fix has changed the code.
"""


def _result(text: str, roles: list[list[Any]]) -> list[dict[str, Any]]:
    return [{"results": [{"document_index": 1, "text": text, "source": "a.md",
                          "title": "A", "roles": roles}]}]


def _lead(text: str, roles: list[list[Any]]) -> str:
    (lead,) = [s for s in candidates(_result(text, roles)) if s.text.endswith(":")]
    return lead.code


def test_a_lead_in_carries_the_one_line_of_code_after_it() -> None:
    lead = "To run the program with every warning on, give the compiler this option:"
    for block in ("gcc -Wall prog.c", "```sh\ngcc -Wall prog.c\n```"):
        text = f"{lead}\n\n{block}\n\nThen read the warnings."
        at = text.index(block)
        assert _lead(text, [[at, at + len(block), "code"]]) == "gcc -Wall prog.c", block
    text = f"{lead}\n\ngcc -Wall prog.c\ngcc -Wextra prog.c\n\nThen read the warnings."
    at = text.index("gcc")
    block = "gcc -Wall prog.c\ngcc -Wextra prog.c"
    assert _lead(text, [[at, at + len(block), "code"]]) == ""  # an example to read there
    text = f"{lead}\n\nThe option is -Wall, which turns on most warnings."
    assert _lead(text, []) == ""  # prose after it
    text = f"{lead}\n\ngcc -Wall prog.c"
    at = text.index("gcc")
    assert _lead(text, [[at, len(text), "code"]]) == ""  # the passage may cut it off


def test_the_answer_quotes_the_code_and_cites_it_without_fences(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "fixing.md").write_text(PAGE, encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([tmp_path / "docs"])
        answer = Agent(kb).ask("Which command applies the suggestion using rustfix?")
    assert answer.text == f"{LEAD} [1]\n\n`$ cargo fix` [1]"
    assert [c.excerpt for c in answer.citations] == [LEAD, "$ cargo fix"]
    assert [c.status for c in answer.claims] == ["supported", "supported"]
    code = answer.citations[1]
    assert code.start_char is not None and PAGE[code.start_char:code.end_char] == "$ cargo fix"
    assert not answer.issues
