"""``bench/answers.py`` with another embedder, until ``--embedder`` is wired into it.

    python bench/answers_with_embedder.py static-minilm  # → results/answers-embedder-static-minilm.json
    python bench/answers_with_embedder.py minilm          # the same code with the default, for comparison

Every ``KnowledgeBase.open`` of the run gets the embedder of
``citewise.knowledge.index.embedders.registry`` called NAME (static models are built into
``bench/.cache/ingest/models``); everything else is ``bench/answers.py`` as it is (its
README section and its own results file are left alone).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def main() -> int:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    name = sys.argv[1]
    from citewise.knowledge.base import KnowledgeBase
    from citewise.knowledge.index.embedders.registry import get_embedder

    embedder = get_embedder(name, models_dir=HERE / ".cache" / "ingest" / "models")
    plain = KnowledgeBase.open.__func__  # type: ignore[attr-defined]

    def open_with(cls: type[KnowledgeBase], data_dir: Any, **options: Any) -> KnowledgeBase:
        options.setdefault("embedder", embedder)
        opened: KnowledgeBase = plain(cls, data_dir, **options)
        return opened

    KnowledgeBase.open = classmethod(open_with)  # type: ignore[method-assign,assignment]
    sys.path.insert(0, str(HERE))
    import answers

    sys.argv = ["answers.py", "--out", str(HERE / "results" / f"answers-embedder-{name}.json")]
    result: int = answers.main()
    return result


if __name__ == "__main__":
    sys.exit(main())
