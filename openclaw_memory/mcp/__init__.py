"""The MCP server: memory for any agent that speaks the Model Context Protocol.

`openclaw-memory mcp` (mcp/cli.py) serves the tools of mcp/tools.py, registered by mcp/server.py
on the official `mcp` SDK (the `mcp` extra), over stdio or streamable HTTP, for one user and
agent fixed at start.
"""
