"""MCP both ways: tools from MCP servers for citewise agents (:mod:`.client_tools`), and
citewise as an MCP server exposing ``ask``, ``resume`` (a paused run) and ``search``
(:mod:`.server`). Needs the ``mcp`` extra (``pip install 'citewise[mcp]'``)."""
