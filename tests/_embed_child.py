"""Child processes of the embedding-queue tests (``tests/test_embed_queue.py``).

``python _embed_child.py LOG DELAY worker URL``: an embedding worker on a PostgreSQL
database until killed. ``python _embed_child.py LOG DELAY cli ARGS…``: ``citewise ARGS…``
in this process. Either way the embedder is a deterministic hashed bag of words that
appends one line per batch it is asked to embed to LOG — ``pid<TAB>sha1,sha1,…`` of the
texts, written (and flushed) before it computes anything — then sleeps DELAY seconds, so
a test can kill the process while a batch is in flight and count what was computed.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import threading
import time
import zlib
from collections.abc import Sequence

import numpy as np


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


class LoggingEmbedder:
    name = "test-logging-hash-64"
    dim = 64

    def __init__(self, log: str, delay: float) -> None:
        self.log = log
        self.delay = delay

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with open(self.log, "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()}\t{','.join(text_key(t) for t in texts)}\n")
        time.sleep(self.delay)
        out = np.full((len(texts), self.dim), 1e-3, dtype=np.float32)
        for i, text in enumerate(texts):
            for word in set(re.findall(r"\w+", text.lower())):
                out[i, zlib.crc32(word.encode()) % self.dim] += 1.0
        normed: np.ndarray = out / np.linalg.norm(out, axis=1, keepdims=True)
        return normed


def _patch(log: str, delay: float) -> None:
    """Make the default embedder this one (the CLI opens the default)."""
    from citewise.knowledge.index.embedders import minilm, registry

    fake = lambda *a, **k: LoggingEmbedder(log, delay)  # noqa: E731
    minilm.MiniLMEmbedder = fake  # type: ignore[assignment,misc]
    registry.MiniLMEmbedder = fake  # type: ignore[assignment,misc]  (what --embedder resolves)


def main() -> int:
    log, delay, mode, *rest = sys.argv[1:]
    _patch(log, float(delay))
    if mode == "cli":
        from citewise.cli.main import main as cli

        return cli(rest)
    from citewise.knowledge.base import KnowledgeBase

    kb = KnowledgeBase.open_postgres(rest[0], embedder=LoggingEmbedder(log, float(delay)))
    with kb, kb.embed_worker() as worker:
        print("ready", flush=True)
        worker.run_forever(threading.Event(), idle_s=0.1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
