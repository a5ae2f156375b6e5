"""modelapi: a scripted mock of the three model APIs the agent CLIs speak,
so a test can run Claude Code, Codex and Gemini CLI for real (inside a
sandbox) without a network or an account.

    api = ModelAPI([{"shell": "echo hi > out.txt"}, {"text": "done"}], log)
    port = api.start("127.0.0.1", 0)
    ...
    api.requests()      # every request: {path, method, headers, body, ...}
    api.tool_outputs()  # the text of every tool result the agents sent back
    api.stop()

or, inside a network namespace (`ip netns exec NS python3 modelapi.py ...`):

    python3 modelapi.py serve --port N --script FILE --log FILE [--host H]

It speaks
  - Anthropic Messages: POST /v1/messages (SSE with "stream": true, JSON
    without), POST /v1/messages/count_tokens; anything else Claude Code
    asks gets a harmless 200 {} (POST) or 404 (GET);
  - OpenAI Responses: POST /v1/responses (SSE), GET /v1/models;
  - Gemini: POST /v1beta/models/MODEL:streamGenerateContent?alt=sse,
    :generateContent and :countTokens.

A script is a list of turns, each {"shell": "COMMAND"} (the model asks the
agent's own shell tool to run COMMAND: Claude's "Bash", Codex's
exec_command / shell_command / shell, whichever its request offers,
Gemini's run_shell_command) or {"text": "WORDS"} (a final answer). The
turn answered is the number of tool results already in the request's
conversation, so retries and side requests do not shift the script; past
the end the last text turn (or "done") is repeated. A request that offers
no shell tool (Claude's title / topic / quota requests, Gemini's
next-speaker and routing checks) gets plain text ("side_text" of a dict
script, else "ok"), or, when it asks for JSON, a small JSON object.

A script may also be a dict {"turns": [...], "side_text": "..."}.
The log (JSON lines, one request each) is what requests() reads, so a test
can read it after a namespaced server ends.
"""
import gzip
import json
import os
import re
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SHELL_TOOLS_CLAUDE = ("Bash",)
SHELL_TOOLS_CODEX = ("exec_command", "shell_command", "shell",
                     "container.exec", "local_shell", "exec")
# codex's "code mode" (its default for its newest models) offers one custom
# tool, "exec", that runs JavaScript in which the real tools are
# tools.exec_command({cmd}) and so on
CODEX_CODE_MODE_JS = (
    "const r = await tools.exec_command({cmd: %s, yield_time_ms: 30000});\n"
    "text(typeof r === 'string' ? r : (r.output || '') + "
    "(r.exit_code === undefined ? '' : '\\n[exit ' + r.exit_code + ']'));\n")
SHELL_TOOLS_GEMINI = ("run_shell_command",)


def _load_script(script):
    if isinstance(script, str):
        with open(script) as f:
            script = json.load(f)
    if isinstance(script, dict):
        return list(script.get("turns") or []), script.get("side_text", "ok")
    return list(script or []), "ok"


def _decode_body(raw, headers):
    enc = (headers.get("Content-Encoding") or "").lower().strip()
    try:
        if enc == "gzip":
            raw = gzip.decompress(raw)
        elif enc == "deflate":
            raw = zlib.decompress(raw)
        elif enc == "zstd":
            try:
                from compression import zstd          # Python 3.14
                raw = zstd.decompress(raw)
            except ImportError:
                pass
    except Exception:
        pass
    text = raw.decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


def _texts(v):
    """Every string inside v (a tool result's content in any shape)."""
    out = []
    if isinstance(v, str):
        out.append(v)
    elif isinstance(v, list):
        for x in v:
            out.extend(_texts(x))
    elif isinstance(v, dict):
        for k, x in v.items():
            if k in ("type", "id", "tool_use_id", "call_id", "name"):
                continue
            out.extend(_texts(x))
    return out


