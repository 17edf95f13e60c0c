"""The knowledge base, laid out as its data flows: :mod:`.loaders` (files → text with
section and page spans) → :mod:`.ingest` (chunking, the write pipeline, the outbox that
keeps derived indexes in step, writer locks) → :mod:`.index` (the lexical and vector
search seams, each embedded implementation beside its PostgreSQL twin, and the
embedders) → :mod:`.retrieve` (query analysis, fusion, evidence windows, hits).
:class:`~citewise.knowledge.base.KnowledgeBase` is the facade over all of it, opened by
:mod:`.embedded` (a folder) or :mod:`.postgres` (a shared database)."""
