"""Search indexes behind two seams (:mod:`.contract`: ``LexicalSearch``, ``VectorSearch``),
each implementation beside its twin: BM25 in tantivy (:mod:`.lexical_tantivy`, a folder
derived from SQLite) and in PostgreSQL (:mod:`.lexical_postgres`, a generated tsvector);
vectors in process (:mod:`.vectors`, truth in SQLite) and in pgvector
(:mod:`.vectors_postgres`); and the text embedders both vector indexes use
(:mod:`.embedders`). Both lexical indexes score a chunk's heading — its document's title
and section path (:mod:`.headings`) — as a boosted field of its own."""