def tool_results(kind, body):
    """The tool results in one request's conversation, each as text."""
    res = []
    if not isinstance(body, dict):
        return res
    if kind == "anthropic":
        for m in body.get("messages") or []:
            c = m.get("content")
            if isinstance(c, list):
                for b in c:
                    if isinstance(b, dict) and b.get("type") == "tool_result":
                        res.append("\n".join(_texts(b.get("content"))))
    elif kind == "openai":
        items = body.get("input")
        if isinstance(items, list):
            for it in items:
                if isinstance(it, dict) and str(it.get("type", "")).endswith(
                        "_call_output"):
                    res.append("\n".join(_texts(it.get("output"))))
    elif kind == "gemini":
        for m in body.get("contents") or []:
            for p in m.get("parts") or []:
                if isinstance(p, dict) and "functionResponse" in p:
                    res.append("\n".join(_texts(
                        p["functionResponse"].get("response"))))
    return res


def _tool_names(kind, body):
    names = []
    if not isinstance(body, dict):
        return names
    if kind == "anthropic":
        for t in body.get("tools") or []:
            if isinstance(t, dict):
                names.append(t.get("name"))
    elif kind == "openai":
        # plain "tools", or (codex's "responses lite") an input item
        # {"type": "additional_tools", "tools": [namespaces of tools]}
        def walk(ts):
            for t in ts or []:
                if isinstance(t, dict):
                    if t.get("type") == "namespace":
                        walk(t.get("tools"))
                    else:
                        names.append(t.get("name") or t.get("type"))
        walk(body.get("tools"))
        for it in body.get("input") or []:
            if isinstance(it, dict) and it.get("type") == "additional_tools":
                walk(it.get("tools"))
    elif kind == "gemini":
        for t in body.get("tools") or []:
            for f in (t or {}).get("functionDeclarations") or []:
                names.append(f.get("name"))
    return [n for n in names if n]


class _Ids:
    def __init__(self):
        self.n = 0
        self.lock = threading.Lock()

    def next(self, prefix):
        with self.lock:
            self.n += 1
            return "%s_%06d%s" % (prefix, self.n, os.urandom(4).hex())


def _sse(events):
    out = []
    for name, data in events:
        if name:
            out.append("event: %s\n" % name)
        out.append("data: %s\n\n" % json.dumps(data))
    return "".join(out).encode()


