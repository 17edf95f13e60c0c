"""The ``citewise`` command line: one module per command (``ingest``, ``ask``, ``serve``, …),
each a thin layer that parses flags, opens the knowledge base or the store the same way
(:mod:`.common`), and prints; no command holds logic the Python API lacks, so the CLI and
the library cannot drift apart."""
