"""An option's "Default value is 2." after its description (SBCL's runtime options, a
new-user review of its one-page manual, 2026-12-07): quoted alone, the answer was "Default
value is 2." with neither the option nor its unit. It says nothing alone, as "Defaults to 2."
does: it is quoted with the sentence it completes, under its option's name."""

from __future__ import annotations

from pathlib import Path

from _answers import ask_over
from citewise.models.leaning import leans_whole

OPTIONS = """<html><head><title>SBCL User Manual</title></head><body>
<h2>3.3 Command Line Options</h2>
<h3>3.3.1 Runtime Options</h3>
<dl compact="compact">
<dt><span><code>--core <var>corefilename</var></code></span></dt>
<dd><p>Run the specified Lisp core file instead of the default.</p></dd>
<dt><span><code>--dynamic-space-size <var>megabytes</var></code></span></dt>
<dd><p>Size of the dynamic space reserved on startup in megabytes. Default
value is platform dependent.</p></dd>
<dt><span><code>--control-stack-size <var>megabytes</var></code></span></dt>
<dd><p>Size of control stack reserved for each thread in megabytes. Default
value is 2.</p></dd>
<dt><span><code>--noinform</code></span></dt>
<dd><p>Suppress the printing of any banner or other informational message at
startup.</p></dd>
</dl>
</body></html>"""


def test_a_default_value_sentence_leans_on_the_one_before_it() -> None:
    for sentence in ("Default value is 2.", "Default value: 4", "Defaults to 2.",
                     "Default is 5."):
        assert leans_whole(sentence), sentence
    assert not leans_whole("Default values are listed in the table below for each platform.")


def test_an_option_s_default_is_quoted_with_its_description_and_name(tmp_path: Path) -> None:
    answer = ask_over(tmp_path, {"sbcl.html": OPTIONS},
                      "How big is each thread's control stack unless I change it?")
    assert answer.citations, answer.text
    quoted = " ".join(c.excerpt for c in answer.citations)
    assert "Size of control stack reserved for each thread in megabytes." in quoted, answer.text
    assert "Default value is 2." in quoted, answer.text
    assert "--control-stack-size" in answer.text, answer.text
