"""A backup tool's reference of 252 chunks (one page per subject), for the tests of words
no document contains: a knowledge base has to be of some size before a word's absence
means anything (``MENTIONS_FROM``)."""

from __future__ import annotations

SUBJECTS = ["retention", "compression", "bandwidth", "logging", "scheduling", "locking",
            "checksums", "snapshots", "pruning", "restores", "mounts", "quotas"]
SAFE = ("Running ferry prune while a backup is in progress is safe: the prune waits for "
        "the backup's repository lock before it deletes anything.")
HASH = ("Every chunk of an archive is hashed with SHA-256, and ferry verify compares the "
        "hashes to detect tampering.")
#: Close in meaning to HASH (quoted with answerability 0.54 before issue #27's check of
#: unmentioned words), but bcrypt is in no document.
BCRYPT = "How do I switch ferry's chunk hashing to bcrypt?"


def pages() -> dict[str, str]:
    """File name → Markdown text."""
    out = {}
    for subject in SUBJECTS:
        parts = [f"# Ferry {subject}\n"]
        if subject == "pruning":
            parts.append(f"## Pruning during a backup\n\n{SAFE}\n")
        if subject == "checksums":
            parts.append(f"## Hashing\n\n{HASH}\n")
        for j in range(20):
            parts.append(f"## ferry-{subject}-{j}\n\nThe ferry-{subject}-{j} setting controls "
                         f"{subject} for archive group {j}. Its default is {j + 1} and it is "
                         f"read when the daemon starts.\n")
        out[f"{subject}.md"] = "\n".join(parts)
    return out
