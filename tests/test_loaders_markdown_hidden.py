"""What a markdown file holds but its rendered page does not show is never evidence.

Node.js's API docs (Debian's ``nodejs-doc``) keep each function's history in a
``<!-- YAML … -->`` comment whose ``- version: …`` lines read as list items, end every page
with hundreds of link reference definitions, and mark anchors with lines of empty
``<a id>`` elements. The extractive model quoted "version: v18.16.0 pr-url: … description:
Added the `listener` argument." as the answer to a question about a listener limit, and
link definitions filled whole passages; section names kept the headings' backticks
(new-user review, 2026-12-04). The fixture is modelled on ``events.md``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from citewise.knowledge.loaders.markdown import MarkdownLoader
from citewise.models.base import ModelRequest, TextDelta, ToolMessage, UserMessage
from citewise.models.extractive import ExtractiveModel
from citewise.models.sentence_candidates import candidates

EVENTS = """# Events

<!--introduced_in=v0.10.0-->

<a id="events_class_eventemitter"></a>

### `emitter.setMaxListeners(n)`

<!-- YAML
added: v0.3.5
changes:
  - version: v18.16.0
    pr-url: https://github.com/nodejs/node/pull/46523
    description: Added the `listener` argument to limit how many listeners are kept.
-->

* `n` {integer}
* Returns: {EventEmitter}

By default, an `EventEmitter` prints a warning if more than 10 listeners are added for a
particular event. This is a useful default that helps finding memory leaks.

See [`emitter.getMaxListeners()`][] for the limit of listeners.

[`emitter.getMaxListeners()`]: #emittergetmaxlisteners
[WHATWG-EventTarget]: https://dom.spec.whatwg.org/#interface-eventtarget
"""


def _load() -> Any:
    return MarkdownLoader().load(Path("events.md"), EVENTS.encode())


def test_comments_link_definitions_and_anchor_lines_are_hidden() -> None:
    doc = _load()
    hidden = [doc.text[a:b] for a, b, role in doc.roles if role == "hidden"]
    assert hidden == [
        "<!--introduced_in=v0.10.0-->",
        '<a id="events_class_eventemitter"></a>',
        EVENTS[EVENTS.index("<!-- YAML"):EVENTS.index("-->\n\n* `n`") + 3],
        EVENTS[EVENTS.index("[`emitter.getMaxListeners()`]:"):].rstrip("\n"),
    ]
    items = [doc.text[a:b] for a, b, role in doc.roles if role == "list_item"]
    assert items == ["* `n` {integer}", "* Returns: {EventEmitter}"]  # none from the comment
    assert doc.text == EVENTS  # the file's own text, offsets and all


def test_a_heading_names_its_section_without_backticks() -> None:
    assert [s[2] for s in _load().sections] == ["Events", "Events > emitter.setMaxListeners(n)"]


def test_nothing_hidden_is_a_candidate_nor_quoted() -> None:
    doc = _load()
    result = {"text": doc.text, "document_index": 1, "source": "events.md",
              "title": doc.title, "roles": [list(r) for r in doc.roles]}
    observation = {"results": [result]}
    texts = [c.text for c in candidates([observation])]
    assert any(t.startswith("By default, an `EventEmitter` prints a warning") for t in texts)
    assert not [t for t in texts if "pr-url" in t or "]: " in t or "<!--" in t]
    assert all("pr-url" not in c.before for c in candidates([observation]))  # nor context
    request = ModelRequest(messages=[
        UserMessage(content="Which argument was added to limit how many listeners are kept?"),
        ToolMessage(call_id="c1", name="search_knowledge", content="", data=observation)])

    async def go() -> str:
        model = ExtractiveModel(semantic=False, answerable=0.0)
        return "".join([p.text async for p in model.stream(request)
                        if isinstance(p, TextDelta) and p.channel == "answer"])

    # The comment's words are the question's; the page does not show them.
    assert "pr-url" not in asyncio.run(go())


def test_a_bracketed_line_inside_a_paragraph_is_text() -> None:
    text = "# Notes\n\nThe release is tagged as follows,\n[v2]: the second one, and so on.\n"
    doc = MarkdownLoader().load(Path("notes.md"), text.encode())
    assert [r for r in doc.roles if r[2] == "hidden"] == []
    unclosed = "# Notes\n\n<!-- a comment never closed\n\nText.\n"
    doc = MarkdownLoader().load(Path("notes.md"), unclosed.encode())
    assert [r for r in doc.roles if r[2] == "hidden"] == []  # not the rest of the file


def test_a_lines_bare_block_tags_are_hidden_and_inline_html_is_text() -> None:
    """pandoc's README (new-user review, 2026-12-05): "<div id="input-formats">" and
    "</div>" around its lists were lines of text, search's "evidence" sentence for two
    questions. A line of bare block tags is layout; a tag inside a line of text is not."""
    text = ("It can convert *from*\n\n<div id=\"input-formats\">\n\n-   `csv` table\n"
            "-   `tsv` table\n\n</div>\n\nMore <div>inline</div> text.\n\n<p align=\"center\">"
            "\n\nA paragraph.\n")
    doc = MarkdownLoader().load(Path("README.md"), text.encode())
    hidden = [text[a:b] for a, b, role in doc.roles if role == "hidden"]
    assert hidden == ['<div id="input-formats">', "</div>", '<p align="center">']
    assert doc.text == text


NPM = """---
title: npm-install
section: 1
description: Install a package
---

