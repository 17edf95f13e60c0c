"""A manual page as man(1) formats it, in an HTML ``<pre>``: headings, paragraphs and items,
read as text — not one code block.

Postfix's HTML manual pages (Debian's ``postfix-doc``: ``access.5.html``, ``master.5.html``
and 75 more) are man(1)'s output in a ``<pre>``. Read as code, their sentences ranked as
code, were quoted with man's justifying spaces ("The  name  is  folded to lowercase, in
order to make database        lookups case insensitive.") and its line-end hyphens
("config- uration"), and ``parent_domain_matches_subdomains`` was in no chunk, broken after
"par-" every time (new-user review, 2026-12-05). The fixture is modelled on those pages."""

from __future__ import annotations

from pathlib import Path

from citewise.knowledge.loaders.html import HtmlLoader

_PAGE = """<html> <head><title> Postfix manual - master(5) </title></head> <body> <pre>
MASTER(5)                                                            MASTER(5)

<b>NAME</b>
       master - Postfix master process configuration file format

<b>DESCRIPTION</b>
       All  daemons  specified here must speak a Postfix-internal protocol. In
       order to execute non-Postfix software use the <a href="l.html"><b>local</b>(8)</a>  or  <b>spawn</b>(8)
       services. Postfix services are implemented by daemon processes, a built-
       in default applies to each of them, and  all  of  them  are  under  the
       configuration  of  <b><a href="p.html#pdms">par</a>-</b>
       <b><a href="p.html#pdms">ent_domain_matches_subdomains</a></b> and of the queue directory (see con-
       figuration below). No built-in map is ever consulted first.

<b>SYNTAX</b>
       <b>o</b>      Each  logical  line defines a single Postfix service.  Each ser-
              vice is identified by its name  and  type  as  described  below.
              When multiple lines specify the same service name and type, only
              the last one is remembered.

       <b>Service type</b>
              Specify one of the following service types:

              <b>inet</b>   The service listens on a TCP/IP socket and is accessible via
                     the network.

       <b>Chroot (default: Postfix</b> &gt;<b>= 3.0: n, Postfix</b> &lt; <b>3.0: y)</b>
              Whether or not the service  runs  chrooted  to  the  mail  queue
              directory.

<b>EXAMPLE</b>
       /etc/postfix/main.cf:
           smtpd_client_restrictions =
               check_client_access hash:/etc/postfix/access

<b>SEE ALSO</b>
       <a href="postmap.1.html">postmap(1)</a>, Postfix lookup table manager
       <a href="smtpd.8.html">smtpd(8)</a>, SMTP server

                                                                     MASTER(5)
</pre> </body> </html>"""


def _load(tmp_path: Path, html: str
          ) -> tuple[str, list[tuple[int, int, str]], list[tuple[int, int, str]]]:
    page = tmp_path / "master.5.html"
    page.write_text(html, encoding="utf-8")
    doc = HtmlLoader().load(page, page.read_bytes())
    return doc.text, list(doc.sections), list(doc.roles)


def test_a_formatted_manual_page_in_a_pre_reads_as_text(tmp_path: Path) -> None:
    text, sections, roles = _load(tmp_path, _PAGE)

    def section_of(words: str) -> str:
        at = text.index(words)
        return next(str(t) for a, b, t in sections if a <= at < b)

    # A paragraph is one line of single-spaced text; a word man hyphenated at a line's end
    # is whole where the page spells it whole (or never spells it either way) …
    assert ("All daemons specified here must speak a Postfix-internal protocol. In order to "
            "execute non-Postfix software use the local(8) or spawn(8) services.") in text
    assert "parent_domain_matches_subdomains" in text
    assert "(see configuration below)" in text
    # … and keeps its hyphen where the page writes it so: "built-in", not "builtin".
    assert "a built-in default applies" in text
    assert "  " not in text[:text.index("/etc/postfix")].replace("\n", "")
    assert "MASTER(5)" not in text  # the title and footer lines
    # An item's sentences are sentences: the bullet's, whole across its lines.
    assert ("o Each logical line defines a single Postfix service. Each service is identified "
            "by its name and type as described below. When multiple lines specify the same "
            "service name and type, only the last one is remembered.") in text
    assert section_of("Each logical line") == "SYNTAX"
    # Headings are sections, items' tags sub-sections, nested as they are indented.
    assert section_of("master - Postfix master") == "NAME"
    assert section_of("Specify one of the") == "SYNTAX > Service type"
    assert section_of("The service listens on a TCP/IP socket and is accessible via the "
                      "network.") == "SYNTAX > Service type > inet"
    assert section_of("Whether or not the service runs chrooted") == \
        "SYNTAX > Chroot (default: Postfix >= 3.0: n, Postfix < 3.0: y)"
    # A tag is on the line above its text, as a definition list's term is: "Chroot
    # (default: …)" is quoted with the sentence under it, not left a heading alone.
    assert "Chroot (default: Postfix >= 3.0: n, Postfix < 3.0: y)\nWhether or not" in text
    # An example stays as the page sets it, as code; a list of short lines stays lines.
    example = "/etc/postfix/main.cf:\n    smtpd_client_restrictions =\n        check_client"
    assert example in text
    at = text.index(example)
    assert any(a <= at < b and role == "code" for a, b, role in roles)
    assert "postmap(1), Postfix lookup table manager\nsmtpd(8), SMTP server" in text
    assert not any(role == "code" for a, b, role in roles if a <= text.index("All daemons") < b)


