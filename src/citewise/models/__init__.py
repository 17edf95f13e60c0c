"""Models behind one contract (:mod:`citewise.models.base`): scripted, extractive, real LLMs."""
