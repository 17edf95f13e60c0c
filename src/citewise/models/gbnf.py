"""JSON Schema → llama.cpp GBNF grammar, with two fixes over llama-cpp-python's converter.

1. **Length limits cost seconds per step.** The Python converter spells ``maxLength: 400``
   as 400 nested optional rules; llama.cpp re-parses the grammar for every generation
   and that alone took ~5 s per step here. llama.cpp's GBNF has native bounded repetition
   (``char{0,400}``), parsed in milliseconds, so while converting we have the converter's
   repetition helper emit that syntax instead (measured: first token 7.2 s → 0.85 s).
2. **Raw control characters.** The Python port's ``char`` rule allows raw newlines and
   other control characters inside strings, which is not JSON; llama.cpp's own C++
   converter excludes them, and so do we.

The converter itself stays llama-cpp-python's (``json_schema_to_gbnf``); only its
module-level repetition helper is swapped for the duration of one conversion, under a lock.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["schema_to_gbnf"]

_lock = threading.Lock()
_LOOSE_CHAR = 'char ::= [^"\\\\] |'
_JSON_CHAR = 'char ::= [^"\\\\\\x7F\\x00-\\x1F] |'


def _native(original: Callable[..., str]) -> Callable[..., str]:
    def build(item_rule: str, min_items: int, max_items: int | None,
              separator_rule: str | None = None, item_rule_is_literal: bool = False) -> str:
        if separator_rule:  # "a ("," a){m,n}" shapes: rare here, keep the original
            return original(item_rule, min_items, max_items, separator_rule,
                            item_rule_is_literal)
        upper = "" if max_items is None else str(max_items)
        return f"({item_rule}){{{min_items},{upper}}}"
    return build


def schema_to_gbnf(schema: dict[str, Any]) -> str:
    """GBNF text accepting exactly the JSON documents valid for ``schema`` (the subset of
    JSON Schema llama-cpp-python supports)."""
    from llama_cpp import llama_grammar

    with _lock:
        original = getattr(llama_grammar, "_build_repetition", None)
        if original is not None:
            llama_grammar._build_repetition = _native(original)
        try:
            gbnf: str = llama_grammar.json_schema_to_gbnf(json.dumps(schema))
        finally:
            if original is not None:
                llama_grammar._build_repetition = original
    return gbnf.replace(_LOOSE_CHAR, _JSON_CHAR)
