"""``GET /v1/runs/{id}/audio`` and ``GET /v1/runs/{id}/image``: the spoken answer and the
picture of its first cited PDF passage, for runs that asked for them (seed 001's
``audioOutput.url`` / ``imageOutput.imageUrl``). Made on first fetch, then kept
(see :mod:`citewise.server.media`)."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Path
from fastapi.responses import FileResponse, Response

from citewise.answer import Answer
from citewise.errors import NotFound
from citewise.server.deps import ERRORS, Caller, State

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["runs"], responses=ERRORS)

RunId = Annotated[str, Path(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.-]+$",
                            description="Run id.")]


async def _answer(state: State, tenant: str, run_id: str) -> Answer:
    record = await state.manager.record(tenant, run_id)
    if record is None or record.answer is None:
        raise NotFound(f"no answer for run {run_id!r}", code="unknown_run",
                       details={"run_id": run_id})
    return Answer.model_validate(record.answer)


@router.get("/runs/{run_id}/audio", summary="The answer spoken (WAV)",
            response_class=FileResponse,
            responses={200: {"description": "WAV audio", "content": {"audio/wav": {}}}})
async def run_audio(run_id: RunId, state: State, who: Caller) -> Response:
    """The run's answer spoken by `espeak-ng` (runs asked with `"audio": true`)."""
    from citewise.server.media import speak

    answer = await _answer(state, who.tenant, run_id)
    if answer.audio is None:
        raise NotFound("this run did not ask for audio (`\"audio\": true`)", code="no_audio",
                       details={"run_id": run_id})
    out = state.services.data_dir / "media" / who.tenant / f"{run_id}.wav"
    path = await asyncio.to_thread(speak, answer.audio.text, out, answer.audio.language)
    return FileResponse(path, media_type="audio/wav")


@router.get("/runs/{run_id}/image", summary="The first cited PDF passage (PNG)",
            response_class=Response,
            responses={200: {"description": "PNG image", "content": {"image/png": {}}}})
async def run_image(run_id: RunId, state: State, who: Caller) -> Response:
    """The cited region of the first PDF citation, highlighted (runs asked with
    `"image": true`)."""
    from citewise.server.media import pdf_bytes, pdf_source, render_citation

    answer = await _answer(state, who.tenant, run_id)
    if answer.image is None:
        raise NotFound("this run did not ask for an image, or cites no PDF", code="no_image",
                       details={"run_id": run_id})
    out = state.services.data_dir / "media" / who.tenant / f"{run_id}.png"

    def make() -> bytes:
        if out.is_file():
            return out.read_bytes()
        path, page, excerpt, meta = pdf_source(answer)
        doc = state.services.store.get_document(who.tenant, str(meta.get("documentId")))
        data = pdf_bytes(path, doc.content_hash if doc is not None else None)
        png, _ = render_citation(data, page, excerpt)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(png)
        return png

    return Response(await asyncio.to_thread(make), media_type="image/png")
