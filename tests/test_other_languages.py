"""Questions and documents in French (or German, Spanish, …), new-user review of the Debian
Administrator's Handbook in French, 2026-12-04. The ranking's terms were English: "de",
"les" and the "d" of "d'un" were words the question was about, and routed it to pages whose
titles have them; "par défaut" was no default question; the abstention rule read "par
exemple Apache" and « Unit Entered Failed State » as names the documents must mention, and
every German noun as a name; the sentence splitter began a sentence with a quotation's
closing "»" and cut after "p. ex.". The packaged embedder is English-only: these are the
fixes that need no other model (for that one: tests/test_multilingual.py)."""

from __future__ import annotations

from pathlib import Path

from citewise.knowledge.retrieve.query import detect_language, function_words, keywords
from citewise.models.answerability import named
from citewise.models.sentence_rank import Sentence, intent, rank


def test_a_french_questions_function_words_are_not_its_terms() -> None:
    question = "Combien de jours les journaux sont-ils gardés ?"
    assert detect_language(question) == "fr"  # "sont-ils": "sont" and "ils" are French
    assert {"de", "les", "ils", "sont"} <= function_words(question)
    assert keywords("Comment l'annuler d'un coup ?", "fr") == ["annuler", "coup"]
    # English keeps its own rules: nothing more is dropped from an English question, and
    # its contractions are no French elisions ("don't" is not "don" and a "t").
    assert function_words("Which car does the documentation use as an example?") == frozenset()
    for english in ("Don't I need sudo?", "What's PG's max_connections?", "Won't it compile?"):
        assert detect_language(english) in ("en", None), english


def test_function_words_do_not_route_a_question_to_a_page_titled_with_them() -> None:
    title = Sentence(1, 0, "Les journaux sont conservés une semaine.", "",
                     "les-journaux-de-la-securite.html", "Les journaux de la sécurité", True)
    answer = Sentence(2, 1, "Un dépôt reçoit une priorité de 500.", "",
                      "apt-preferences.html", "Préférences d'APT", True)
    scored = rank("Quelle est la priorité de la plupart des dépôts ?", [title, answer])
    assert scored[0].sentence is answer
    assert scored[1].parts.get("routing", 0.0) == 0.0


def test_default_in_other_languages_is_a_default_question_and_answer() -> None:
    assert "default" in intent("Quelle est la priorité par défaut d'un dépôt ?")
    assert "default" in intent("Welche Priorität hat ein Paket standardmäßig?")
    stated = Sentence(1, 0, "Par défaut, un dépôt reçoit la priorité 500.", "", "a.html",
                      "APT", True)
    other = Sentence(1, 1, "Un dépôt peut recevoir la priorité 990 avec une cible.", "",
                     "a.html", "APT", True)
    scored = rank("Quelle priorité un dépôt reçoit-il par défaut ?", [other, stated])
    assert scored[0].sentence is stated and scored[0].parts.get("intent", 0.0) > 0


def test_an_example_or_a_quoted_message_in_french_is_the_askers_data() -> None:
    assert named("Comment protéger un serveur web, par exemple Apache ?") == []
    assert named("Par exemple Apache, comment le protéger ?") == []
    assert named("Que signifie l'erreur « Unit Entered Failed State » ?") == []
    assert named("Wie schütze ich einen Webserver, z. B. Apache?") == []
    # German capitalises every noun: a name is what has more capitals than its first.
    assert named("Wie schütze ich den Webserver mit PostgreSQL und NTP?") == [
        "postgresql", "ntp"]
    # A compound's parts are capitalised too: "Soft-Limit" names nothing, "NFSv4-Server" NFSv4.
    assert named("Was passiert über dem Soft-Limit auf einem NFSv4-Server?") == ["nfsv4"]