class ModelAPI:
    """The mock server; see the module's docstring."""

    def __init__(self, script, log_path=None):
        self.turns, self.side_text = _load_script(script)
        self.log_path = log_path
        self.server = None
        self.thread = None
        self.lock = threading.Lock()
        self.mem = []
        self.ids = _Ids()

    # --- the script ----------------------------------------------------
    def _pick(self, kind, body):
        """(turn dict, reason): the scripted reply for this request."""
        names = _tool_names(kind, body)
        shell = {"anthropic": SHELL_TOOLS_CLAUDE, "openai": SHELL_TOOLS_CODEX,
                 "gemini": SHELL_TOOLS_GEMINI}[kind]
        if not any(n in shell for n in names):
            return {"text": self.side_text, "side": True}, "side"
        n = len(tool_results(kind, body))
        if n < len(self.turns):
            return self.turns[n], "turn %d" % n
        last = [t for t in self.turns if "text" in t]
        return (last[-1] if last else {"text": "done"}), "past end"

    # --- logging -------------------------------------------------------
    def _log(self, rec):
        with self.lock:
            self.mem.append(rec)
            if self.log_path:
                with open(self.log_path, "a") as f:
                    f.write(json.dumps(rec) + "\n")

    def requests(self):
        """Every request so far (from the log file when there is one)."""
        if self.log_path and os.path.exists(self.log_path):
            with open(self.log_path) as f:
                return [json.loads(l) for l in f if l.strip()]
        with self.lock:
            return list(self.mem)

    def tool_outputs(self):
        """The text of every tool result the agents sent, deduplicated in
        order (each later request repeats the earlier ones)."""
        seen, out = set(), []
        for r in self.requests():
            for t in r.get("tool_results") or []:
                if t not in seen:
                    seen.add(t)
                    out.append(t)
        return out

    # --- replies -------------------------------------------------------
    def anthropic(self, body, stream):
        turn, why = self._pick("anthropic", body)
        model = body.get("model", "claude-mock") if isinstance(
            body, dict) else "claude-mock"
        mid = self.ids.next("msg")
        usage = {"input_tokens": 10, "output_tokens": 5,
                 "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}
        if "shell" in turn:
            block = {"type": "tool_use", "id": self.ids.next("toolu"),
                     "name": "Bash",
                     "input": {"command": turn["shell"],
                               "description": "Run the scripted command"}}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": turn["text"]}
            stop = "end_turn"
        if not stream:
            return "application/json", json.dumps({
                "id": mid, "type": "message", "role": "assistant",
                "model": model, "content": [block], "stop_reason": stop,
                "stop_sequence": None, "usage": usage}).encode(), why
        if block["type"] == "tool_use":
            start = dict(block, input={})
            delta = {"type": "input_json_delta",
                     "partial_json": json.dumps(block["input"])}
        else:
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        ev = [("message_start", {"type": "message_start", "message": {
                  "id": mid, "type": "message", "role": "assistant",
                  "model": model, "content": [], "stop_reason": None,
                  "stop_sequence": None,
                  "usage": dict(usage, output_tokens=1)}}),
              ("content_block_start", {"type": "content_block_start",
                                       "index": 0, "content_block": start}),
              ("ping", {"type": "ping"}),
              ("content_block_delta", {"type": "content_block_delta",
                                       "index": 0, "delta": delta}),
              ("content_block_stop", {"type": "content_block_stop",
                                      "index": 0}),
              ("message_delta", {"type": "message_delta",
                                 "delta": {"stop_reason": stop,
                                           "stop_sequence": None},
                                 "usage": {"output_tokens": 5}}),
              ("message_stop", {"type": "message_stop"})]
        return "text/event-stream", _sse(ev), why

    def openai(self, body):
        turn, why = self._pick("openai", body)
        names = _tool_names("openai", body)
        rid = self.ids.next("resp")
        model = body.get("model", "gpt-mock") if isinstance(
            body, dict) else "gpt-mock"
        if "shell" in turn:
            cmd = turn["shell"]
            name = next(n for n in SHELL_TOOLS_CODEX if n in names) \
                if any(n in SHELL_TOOLS_CODEX for n in names) else "shell"
            if name == "exec_command":
                args = {"cmd": cmd}
            elif name == "shell_command":
                args = {"command": cmd}
            else:
                args = {"command": ["bash", "-lc", cmd]}
            item = {"type": "function_call", "id": self.ids.next("fc"),
                    "call_id": self.ids.next("call"), "name": name,
                    "arguments": json.dumps(args), "status": "completed"}
            if name == "exec":
                ev = self._codex_code_mode(cmd)
                item = ev[-1][1]["item"]
            else:
                ev = None
            ev = ev or [("response.output_item.added", {
                      "type": "response.output_item.added", "output_index": 0,
                      "item": dict(item, arguments="",
                                   status="in_progress")}),
                  ("response.function_call_arguments.delta", {
                      "type": "response.function_call_arguments.delta",
                      "item_id": item["id"], "output_index": 0,
                      "delta": item["arguments"]}),
                  ("response.function_call_arguments.done", {
                      "type": "response.function_call_arguments.done",
                      "item_id": item["id"], "output_index": 0,
                      "arguments": item["arguments"]}),
                  ("response.output_item.done", {
                      "type": "response.output_item.done", "output_index": 0,
                      "item": item})]
        else:
            text = turn["text"]
            item = {"type": "message", "id": self.ids.next("msg"),
                    "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text,
                                 "annotations": []}]}
            part0 = {"type": "output_text", "text": "", "annotations": []}
            ev = [("response.output_item.added", {
                      "type": "response.output_item.added", "output_index": 0,
                      "item": dict(item, content=[], status="in_progress")}),
                  ("response.content_part.added", {
                      "type": "response.content_part.added",
                      "item_id": item["id"], "output_index": 0,
                      "content_index": 0, "part": part0}),
                  ("response.output_text.delta", {
                      "type": "response.output_text.delta",
                      "item_id": item["id"], "output_index": 0,
                      "content_index": 0, "delta": text}),
                  ("response.output_text.done", {
                      "type": "response.output_text.done",
                      "item_id": item["id"], "output_index": 0,
                      "content_index": 0, "text": text}),
                  ("response.content_part.done", {
                      "type": "response.content_part.done",
                      "item_id": item["id"], "output_index": 0,
                      "content_index": 0, "part": item["content"][0]}),
                  ("response.output_item.done", {
                      "type": "response.output_item.done", "output_index": 0,
                      "item": item})]
        resp = {"id": rid, "object": "response", "created_at": int(time.time()),
                "model": model, "status": "in_progress", "output": []}
        done = dict(resp, status="completed", output=[item], usage={
            "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15})
        ev = [("response.created", {"type": "response.created",
                                    "response": resp}),
              ("response.in_progress", {"type": "response.in_progress",
                                        "response": resp})] + ev + [
              ("response.completed", {"type": "response.completed",
                                      "response": done})]
        for i, (n, d) in enumerate(ev):
            d["sequence_number"] = i
        return "text/event-stream", _sse(ev), why

    def _codex_code_mode(self, cmd):
        js = CODEX_CODE_MODE_JS % json.dumps(cmd)
        item = {"type": "custom_tool_call", "id": self.ids.next("ctc"),
                "call_id": self.ids.next("call"), "name": "exec",
                "input": js, "status": "completed"}
        return [("response.output_item.added", {
                    "type": "response.output_item.added", "output_index": 0,
                    "item": dict(item, input="", status="in_progress")}),
                ("response.custom_tool_call_input.delta", {
                    "type": "response.custom_tool_call_input.delta",
                    "item_id": item["id"], "output_index": 0, "delta": js}),
                ("response.custom_tool_call_input.done", {
                    "type": "response.custom_tool_call_input.done",
                    "item_id": item["id"], "output_index": 0, "input": js}),
                ("response.output_item.done", {
                    "type": "response.output_item.done", "output_index": 0,
                    "item": item})]

    def gemini(self, body, model, stream):
        turn, why = self._pick("gemini", body)
        cfg = (body.get("generationConfig") or body.get("config") or {}) \
            if isinstance(body, dict) else {}
        if "shell" in turn:
            part = {"functionCall": {"name": "run_shell_command", "args": {
                "command": turn["shell"],
                "description": "Run the scripted command"}}}
        elif turn.get("side") and "json" in str(
                cfg.get("responseMimeType", "")).lower():
            # next-speaker check, model routing, loop detection...
            obj = {"reasoning": "scripted", "next_speaker": "user",
                   "model_choice": "flash", "complexity_score": 1,
                   "unproductive_state_confidence": 0.0,
                   "unproductive_state_analysis": "none"}
            sch = cfg.get("responseJsonSchema") or cfg.get(
                "responseSchema") or {}
            for k, v in (sch.get("properties") or {}).items():
                if k not in obj:
                    t = str((v or {}).get("type", "string")).lower()
                    obj[k] = {"number": 1, "integer": 1, "boolean": False,
                              "array": [], "object": {}}.get(t, "scripted")
                    if (v or {}).get("enum"):
                        obj[k] = v["enum"][0]
            part = {"text": json.dumps(obj)}
        else:
            part = {"text": turn["text"]}
        reply = {"candidates": [{"content": {"role": "model",
                                             "parts": [part]},
                                 "finishReason": "STOP", "index": 0}],
                 "usageMetadata": {"promptTokenCount": 10,
                                   "candidatesTokenCount": 5,
                                   "totalTokenCount": 15},
                 "modelVersion": model,
                 "responseId": self.ids.next("gem")}
        if stream:
            return "text/event-stream", _sse([(None, reply)]), why
        return "application/json", json.dumps(reply).encode(), why

    # --- the server ----------------------------------------------------
    def handle(self, method, path, headers, body):
        """(status, content type, bytes, reason, kind)."""
        p = path.split("?", 1)[0]
        if method == "POST" and p.endswith("/v1/messages/count_tokens"):
            return 200, "application/json", b'{"input_tokens": 10}', \
                "count", "anthropic"
        if method == "POST" and p.endswith("/v1/messages"):
            stream = isinstance(body, dict) and bool(body.get("stream"))
            ct, data, why = self.anthropic(body if isinstance(body, dict)
                                           else {}, stream)
            return 200, ct, data, why, "anthropic"
        if method == "POST" and p.endswith("/responses"):
            ct, data, why = self.openai(body if isinstance(body, dict)
                                        else {})
            return 200, ct, data, why, "openai"
        m = re.search(r"/models/([^/:]+):(\w+)$", p)
        if m and method == "POST":
            model, verb = m.group(1), m.group(2)
            b = body if isinstance(body, dict) else {}
            if verb == "countTokens":
                return 200, "application/json", b'{"totalTokens": 10}', \
                    "count", "gemini"
            if verb in ("streamGenerateContent", "generateContent"):
                ct, data, why = self.gemini(
                    b, model, verb == "streamGenerateContent")
                return 200, ct, data, why, "gemini"
            if verb in ("embedContent", "batchEmbedContents"):
                return 200, "application/json", json.dumps(
                    {"embedding": {"values": [0.0] * 8}}).encode(), \
                    "embed", "gemini"
        if method == "GET" and re.search(r"/v1/models/?$", p):
            return 200, "application/json", json.dumps({
                "object": "list", "data": [
                    {"id": "gpt-5", "object": "model", "owned_by": "mock"},
                    {"id": "claude-sonnet-4-5", "type": "model",
                     "display_name": "mock"}],
                "models": [], "has_more": False}).encode(), "models", "other"
        if method == "GET":
            return 404, "application/json", \
                b'{"error": {"type": "not_found", "message": "mock"}}', \
                "unknown", "other"
        return 200, "application/json", b"{}", "unknown", "other"

    def start(self, host="127.0.0.1", port=0):
        api = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def _do(self):
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                if not n and "chunked" in (
                        self.headers.get("Transfer-Encoding") or ""):
                    raw = self._chunked()
                body = _decode_body(raw, self.headers) if raw else None
                try:
                    st, ct, data, why, kind = api.handle(
                        self.command, self.path, self.headers, body)
                except Exception as e:      # never leave a client hanging
                    st, ct, data, why, kind = 500, "application/json", \
                        json.dumps({"error": repr(e)}).encode(), "error", \
                        "other"
                api._log({"time": time.time(), "method": self.command,
                          "path": self.path,
                          "headers": {k.lower(): v for k, v in
                                      self.headers.items()},
                          "body": body, "kind": kind, "reply": why,
                          "status": st,
                          "tool_results": tool_results(kind, body)})
                self.send_response(st)
                self.send_header("Content-Type", ct)
                self.send_header("Content-Length", str(len(data)))
                if ct == "text/event-stream":
                    self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                self.wfile.write(data)

            def _chunked(self):
                out = b""
                while True:
                    line = self.rfile.readline().strip()
                    size = int(line.split(b";")[0] or b"0", 16)
                    if not size:
                        self.rfile.readline()
                        return out
                    out += self.rfile.read(size)
                    self.rfile.readline()

            do_POST = do_GET = do_PUT = do_DELETE = do_PATCH = _do

            def do_HEAD(self):
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        ThreadingHTTPServer.daemon_threads = True
        self.server = ThreadingHTTPServer((host, port), H)
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       daemon=True)
        self.thread.start()
        return self.server.server_address[1]

    def stop(self):
        if self.server:
            self.server.shutdown()
            self.server.server_close()
            self.server = None


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(prog="modelapi.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--host", default="0.0.0.0")
    s.add_argument("--port", type=int, default=0)
    s.add_argument("--script", required=True)
    s.add_argument("--log", required=True)
    s.add_argument("--port-file", help="write the bound port here")
    a = ap.parse_args(argv)
    api = ModelAPI(a.script, a.log)
    port = api.start(a.host, a.port)
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write("%d\n" % port)
        os.rename(a.port_file + ".tmp", a.port_file)
    print("modelapi listening on %s:%d" % (a.host, port), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    api.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
