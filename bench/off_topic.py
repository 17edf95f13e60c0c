"""Calibration of the question-relevance half of support (``grounding/relevance.py``).

Run by hand (not part of the test suite)::

    python bench/off_topic.py            # prints the table, writes bench/results/off_topic.json

On text nobody on the team wrote — the Apache-2.0, GPL-3, MPL-2.0 and LGPL-2.1 licences
Debian ships in ``/usr/share/common-licenses`` (package ``base-files``) — it asks 20
paraphrased questions, each labelled with a phrase of the sentence that answers it, and 12
questions those texts do not answer. Per question it retrieves (hybrid, top 5, the packaged
embedder) and scores, with and without the embedder:

* an answerable question: the labelled sentence (the right quote must *not* be flagged);
* an unanswerable one: the retrieved sentence sharing most words with the question (what
  a quoting model would cite; it *should* be flagged ``off_topic_evidence``).

It reports how many of each the thresholds flag. The numbers quoted in relevance.py and in
the README's "Grounding" come from this script.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "off_topic.json"
LICENCES = Path("/usr/share/common-licenses")
TEXTS = ("Apache-2.0", "GPL-3", "MPL-2.0", "LGPL-2.1")

ANSWERABLE = [
    ("Does the Apache license give me patent rights?", "patent license to make"),
    ("Do I have to keep copyright notices when I redistribute Apache-licensed code?",
     "all copyright, patent, trademark"),
    ("Can I use the contributors' trademarks under Apache 2.0?",
     "does not grant permission to use the trade"),
    ("What happens to my patent license if I sue someone for patent infringement?",
     "shall terminate"),
    ("Is Apache-licensed software provided with any warranty?",
     "WITHOUT WARRANTIES OR CONDITIONS"),
    ("Must modified files carry a notice that I changed them?",
     "prominent notices stating that You changed"),
    ("Can I add my own copyright statement to my modifications?",
     "You may add Your own copyright statement"),
    ("What does the GPL say about the source code of a covered work?", "Corresponding Source"),
    ("Can I charge a fee for conveying copies under the GPL?",
     "You may charge any price or no price"),
    ("Does the GPLv3 protect users from anti-circumvention laws?", "circumvention"),
    ("What happens if I violate the GPL?", "terminate"),
    ("Can I get my GPL rights back after a violation?", "reinstated"),
    ("Is there a warranty for GPL programs?", "THERE IS NO WARRANTY FOR THE PROGRAM"),
    ("How long must I offer the source when I distribute object code under the GPL?",
     "three years"),
    ("Under the MPL, when must I make source code available?", "Source Code Form"),
    ("Can I combine MPL code with code under a different license in a larger work?",
     "Larger Work"),
    ("How long is the grace period to cure a violation under MPL 2.0?", "30 days"),
    ("Does the LGPL allow linking a proprietary program with the library?",
     "work that uses the Library"),
    ("Can I convert LGPL code to the GPL?", "ordinary GNU General Public License"),
    ("What is the liability of the licensor under the MPL?", "Limitation of Liability"),
]
UNANSWERABLE = [
    "What is the warranty period of the Acme X200 vacuum cleaner?",
    "Who won the 2018 football world cup?",
    "How do I reset my router password?",
    "What is the capital of Australia?",
    "How much does a Tesla Model 3 cost?",
    "What license does the Linux kernel use for its documentation?",
    "How many days of paid vacation do employees get?",
    "What is the boiling point of water at high altitude?",
    "How do I cancel my Netflix subscription?",
    "When was the MIT license first published?",
    "Does the BSD license require attribution in advertising?",
    "Which version of Python introduced pattern matching?",
]


def main() -> int:
    from citewise.grounding.ledger import EvidenceLedger
    from citewise.grounding.relevance import OFF_TOPIC, OFF_TOPIC_LEXICAL, QuestionRelevance
    from citewise.grounding.verify import excerpt_spans
    from citewise.knowledge.base import KnowledgeBase
    from citewise.text import overlap

    if not all((LICENCES / n).exists() for n in TEXTS):
        print(f"needs {', '.join(TEXTS)} in {LICENCES} (Debian's base-files)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name in TEXTS:
            shutil.copy(LICENCES / name, root / f"{name}.txt")
        kb = KnowledgeBase.open(root / "kb", dense=True)
        kb.ingest([root / f"{n}.txt" for n in TEXTS])
        from citewise.knowledge.index.embedders.minilm import MiniLMEmbedder

        embed = MiniLMEmbedder().embed  # the packaged default, as the knowledge base's

        def sentences(question: str) -> tuple[EvidenceLedger, list[tuple[str, str]]]:
            from citewise.grounding.relevance import neighbours

            ledger = EvidenceLedger.empty()
            ledger.add(kb.retrieve(question, k=5).hits)
            out = []
            for doc in ledger.documents:
                for snip in doc.snippets:
                    spans = excerpt_spans(snip.text)
                    out += [(snip.text[a:b], neighbours(snip.text, a, b, spans))
                            for a, b in spans]
            return ledger, out

        rows: list[dict[str, Any]] = []
        for kind, items in (("answerable", ANSWERABLE),
                            ("unanswerable", [(q, None) for q in UNANSWERABLE])):
            for question, phrase in items:
                ledger, cands = sentences(question)
                if phrase is not None:
                    cands = [c for c in cands
                             if phrase.lower() in " ".join(c[0].lower().split())]
                else:
                    cands = sorted(cands, key=lambda c: -overlap(question, c[0]))[:1]
                if not cands:
                    rows.append({"kind": kind, "question": question, "retrieved": False})
                    continue
                lexical = max(QuestionRelevance(question, ledger.documents).scores(cands))
                semantic = max(QuestionRelevance(question, ledger.documents, embed)
                               .scores(cands))
                rows.append({"kind": kind, "question": question, "retrieved": True,
                             "lexical": round(lexical, 3), "embedded": round(semantic, 3)})
        kb.close()
    summary: dict[str, Any] = {}
    for kind in ("answerable", "unanswerable"):
        seen = [r for r in rows if r["kind"] == kind and r["retrieved"]]
        summary[kind] = {
            "retrieved": len(seen),
            "flagged_lexical": sum(r["lexical"] < OFF_TOPIC_LEXICAL for r in seen),
            "flagged_embedded": sum(r["embedded"] < OFF_TOPIC for r in seen),
        }
    print(json.dumps(summary, indent=2))
    for r in rows:
        print(f"{r['kind'][:5]}  {r.get('lexical', '-'):>5}  {r.get('embedded', '-'):>5}  "
              f"{r['question']}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"thresholds": {"lexical": OFF_TOPIC_LEXICAL,
                                                  "embedded": OFF_TOPIC},
                                   "summary": summary, "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
