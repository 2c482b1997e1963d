#!/usr/bin/env python3
"""A fake language server, for failure injection only.

Usage: fake_lsp.py MODE. Every mode answers `initialize` and `shutdown`
properly; MODE decides what happens to the other requests:

  ok             references/definition -> the asked position, hover -> text,
                 prepareCallHierarchy -> MethodNotFound, else null
  empty-prepare  like ok, but prepareCallHierarchy -> []
  hang           never answers
  hang-init      never answers, not even `initialize`
  crash          exits with status 3 on the first request
  crash-once:F   like crash when file F does not exist (and creates it), else ok
  error[:N]      the first N requests (default: all) get an InternalError, then ok
  garbage        writes junk before each answer: a non-JSON frame, a JSON
                 array, answers to unknown and foreign ids, a stray stdout
                 line, a 3 MB notification; then the real answer
  bad-header     answers with a frame whose Content-Length is not a number
  huge-header    answers with a frame claiming 10^12 bytes
"""

import json
import os
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
out = sys.stdout.buffer


def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        line = line.strip()
        if not line:
            break
        key, _, value = line.partition(b":")
        if key.strip().lower() == b"content-length":
            length = int(value.strip())
    return json.loads(sys.stdin.buffer.read(length))


def raw(data):
    out.write(data)
    out.flush()


def frame(body):
    raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def send(msg):
    msg["jsonrpc"] = "2.0"
    frame(json.dumps(msg).encode())


def ok(msg):
    method, params = msg["method"], msg.get("params") or {}
    if method in ("textDocument/references", "textDocument/definition"):
        pos = params["position"]
        end = {"line": pos["line"], "character": pos["character"] + 1}
        loc = {"uri": params["textDocument"]["uri"], "range": {"start": pos, "end": end}}
        return {"id": msg["id"], "result": [loc]}
    if method == "textDocument/hover":
        return {"id": msg["id"], "result": {"contents": {"kind": "plaintext", "value": "fake hover"}}}
    if method == "textDocument/prepareCallHierarchy" and MODE == "empty-prepare":
        return {"id": msg["id"], "result": []}
    if method == "textDocument/prepareCallHierarchy":
        return {"id": msg["id"], "error": {"code": -32601, "message": "no call hierarchy here"}}
    return {"id": msg["id"], "result": None}


requests = 0
while True:
    msg = read()
    if "id" not in msg:
        if msg.get("method") == "exit":
            sys.exit(0)
        continue
    method = msg.get("method")
    if method == "initialize":
        if MODE == "hang-init":
            continue
        caps = {"textDocumentSync": 1, "referencesProvider": True, "definitionProvider": True,
                "hoverProvider": True, "callHierarchyProvider": True}
        send({"id": msg["id"], "result": {"capabilities": caps, "serverInfo": {"name": "fake"}}})
        continue
    if method == "shutdown":
        send({"id": msg["id"], "result": None})
        continue
    requests += 1

    if MODE.startswith("hang"):
        continue
    if MODE == "crash" or (MODE.startswith("crash-once:") and not os.path.exists(MODE[11:])):
        if MODE != "crash":
            open(MODE[11:], "w").close()
        print("fake: crashing on purpose", file=sys.stderr, flush=True)
        sys.exit(3)
    if MODE.startswith("error"):
        limit = int(MODE[6:]) if MODE.startswith("error:") else None
        if limit is None or requests <= limit:
            send({"id": msg["id"], "error": {"code": -32603, "message": "fake internal error"}})
            continue
    if MODE == "garbage":
        frame(b"{this is not json")
        frame(b"[1, 2, 3]")
        send({"id": 999999, "result": "answer to nobody"})
        send({"id": {"weird": True}, "result": None})
        send({"id": "a-string-id", "result": None})
        raw(b"stray log line on stdout\r\n")
        send({"method": "window/logMessage", "params": {"type": 4, "message": "x" * 3_000_000}})
    if MODE == "bad-header":
        raw(b"Content-Length: lots\r\n\r\n{}")
        continue
    if MODE == "huge-header":
        raw(b"Content-Length: 1000000000000\r\n\r\n{}")
        continue
    send(ok(msg))
