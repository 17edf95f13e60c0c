"""JSON Schema → llama.cpp GBNF grammar (llama-cpp-python's converter, one fix).

The Python port's ``char`` rule lets raw newlines and other control characters into JSON
strings, which is not JSON (``json.loads`` rejects it, and a 135M model does emit them);
llama.cpp's own C++ converter excludes them, and so do we. (The parser still reads steps
with ``strict=False`` in case a future converter spells the rule differently.)
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["schema_to_gbnf"]

_LOOSE_CHAR = 'char ::= [^"\\\\] |'
_JSON_CHAR = 'char ::= [^"\\\\\\x7F\\x00-\\x1F] |'


def schema_to_gbnf(schema: dict[str, Any]) -> str:
    """GBNF text accepting the JSON documents valid for ``schema`` (within the subset of
    JSON Schema that llama-cpp-python supports: no numeric bounds, simple patterns)."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    gbnf: str = json_schema_to_gbnf(json.dumps(schema))
    return gbnf.replace(_LOOSE_CHAR, _JSON_CHAR)