### Description

This command installs a package and any packages that it depends on.

* `npm install <git remote url>`:

    Installs the package from the hosted git provider, cloning it with `git`.

    Examples:

    ```bash
    npm install mygithubuser/myproject
    npm install github:mygithubuser/myproject
   ```

* `npm install gist:<gistID>`:

    Install the package at `https://gist.github.com/gistID`.

### Algorithm

Given a `package{dep}` structure, the npm install algorithm produces the tree.

{{< callout info >}}
{{< partial "callout-info-prefersreducedmotion.md" >}}
{{< /callout >}}

{{< example >}}
<label for="inputPassword5">Password</label>
<small id="passwordHelpBlock">Your password must be 8-20 characters long.</small>
{{< /example >}}
"""


def test_front_matter_indented_fences_and_shortcodes_are_read_as_rendered() -> None:
    """npm's and Bootstrap's Markdown docs (new-user reviews, 2026-12-07): the front matter
    was quoted as an answer ("--- title: npm-pack section: 1 …"); a fence indented four
    spaces in a list item was text, its three-space closer opened a fence, and "Algorithm"
    was never a section; Hugo's "{{< callout >}}" lines were text and the HTML of an
    "{{< example >}}" was quoted as a sentence."""
    doc = MarkdownLoader().load(Path("npm-install.md"), NPM.encode())
    assert [s[2] for s in doc.sections] == ["Description", "Algorithm"]
    roles = [(doc.text[a:b], role) for a, b, role in doc.roles]
    assert (NPM[:NPM.index("---\n\n") + 3], "hidden") in roles
    assert any(role == "code" and t.startswith("    ```bash") for t, role in roles)
    assert ("{{< callout info >}}", "hidden") in roles and ("{{< /callout >}}", "hidden") in roles
    assert any(role == "code" and t.startswith("{{< example >}}") and t.endswith(
        "{{< /example >}}") for t, role in roles)
    result = {"text": doc.text, "document_index": 1, "source": "npm-install.md",
              "title": doc.title, "roles": [list(r) for r in doc.roles]}
    found = candidates([{"results": [result]}])
    texts = [c.text for c in found if c.role != "code"]  # code is evidence for code only
    assert not [t for t in texts if "title:" in t or "{{<" in t or "<small" in t], texts
    assert {c.role for c in found if "<small" in c.text or "npm install github:" in c.text} \
        == {"code"}
    assert "This command installs a package and any packages that it depends on." in texts


def test_the_second_code_reviews_markdown_shapes() -> None:
    """The code review of the Markdown mends (2026-12-07): a fence indented four columns in
    an indented code block, or one deeper than three past its opener, or with text after it,
    is no fence and closes none; a "---" rule over prose is no front matter; a "# comment"
    inside a Hugo highlight is no heading."""
    text = ("Intro paragraph.\n\n    ```\n    an indented code block's line\n\n"
            "# Usage\n\n```sh\nmake\n    ```\n```bash\nmake install\n```\n\n"
            "{{< highlight sh >}}\n# a comment\n{{< / highlight >}}\n\n## Next\n\nText.\n")
    doc = MarkdownLoader().load(Path("r.md"), text.encode())
    assert [s[2] for s in doc.sections] == ["Usage", "Usage > Next"]
    code = [doc.text[a:b] for a, b, role in doc.roles if role == "code"]
    assert code[0] == "```sh\nmake\n    ```\n```bash\nmake install\n```"
    assert code[1].startswith("{{< highlight sh >}}")
    ruled = "---\n\nThis page is an introduction: read it first.\n\n---\n\n# Title\n"
    doc = MarkdownLoader().load(Path("r.md"), ruled.encode())
    assert not any(role == "hidden" for _, _, role in doc.roles) and doc.title == "Title"
