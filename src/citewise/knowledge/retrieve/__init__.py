"""Reading the knowledge base for a question: query analysis (:mod:`.query`, with
metadata :mod:`.filters` and relative :mod:`.dates`), lexical/dense/hybrid retrieval
(:mod:`.retriever`, fusing scores by :mod:`.fusion`), and the sentence-level evidence
window of each hit (:mod:`.evidence`, carried by :class:`~.hits.Hit`)."""
