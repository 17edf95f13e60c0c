"""Grounding: citations, their verification, provenance and feedback.

* :mod:`.ledger` — the run's numbered evidence (what ``[N]`` refers to);
* :mod:`.claims` — the answer split into claims, and its citation markers;
* :mod:`.verify` — mechanical checks and the (heuristic) support score: ``Verifier``;
* :mod:`.assemble` — ``assemble_answer``: the verified ``Answer`` of every run;
* :mod:`.provenance` — ``ProvenanceRecorder`` (PROV-O ``explain`` events) and export;
* :mod:`.feedback` — signed feedback tokens and ``FeedbackService``.

Nothing is imported here, so ``import citewise.grounding.assemble`` stays light.
"""
