"""The stored sentence vectors are keyed by the cut's version (issue #27, p50 ≤ 150 ms).

Why a digest: an answer looks a stored vector up by its text, so when the sentence cut or
:func:`.sentence_rank.compared_texts` changes, the vectors stored under the old cut are
never found again, and every answer embeds its sentences itself until the chunks are
re-embedded. Raising :data:`.sentence_vectors.CUT_VERSION` queues that when a knowledge
base opens; nothing else told a change of the cut that it must. This test fails on any
change of what a chunk's texts are, and says what to do."""

from __future__ import annotations

import hashlib

from citewise.models.sentence_vectors import CUT_VERSION, MiniLMSentences
from citewise.store.sentence_vectors import ChunkSource

_CODE = "    tar -xzf backup.tar.gz -C /srv\n"
_PAGE = ("Use the --strict flag, e.g. when a run must stop at the first error. The default "
         "is 30 s. This is because slow disks need time . . . and retries.\n\nDefault: 20G "
         "(20 GiB), or 512M (512 MiB) for 32-bit\n\n- Refunds take 14 days.\n- Store credit "
         "is offered instead. See section 4.2 for\nthe details of store credit.\n\nTo unpack "
         "an archive, use the command\n\n" + _CODE + "\nIt restores every file. (See Fig. 3 "
         "on p. 12.) Mr. Smith wrote it in 2019.")
_ENTRY = ("rrsig-lifetime\n\nA validity period of newly issued signatures.\n\nNote: The "
          "inception time is set in the past. It is not counted.\n\nDefault: 14d (14 days)")
SAMPLES = (
    ChunkSource(1, _PAGE, ((_PAGE.index(_CODE), _PAGE.index(_CODE) + len(_CODE), "code"),),
                "Guide > Archives"),
    ChunkSource(2, "Backups\n\nBackups run every night. Terms like \"full\", \"partial, "
                "\"diff\", and \"log\" recur. They are kept for thirty days. "
                "Older ones move to tape; tape is kept in a locked room!", ((0, 7, "heading"),),
                None),
    ChunkSource(4, _ENTRY, ((0, 14, "heading"),), "Reference > policy section"),
    ChunkSource(3, "max-size: SIZE\n    The hard limit of the database. It cannot exceed "
                "the disk. Default: 500M (500 MiB)", (), "Reference > database"),
)
#: The texts of :data:`SAMPLES` under the cut of :data:`CUT_VERSION`.
DIGEST = (2, "e465fd4c728b8c3f")


def _digest() -> str:
    encoder = MiniLMSentences()
    texts = ["\x1f".join(encoder.texts(s)) for s in SAMPLES]
    return hashlib.sha256("\x1e".join(texts).encode()).hexdigest()[:16]


def test_a_change_of_the_cut_raises_its_version() -> None:
    """Update both when this fails: raise ``CUT_VERSION`` by one (knowledge bases then
    re-embed their sentences when they open) and set ``DIGEST`` to the new pair."""
    assert (CUT_VERSION, _digest()) == DIGEST, (
        "the sentence cut changed what a chunk's texts are: raise "
        "citewise.models.sentence_vectors.CUT_VERSION and set DIGEST to "
        f"({CUT_VERSION + 1}, {_digest()!r})")


def test_the_samples_exercise_the_cut() -> None:
    """The digest covers a cut worth checking: many sentences, a pair compared with the
    sentence before it, an abbreviation and a spaced ellipsis inside a sentence, and the
    heading left out."""
    texts = [t for s in SAMPLES for t in MiniLMSentences().texts(s)]
    assert len(texts) >= 12
    assert any(t.startswith("This is because") and t.endswith("The default is 30 s.")
               for t in texts)
    assert "Use the --strict flag, e.g. when a run must stop at the first error." in texts
    assert "Backups run every night." in texts and "Backups" not in texts
