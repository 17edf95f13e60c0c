"""What the routes share: the store, the knowledge base per tenant, the model, the hooks.

Built once per process by the app's lifespan (opening SQLite and the search index takes
a moment, so it happens in a worker thread before the first request is served).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from citewise.server.config import ServerConfig

if TYPE_CHECKING:
    from citewise.agent.hooks import RunHook
    from citewise.agent.runner import Agent
    from citewise.agent.state import RunSettings
    from citewise.agent.tools import Tool
    from citewise.grounding.feedback import FeedbackService
    from citewise.grounding.verify import Verifier
    from citewise.knowledge.base import KnowledgeBase
    from citewise.knowledge.ingest.embed_worker import BackgroundWorkers
    from citewise.models.base import Model
    from citewise.server.ingest_queue import DocumentJobs
    from citewise.store.base import Store

__all__ = ["ModelSource", "Services"]

ModelSource: TypeAlias = "Model | str | Callable[[], Model]"
"""A model string (resolved once), one shared model, or a factory called per run."""


class Services:
    """The process-wide dependencies of the API."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        model: ModelSource | None = None,
        tools: Iterable[Tool | Callable[..., Any]] = (),
        hooks: Callable[[], Sequence[RunHook]] | None = None,
    ) -> None:
        self.config = config
        self.data_dir = config.resolved_data_dir().absolute()  # sources are absolute paths
        self._model_source: ModelSource = model if model is not None else config.model
        self._shared_model: Model | None = None
        self.tools = list(tools)
        self._extra_hooks = hooks
        self._root: KnowledgeBase | None = None
        self._kbs: dict[str, KnowledgeBase] = {}
        self._search_tools: dict[str, Tool] = {}
        self._verifiers: dict[str, Verifier] = {}
        self._feedback: FeedbackService | None = None
        self._secret_setting: str | None = None
        self._jobs: DocumentJobs | None = None
        self._embedders: BackgroundWorkers | None = None

    def open(self) -> None:
        """Open the knowledge base (store + index; in ``database_url`` when set, else in
        ``data_dir``) and resolve the model. Blocking."""
        from citewise.grounding.feedback import SECRET_SETTING, FeedbackService, get_or_create_secret
        from citewise.knowledge.base import KnowledgeBase

        url = self.config.database_url
        if url:
            self._root = KnowledgeBase.open_postgres(url, tenant=self.config.default_tenant,
                                                     embedder_name=self.config.embedder)
        else:
            self._root = KnowledgeBase.open(self.data_dir, tenant=self.config.default_tenant,
                                            embedder_name=self.config.embedder)
        # Uploads return once searchable; these threads embed (issue 23).
        self._embedders = self._root.start_workers(
            int(os.environ.get("CITEWISE_EMBED_WORKERS", "1")))
        secret = get_or_create_secret(self._root.store)
        self._secret_setting = self._root.store.get_setting(SECRET_SETTING)
        self._feedback = FeedbackService(self._root.store, secret)
        source = self._model_source
        if isinstance(source, str):
            from citewise.agent.runner import resolve

            self._shared_model = resolve(source)
        elif not isinstance(source, type) and hasattr(source, "stream"):
            self._shared_model = cast("Model", source)  # an instance; a class is a factory

    @property
    def store(self) -> Store:
        assert self._root is not None, "Services.open() first"
        return self._root.store

    @property
    def feedback(self) -> FeedbackService:
        assert self._feedback is not None, "Services.open() first"
        return self._feedback

    def kb(self, tenant: str) -> KnowledgeBase:
        """The tenant's view of the knowledge base (same store and index)."""
        assert self._root is not None, "Services.open() first"
        kb = self._kbs.get(tenant)
        if kb is None:
            kb = self._kbs[tenant] = self._root.for_tenant(tenant)
        return kb

    def model(self) -> Model:
        """The model for one run."""
        if self._shared_model is not None:
            return self._shared_model
        factory = self._model_source
        assert callable(factory)
        made: Model = factory()
        return made

    def hooks(self) -> list[RunHook]:
        """Extra hooks of one run (the agent adds provenance and the feedback token)."""
        return list(self._extra_hooks()) if self._extra_hooks is not None else []

    def cached_setting(self, key: str) -> str | None:
        """Settings that never change while serving (the feedback secret), from memory."""
        from citewise.grounding.feedback import SECRET_SETTING

        return self._secret_setting if key == SECRET_SETTING else None

    def agent(self, tenant: str, store: Store, settings: RunSettings,
              extra_tools: Sequence[Tool] = ()) -> Agent:
        """An agent for one run of ``tenant``, cheap to build (``extra_tools``: that run's
        own, beside the server's).

        ``Agent(kb)`` would build a new search tool (a pydantic model: ~3 ms, 20 ms on a
        busy box) for every run; the tool and the verifier are per tenant and stateless,
        so they are built once, and the knowledge base is set afterwards only as the
        tools' ``ctx.deps``.
        """
        from citewise.agent.runner import Agent

        kb = self.kb(tenant)
        search = self._search_tools.get(tenant)
        if search is None:
            from citewise.agent.search_tool import make_search_tool

            search = self._search_tools[tenant] = make_search_tool(kb)
        verifier = self._verifiers.get(tenant)
        if verifier is None:
            from citewise.grounding.verify import Verifier

            # The embedder, when the knowledge base has one, also judges whether a cited
            # passage addresses the question (grounding.relevance; the loop runs it in a
            # worker thread).
            embedder = getattr(kb.dense, "embedder", None)
            verifier = self._verifiers[tenant] = Verifier(
                document_text=kb.document_text,
                relevance_embed=embedder.embed if embedder is not None else None)
        # No cancel watch of its own (cancel_poll_s=None): the run manager reads the cancel
        # requests of other processes for all its runs and keeps their leases.
        from citewise.agent.search_tool import SearchDetailsRecorder

        # As Agent(kb) adds it: every search_knowledge call counted into query_details.
        hooks = [*self.hooks(), SearchDetailsRecorder()]
        agent = Agent(None, model=self.model(), tools=[search, *self.tools, *extra_tools],
                      store=store,
                      settings=settings, hooks=hooks, tenant=tenant, event_batch=1,
                      verifier=verifier, cancel_poll_s=None)
        agent.kb = kb  # what tools see as ctx.deps, as with Agent(kb)
        return agent

    @property
    def jobs(self) -> DocumentJobs:
        """Where uploads and deletes run: threads of their own, tenants taking turns
        (:mod:`citewise.server.ingest_queue`), never the event loop's default executor."""
        if self._jobs is None:
            from citewise.server.ingest_queue import DocumentJobs

            self._jobs = DocumentJobs()
        return self._jobs

    def close(self) -> None:
        if self._jobs is not None:
            self._jobs.close()
            self._jobs = None
        if self._embedders is not None:
            self._embedders.stop()
            self._embedders = None
        if self._root is not None:
            self._root.close()
            self._root = None
