"""The embedded vector index: the truth is every chunk's vector in the SQLite file
(:mod:`.truth`), the index is derived from it (:mod:`.index`, one :mod:`.shard` per
tenant, exact while small and HNSW above), saved beside the database (:mod:`.files`),
replayed from the truth's change log after a crash (:mod:`.replay`), and kept in step
with the chunks by :class:`~.dense.DenseIndex`."""
