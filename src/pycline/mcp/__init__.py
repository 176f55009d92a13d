"""MCP: the settings file, server connections (stdio, SSE, streamable HTTP) and the hub.

Nothing here imports the `mcp` SDK at import time; connections load it when they start.
"""