def test_a_pre_that_is_no_manual_page_is_still_code(tmp_path: Path) -> None:
    page = ("<html><body><h1>Build</h1><pre>MAKE(1)   is what runs here\n  cc  -o x  x.c\n"
            "</pre></body></html>")
    text, _, roles = _load(tmp_path, page)
    assert "MAKE(1)   is what runs here\n  cc  -o x  x.c" in text
    assert any(role == "code" for _, _, role in roles)


def test_a_long_first_line_is_read_in_one_pass() -> None:
    # A pattern over the whole title line backtracked: "A(1)", 4,000 spaces and "x" took
    # a minute to refuse (the review of the change, 2026-12-05); a page is untrusted input.
    from citewise.knowledge.loaders._html_man import is_man_page

    assert not is_man_page("A(1)" + " " * 200_000 + "x")
    assert is_man_page("A(1)" + " " * 200_000 + "A(1)\n\nNAME\n       a - b\n")
    assert not is_man_page("MAKE(1) is what runs here")


_ITEMS = """<pre>
POSTMAP(1)                                                          POSTMAP(1)

<b>COMMAND-LINE ARGUMENTS</b>
       <b>-q</b> <i>key</i> Search the specified maps for <i>key</i> and write the first value found
              to the standard output stream.

       <b>transport_destination_concurrency_limit</b> <b>($default_destination_concur-</b>
       <b>rency_limit)</b>
              A transport-specific override for the default_destination_con&#8208;
              currency_limit parameter value.

       <b>hosts</b>  The list of hosts to ask, as in this example:
              Example:
                  hosts = host1.some.domain host2.some.domain
              The hosts are tried in random order.

       /etc/postfix/virtual:
           virtual-alias.domain    anything (right-hand content does not matter)
           postmaster@virtual-alias.domain postmaster

GNU coreutils 9.1               September 2022                      POSTMAP(1)
</pre>"""


def test_a_manual_pages_items_and_examples(tmp_path: Path) -> None:
    """The review of the change (2026-12-05), over Postfix's 77 pages: half the code
    blocks were items — a tag and its text one space apart on a filled line, a tag
    wrapped over two lines, an item holding an indented example — and a table's example
    with one long line ran together as prose; groff's U+2010 hyphen was left in words,
    and a footer that starts at the margin read as a heading."""
    text, sections, roles = _load(tmp_path, f"<html><body>{_ITEMS}</body></html>")

    def section_of(words: str) -> str:
        at = text.index(words)
        return next(str(t) for a, b, t in sections if a <= at < b)

    def role_of(words: str) -> str | None:
        at = text.index(words)
        return next((r for a, b, r in roles if a <= at < b), None)

    arguments = "COMMAND-LINE ARGUMENTS"
    assert section_of("Search the specified maps") == f"{arguments} > -q key"
    assert "-q key\nSearch the specified maps for key and write the first value found to the " \
           "standard output stream." in text
    limit = "transport_destination_concurrency_limit ($default_destination_concurrency_limit)"
    assert section_of("A transport-specific override") == f"{arguments} > {limit}"
    assert "the default_destination_concurrency_limit parameter value." in text  # U+2010
    assert section_of("The list of hosts") == f"{arguments} > hosts"
    assert role_of("The list of hosts") is None and role_of("hosts = host1") == "code"
    assert role_of("The hosts are tried") is None
    assert "virtual-alias.domain    anything (right-hand content does not matter)\n" in text
    assert role_of("postmaster@virtual-alias.domain postmaster") == "code"
    assert "GNU coreutils" not in text and "September 2022" not in "".join(
        t for _, _, t in sections)


def test_what_reads_as_a_manual_page() -> None:
    from citewise.knowledge.loaders._html_man import is_man_page

    assert not is_man_page("f(x)    =    f(x)\n  return x\n")  # code, however it looks
    assert not is_man_page("LS(1)                      LS(1)\n  ls lists files\n")  # no heading
    assert is_man_page("LS(1)              User Commands              LS(1)\n\nNAME\n  ls\n")


def test_an_odd_manual_page_is_read_whole() -> None:
    # A page of a thousand lines at the margin (each a heading: it recursed once a line),
    # and a paragraph line of one 40,000-letter word ending in a hyphen.
    from citewise.knowledge.loaders.html import read_html

    title = "A(1)" + " " * 60 + "A(1)\n\nNAME\n"
    text, *_ = read_html(f"<pre>{title}" + "LINE\n" * 1000 + "</pre>")
    assert text.count("LINE") == 1000
    word = "x" * 40_000
    text, *_ = read_html(f"<pre>{title}       {word}-\n       y words end here.\n</pre>")
    assert f"{word}y words end here." in text
