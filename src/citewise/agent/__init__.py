"""The agent: the ReAct loop (an async generator of events), its state, tools and hooks."""
