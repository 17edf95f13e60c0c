"""``FallbackModel``: try models in order until one answers.

A model is skipped when it fails *before producing any part* with a retryable
:class:`~citewise.errors.ModelError` (timeout, rate limit, unavailable, bad response,
auth): retries inside each provider come first, then the next model. Once a model has
streamed a part the turn belongs to it — switching mid-stream would show the user two
answers spliced together — so a later failure ends the run with that model's error.

``served_by`` names the model that answered the latest call, for pricing and traces.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence

from citewise.errors import ConfigError, ModelError
from citewise.models.base import Model, ModelRequest, Part

__all__ = ["FallbackModel"]


class FallbackModel:
    """A chain of models; the first is preferred."""

    def __init__(self, models: Sequence[Model]) -> None:
        if not models:
            raise ConfigError("FallbackModel needs at least one model", code="invalid_model_spec")
        self.models = list(models)
        self.served_by: str | None = None
        self.failures: list[ModelError] = []  # of the latest call, in order

    @property
    def name(self) -> str:
        return self.served_by or self.models[0].name

    async def stream(self, request: ModelRequest) -> AsyncGenerator[Part, None]:
        self.failures = []
        for model in self.models:
            started = False
            source = model.stream(request)
            try:
                async for part in source:
                    if not started:
                        started = True
                        self.served_by = model.name
                    yield part
                if not started:
                    self.served_by = model.name
                return
            except ModelError as exc:
                if started or not getattr(exc, "retryable", False):
                    raise
                self.failures.append(exc)
            finally:
                aclose = getattr(source, "aclose", None)
                if aclose is not None:
                    await aclose()
        last = self.failures[-1]
        raise type(last)(
            f"every model in the chain failed; last: {last.message}",
            code=last.code,
            details={"failures": [{"model": m.name, "code": e.code, "message": e.message}
                                  for m, e in zip(self.models, self.failures, strict=True)]},
        )
