"""The agent: the ReAct loop (an async generator of events, free of I/O), its state,
tools, hooks, budgets and human-in-the-loop interrupts, and the :class:`Agent` host
(:mod:`.runner`) that persists runs and threads through a store and resumes them."""
