"""The Linux-PAM guides (DocBook XSL, Debian's ``libpam-doc``; new-user review 2026-12-07):
a function's prototype, which DocBook lays out as a borderless table of a parameter a row,
is the function's code in its lines, not a table's rows ("int pam_start( | service_name, |"
in 36 prototypes of 8 pages; HTML loader 67)."""

from __future__ import annotations

from citewise.knowledge.loaders.html import read_html

PROTOTYPE = """<html><head><title>pam_sm_open_session</title></head><body>
<div class="funcsynopsis"><pre class="funcsynopsisinfo">#include &lt;security/pam_modules.h&gt;
</pre><table border="0" class="funcprototype-table" summary="Function synopsis"
style="cellspacing: 0; cellpadding: 0;"><tr><td><code class="funcdef">int <b
class="fsfunc">pam_sm_open_session</b>(</code></td><td><var class="pdparam">pamh</var>, </td>
<td>&nbsp;</td></tr><tr><td>&nbsp;</td><td><var class="pdparam">flags</var>, </td><td>&nbsp;</td>
</tr><tr><td>&nbsp;</td><td><var class="pdparam">argv</var><code>)</code>;</td><td>&nbsp;</td>
</tr></table><div class="paramdef-list"><code>pam_handle_t *<var class="pdparam">pamh</var>
</code>;<br><code>int <var class="pdparam">flags</var></code>;</div></div>
<p>The function is called to commence a session.</p></body></html>"""


def test_a_docbook_function_prototype_is_code_in_its_lines() -> None:
    text, _, _, _, roles = read_html(PROTOTYPE)
    assert "|" not in text
    start = text.index("int pam_sm_open_session(")
    lines = text[start:].split("\n")[:3]
    assert [line.strip() for line in lines] == ["int pam_sm_open_session(pamh,", "flags,",
                                                "argv);"]
    assert any(a <= start < b and role == "code" for a, b, role in roles)
    assert "The function is called to commence a session." in text
