"""The knowledge base: loaders, chunking, lexical/dense/hybrid retrieval, query analysis."""
