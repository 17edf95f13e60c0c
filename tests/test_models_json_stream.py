"""Streaming string fields out of JSON that is still being written."""

from __future__ import annotations

import itertools
import json

from hypothesis import given
from hypothesis import strategies as st

from citewise.models.json_stream import JsonFieldStreamer


def _stream(text: str, cuts: list[int], fields: list[str]) -> dict[str, str]:
    streamer = JsonFieldStreamer(fields)
    out: dict[str, str] = {}
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    for a, b in itertools.pairwise(bounds):
        for field, piece in streamer.feed(text[a:b]):
            out[field] = out.get(field, "") + piece
    return out


@given(thought=st.text(), answer=st.text(), nested=st.text(),
       cuts=st.lists(st.integers(min_value=0), max_size=30), ascii_only=st.booleans())
def test_streamed_pieces_equal_the_decoded_values(thought: str, answer: str, nested: str,
                                                  cuts: list[int], ascii_only: bool) -> None:
    doc = {"thought": thought, "tool": "x", "arguments": {"thought": nested, "q": [nested]},
           "answer": answer}
    text = json.dumps(doc, ensure_ascii=ascii_only)
    got = _stream(text, cuts, ["thought", "answer"])
    assert got.get("thought", "") == thought
    assert got.get("answer", "") == answer  # nested "thought" keys are not top-level


def test_pieces_arrive_before_the_object_is_complete() -> None:
    streamer = JsonFieldStreamer(["answer"])
    assert streamer.feed('{"thought": "x", "answer": "Fi') == [("answer", "Fi")]
    assert streamer.feed('ve \\u00e9\\n') == [("answer", "ve é\n")]
    assert streamer.feed('"}') == []


def test_non_string_values_are_not_streamed() -> None:
    streamer = JsonFieldStreamer(["answer"])
    assert streamer.feed('{"answer": {"days": "5"}, "n": 1}') == []