def test_french_quotations_and_abbreviations_end_sentences_where_they_do() -> None:
    from citewise.sentences import join_abbreviations, sentence_spans

    def sentences(text: str) -> list[str]:
        return [text[a:b] for a, b in join_abbreviations(text, sentence_spans(text))]

    # A quotation closes with "»" after a space; the next sentence does not open with it.
    assert sentences("« Redémarrez le service. » Ensuite, vérifiez les journaux.") == [
        "« Redémarrez le service. »", "Ensuite, vérifiez les journaux."]
    assert sentences("Il dit « Arrêtez. Tout de suite. » puis il part.") == [
        "Il dit « Arrêtez. Tout de suite. » puis il part."]
    assert sentences("Un outil, p. ex. rsync, copie les fichiers. La suite.") == [
        "Un outil, p. ex. rsync, copie les fichiers.", "La suite."]
    assert sentences("Siehe Kapitel 3 bzw. den Anhang. Dann weiter.") == [
        "Siehe Kapitel 3 bzw. den Anhang.", "Dann weiter."]
    assert sentences("Man kann z. B. den Dienst neu starten. Dann weiter.") == [
        "Man kann z. B. den Dienst neu starten.", "Dann weiter."]
    # German opens a quotation with "»": it begins the next sentence.
    assert sentences("Das ist gut. »Neustart« ist wichtig.") == [
        "Das ist gut.", "»Neustart« ist wichtig."]
    # English is cut as before: "ex." alone ends a sentence.
    assert sentences('"Restart the service." Then check the logs.') == [
        '"Restart the service."', "Then check the logs."]
    assert sentences("I called my ex. Then she answered.") == [
        "I called my ex.", "Then she answered."]
    # English "i. e." and "e. g." spaced, as Cockpit's manual pages write them (review,
    # 2026-12-05: "…seconds, i." / "e." / "the server is idle."); a lone "e." still ends one.
    assert sentences("It waits 90 seconds, i. e. the server is idle. Then it exits.") == [
        "It waits 90 seconds, i. e. the server is idle.", "Then it exits."]
    assert sentences("Use a fruit, e. g. an apple. Then eat it.") == [
        "Use a fruit, e. g. an apple.", "Then eat it."]
    assert sentences("The variable is named e. Then it is set.") == [
        "The variable is named e.", "Then it is set."]
    # "eg.", "ie.", "resp." as libvirt's manual writes them (review, 2026-12-05: "…
    # automatically (eg." was quoted as a sentence).
    assert sentences("It cannot log in (eg. using ssh-agent etc.). Use this when needed.") == [
        "It cannot log in (eg. using ssh-agent etc.).", "Use this when needed."]
    assert sentences("The user (resp. group) id, resp. the size of it. Next.") == [
        "The user (resp. group) id, resp. the size of it.", "Next."]
    # Dots that end no word are a name in code (fish's manual, review 2026-12-05).
    assert sentences("As an alternate key binding, Alt+. can be used. Next one.") == [
        "As an alternate key binding, Alt+. can be used.", "Next one."]
    assert sentences("For numbers, . is always the radix character. Next.") == [
        "For numbers, . is always the radix character.", "Next."]
    assert sentences("Now, .. transforms to cd ../ instead. It works.") == [
        "Now, .. transforms to cd ../ instead.", "It works."]
    # … but a word's dot still ends its sentence, whatever closes the word (a second
    # review of the change, 2026-12-05).
    for text in ("Run `make`. then install it.", "See https://x.org/. then go.",
                 "This is **important**. the next one."):
        assert len(sentences(text)) == 2, text


def test_the_decline_is_in_the_questions_language(tmp_path: Path) -> None:
    from citewise import Agent, KnowledgeBase
    from citewise.grounding.declines import DECLINES, NOT_IN_SOURCES, is_decline

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "cron.md").write_text("# Cron\n\nLe démon cron lance les tâches planifiées.\n",
                                  encoding="utf-8")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([docs])
        agent = Agent(kb)
        french = agent.ask("Comment installer Kubernetes sur ce serveur ?")
        german = agent.ask("Wie installiere ich Kubernetes auf diesem Server?")
        english = agent.ask("How do I install Kubernetes on this server?")
    # Each in its language, saying why where a name is why: German capitalises every noun,
    # so "Kubernetes" is no name there (answerability.named), and the decline names none.
    for answer, said in ((french, f"{DECLINES['fr']} Aucun passage trouvé ne mentionne "
                                  "« Kubernetes »."),
                         (german, DECLINES["de"]),
                         (english, f"{NOT_IN_SOURCES} No passage found mentions “Kubernetes”.")):
        assert answer.text == said and answer.citations == []
        assert "no_answer_in_sources" in {i.code for i in answer.issues}
        assert is_decline(answer.text)
