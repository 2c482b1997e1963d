"""A real MCP client that is not ken: the official Python SDK (`mcp`),
over stdio or streamable HTTP, as Claude Desktop or an agent framework
would connect.

Usage: client.py KEN_BINARY REPO CALLS_JSON      (spawns `ken mcp` in REPO)
       client.py --http URL TOKEN CALLS_JSON     (TOKEN: a bearer token, or -)
CALLS_JSON maps each tool's name to its arguments. Prints one JSON object:
{"tools": {name: {"description": ..., "required": [...]}},
 "calls": {name: {"is_error": bool, "text": its first 50,000 characters}}}."""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client


async def run(read, write, calls):
    out = {"tools": {}, "calls": {}}
    async with ClientSession(read, write) as session:
        info = await session.initialize()
        out["server"] = info.serverInfo.name
        listed = await session.list_tools()
        for tool in listed.tools:
            out["tools"][tool.name] = {"description": tool.description or "",
                                       "required": tool.inputSchema.get("required", [])}
        for name, arguments in calls.items():
            result = await session.call_tool(name, arguments)
            text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
            out["calls"][name] = {"is_error": bool(result.isError), "text": text[:50000]}
    return out


async def main():
    if sys.argv[1] == "--http":
        url, token, calls = sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
        headers = {} if token == "-" else {"Authorization": f"Bearer {token}"}
        async with streamablehttp_client(url, headers=headers) as (read, write, _session_id):
            out = await run(read, write, calls)
    else:
        ken, repo, calls = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
        # The whole environment: the SDK would pass only a safe few (HOME, PATH), and
        # ken must see the test cache it is given.
        params = StdioServerParameters(command=ken, args=["mcp"], cwd=repo, env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            out = await run(read, write, calls)
    print(json.dumps(out))


asyncio.run(main())
