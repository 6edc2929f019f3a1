"""Search over the index: one ``memory.search`` (``engine``), semantic search and its
background embedding (``semantic``, ``vectorizer``), snippets. What is stored and how it is
queried is ``index/``'s; the result shapes are ``protocol/results/``'s."""
