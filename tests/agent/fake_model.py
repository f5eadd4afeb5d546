#!/usr/bin/env python3
"""A scripted model server for the agent tests, honest without network.

Serves the three protocols desktop-cli's agent speaks on 127.0.0.1:
  POST /v1/messages          Anthropic Messages
  POST /v1/chat/completions  OpenAI Chat Completions
  POST /v1/responses         OpenAI Responses

Every request is validated against the official SDK types (PyPI `anthropic`, `openai`):
the request TypedDicts through pydantic with every nested iterable consumed (so images and
tool results are really checked), keys the types do not define refused at any depth, plus
the protocol rules
the real APIs enforce (each tool call answered by a result with its id). A bad request gets
HTTP 400 and is recorded with its errors. Each answer is the next scripted turn, rendered
in the protocol's format and validated as the SDK's response model before it is sent.

Usage: fake_model.py SCRIPT.json RECORD.jsonl PORT_FILE [--api-key KEY]

A script is a JSON list of turns:
  {"calls": [{"name": "click", "args": {...}} | {"name": "click", "raw": "{bad json"}],
   "text": "...", "stop": "end_turn|tool_use|max_tokens|refusal",
   "status": 429, "retry_after": 0, "delay": 1.5}
{"json": {...}, "fence": true} sends that object as the reply text (the JSON step contract).
A string argument "$id:REGEX" becomes the id of the first line of the latest screen tree
the agent sent that matches REGEX (the tree lines read `ID role "name" ...`).
"""

import collections.abc
import json
import re
import sys
import time
import types
import typing
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pydantic
import typing_extensions as tx
from anthropic.types import Message, message_create_params
from openai.types.chat import ChatCompletion, completion_create_params
from openai.types.responses import Response, response_create_params

REQUESTS = {
    "/v1/messages": message_create_params.MessageCreateParamsNonStreaming,
    "/v1/chat/completions": completion_create_params.CompletionCreateParamsNonStreaming,
    "/v1/responses": response_create_params.ResponseCreateParamsNonStreaming,
}
ADAPTERS = {path: pydantic.TypeAdapter(t) for path, t in REQUESTS.items()}


def consume(v):
    """Walks a validated value, turning lazy validators of iterables into lists: this is
    when their items are validated."""
    if isinstance(v, dict):
        return {k: consume(x) for k, x in v.items()}
    if isinstance(v, (str, bytes, int, float, bool)) or v is None:
        return v
    if isinstance(v, (list, tuple)) or hasattr(v, "__iter__"):
        return [consume(x) for x in v]
    return v


WRAPPERS = {tx.Required, tx.NotRequired, tx.Annotated, tx.ReadOnly, typing.Required, typing.NotRequired, typing.Annotated}
SEQUENCES = {list, tuple, collections.abc.Iterable, collections.abc.Sequence}
SCALARS = {str: str, int: int, float: (int, float), bool: bool}


def is_model(tp):
    return isinstance(tp, type) and issubclass(tp, pydantic.BaseModel)


def fits(value, tp):
    """Whether a value has the shape of a type at all (which union member to hold it to)."""
    while tx.get_origin(tp) in WRAPPERS:
        tp = tx.get_args(tp)[0]
    origin = tx.get_origin(tp)
    if tx.is_typeddict(tp) or origin in (dict, collections.abc.Mapping) or is_model(tp):
        return isinstance(value, dict)
    if origin in SEQUENCES:
        return isinstance(value, list)
    if origin in (typing.Literal, tx.Literal):
        return value in tx.get_args(tp)
    if tp in SCALARS:
        return isinstance(value, SCALARS[tp])
    if tp is type(None):
        return value is None
    return True


def unknown_keys(value, tp, path="body"):
    """Keys the SDK's TypedDicts do not define, at any depth (pydantic lets them through, the
    real APIs refuse them). A union is satisfied by any member of the value's shape without
    unknown keys."""
    while tx.get_origin(tp) in WRAPPERS:
        tp = tx.get_args(tp)[0]
    origin = tx.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        best = None
        for member in tx.get_args(tp):
            if not fits(value, member):
                continue
            errs = unknown_keys(value, member, path)
            if not errs:
                return []
            if best is None or len(errs) < len(best):
                best = errs
        return best or []
    if tx.is_typeddict(tp) or is_model(tp):
        if not isinstance(value, dict):
            return []
        if is_model(tp):
            hints = {(f.alias or k): f.annotation for k, f in tp.model_fields.items()}
        else:
            hints = tx.get_type_hints(tp, include_extras=True)
        errs = [f"{path}.{k}: not a field of {tp.__name__}" for k in value if k not in hints]
        for k, v in value.items():
            if k in hints:
                errs += unknown_keys(v, hints[k], f"{path}.{k}")
        return errs
    if origin in SEQUENCES and isinstance(value, list):
        args = tx.get_args(tp)
        return [e for i, x in enumerate(value) for e in (unknown_keys(x, args[0], f"{path}.{i}") if args else [])]
    if origin in (typing.Literal, tx.Literal) and value not in tx.get_args(tp):
        # Also what tells union members apart ("type", "role").
        return [f"{path}: {value!r} is not one of {tx.get_args(tp)}"]
    return []


def validate_request(path, body):
    errors = unknown_keys(body, REQUESTS[path])
    try:
        consume(ADAPTERS[path].validate_python(body))
    except pydantic.ValidationError as e:
        errors += [f"{'.'.join(map(str, x['loc']))}: {x['msg']}" for x in e.errors()[:20]]
    errors += protocol_rules(path, body)
    return errors


def protocol_rules(path, body):
    """What the real APIs refuse beyond the types."""
    errs = []
    if path == "/v1/messages":
        msgs = body.get("messages", [])
        for i, m in enumerate(msgs):
            if m["role"] != "assistant" or not isinstance(m.get("content"), list):
                continue
            uses = [b["id"] for b in m["content"] if b.get("type") == "tool_use"]
            if not uses:
                continue
            nxt = msgs[i + 1]["content"] if i + 1 < len(msgs) else []
            got = [b.get("tool_use_id") for b in nxt if isinstance(b, dict) and b.get("type") == "tool_result"]
            if got[: len(uses)] != uses:
                errs.append(f"messages.{i}: tool_use ids {uses} not answered first by tool_result ids (got {got})")
        for t in body.get("tools", []):
            if t.get("input_schema", {}).get("type") != "object":
                errs.append(f"tool {t.get('name')}: input_schema.type must be object")
    elif path == "/v1/chat/completions":
        msgs = body.get("messages", [])
        for i, m in enumerate(msgs):
            calls = [c["id"] for c in m.get("tool_calls") or []]
            if m.get("role") != "assistant" or not calls:
                continue
            got = [x.get("tool_call_id") for x in msgs[i + 1 : i + 1 + len(calls)] if x.get("role") == "tool"]
            if sorted(got) != sorted(calls):
                errs.append(f"messages.{i}: tool_calls {calls} not followed by tool messages (got {got})")
        errs += strict_rules([t["function"] for t in body.get("tools", [])], "parameters")
    else:
        items = body.get("input", [])
        calls = [x["call_id"] for x in items if isinstance(x, dict) and x.get("type") == "function_call"]
        outs = [x["call_id"] for x in items if isinstance(x, dict) and x.get("type") == "function_call_output"]
        if sorted(calls) != sorted(outs):
            errs.append(f"function_call ids {calls} and function_call_output ids {outs} differ")
        errs += strict_rules(body.get("tools", []), "parameters")
    return errs


def strict_rules(tools, key):
    """OpenAI strict mode: every property required, no additional properties."""
    errs = []
    for t in tools:
        if not t.get("strict"):
            continue
        s = t.get(key, {})
        if s.get("additionalProperties") is not False:
            errs.append(f"tool {t.get('name')}: strict needs additionalProperties false")
        if sorted(s.get("required", [])) != sorted(s.get("properties", {}).keys()):
            errs.append(f"tool {t.get('name')}: strict needs every property required")
    return errs


def texts(v):
    """Every string inside a request body."""
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from texts(x)
    elif isinstance(v, list):
        for x in v:
            yield from texts(x)


def resolve(args, body):
    """Replaces "$id:REGEX" strings with ids from the latest screen tree in the request."""
    screens = [t for t in texts(body) if "<screen_data" in t and "Working window" in t]
    tree = screens[-1].split("Working window", 1)[1] if screens else ""

    def one(v):
        if isinstance(v, str) and v.startswith("$id:"):
            pattern = re.compile(v[4:])
            for line in tree.splitlines():
                m = re.match(r"\s*(\d+) ", line)
                if m and pattern.search(line):
                    return int(m.group(1))
            raise LookupError(f"no tree line matches {v[4:]!r}")
        if isinstance(v, dict):
            return {k: one(x) for k, x in v.items()}
        if isinstance(v, list):
            return [one(x) for x in v]
        return v

    return one(args)


def render(path, turn, body, n):
    calls = []
    for i, c in enumerate(turn.get("calls", [])):
        raw = c.get("raw")
        args = None if raw is not None else resolve(c.get("args", {}), body)
        calls.append((f"call_{n}_{i}", c["name"], args, raw))
    text = turn.get("text")
    if "json" in turn:  # a JSON-contract reply, its "$id:" strings resolved like arguments
        text = json.dumps(resolve(turn["json"], body))
        if turn.get("fence"):
            text = f"```json\n{text}\n```"
    stop = turn.get("stop") or ("tool_use" if calls else "end_turn")
    usage_in, usage_out = turn.get("input_tokens", 1000), turn.get("output_tokens", 50)
    model = body.get("model", "fake")
    if path == "/v1/messages":
        content = [{"type": "text", "text": text}] if text else []
        content += [{"type": "tool_use", "id": i, "name": name, "input": a if a is not None else {}} for i, name, a, _ in calls]
        reply = {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": model, "content": content,
                 "stop_reason": stop, "stop_sequence": None,
                 "usage": {"input_tokens": usage_in, "output_tokens": usage_out}}
        Message.model_validate(reply)
    elif path == "/v1/chat/completions":
        finish = {"tool_use": "tool_calls", "end_turn": "stop", "max_tokens": "length", "refusal": "stop"}[stop]
        msg = {"role": "assistant", "content": None if stop == "refusal" else text,
               "refusal": text if stop == "refusal" else None}
        if calls:
            msg["tool_calls"] = [{"id": i, "type": "function", "function": {"name": name, "arguments": raw if raw is not None else json.dumps(a)}}
                                 for i, name, a, raw in calls]
        reply = {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": int(time.time()), "model": model,
                 "choices": [{"index": 0, "message": msg, "finish_reason": finish, "logprobs": None}],
                 "usage": {"prompt_tokens": usage_in, "completion_tokens": usage_out, "total_tokens": usage_in + usage_out}}
        ChatCompletion.model_validate(reply)
    else:
        output = []
        if text:
            part = ({"type": "refusal", "refusal": text} if stop == "refusal"
                    else {"type": "output_text", "text": text, "annotations": []})
            output.append({"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed", "content": [part]})
        output += [{"type": "function_call", "id": f"fc_{i}", "call_id": i, "name": name,
                    "arguments": raw if raw is not None else json.dumps(a), "status": "completed"} for i, name, a, raw in calls]
        reply = {"id": f"resp_{n}", "object": "response", "created_at": time.time(), "model": model, "output": output,
                 "status": "incomplete" if stop == "max_tokens" else "completed",
                 "incomplete_details": {"reason": "max_output_tokens"} if stop == "max_tokens" else None,
                 "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
                 "usage": {"input_tokens": usage_in, "output_tokens": usage_out, "total_tokens": usage_in + usage_out,
                           "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}}
        Response.model_validate(reply)
    return reply


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def send(self, status, obj, headers=None):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        srv = self.server
        body_bytes = self.rfile.read(int(self.headers.get("content-length", 0)))
        entry = {"path": self.path, "errors": []}
        try:
            body = json.loads(body_bytes)
        except ValueError as e:
            body, entry["errors"] = None, [f"not JSON: {e}"]
        entry["body"] = body
        if self.path not in REQUESTS:
            entry["errors"].append(f"no such path {self.path}")
        if srv.api_key is not None:
            sent = self.headers.get("x-api-key") if self.path == "/v1/messages" else (self.headers.get("authorization") or "").removeprefix("Bearer ")
            entry["auth_ok"] = sent == srv.api_key
            if not entry["auth_ok"]:
                entry["errors"].append("wrong or missing API key")
        if self.path == "/v1/messages" and not self.headers.get("anthropic-version"):
            entry["errors"].append("missing anthropic-version header")
        if body is not None and self.path in REQUESTS:
            entry["errors"] += validate_request(self.path, body)
        with srv.lock:
            turn = srv.script[srv.next] if srv.next < len(srv.script) else {"calls": [{"name": "done", "args": {"success": False, "summary": "script ran out"}}]}
            srv.next += 1
            n = srv.next
        entry["turn"] = n
        if entry["errors"]:
            srv.record(entry)
            return self.send(400, {"type": "error", "error": {"type": "invalid_request_error", "message": "; ".join(entry["errors"])}})
        if turn.get("delay"):
            time.sleep(turn["delay"])
        if turn.get("status"):
            entry["answered"] = turn["status"]
            srv.record(entry)
            return self.send(turn["status"], {"type": "error", "error": {"type": "rate_limit_error", "message": "scripted"}},
                             {"retry-after": str(turn.get("retry_after", 0))})
        try:
            reply = render(self.path, turn, body, n)
        except (LookupError, pydantic.ValidationError) as e:
            entry["errors"].append(f"scripted reply: {e}")
            srv.record(entry)
            return self.send(500, {"type": "error", "error": {"type": "api_error", "message": str(e)}})
        entry["reply"] = reply
        srv.record(entry)
        self.send(200, reply)


def main():
    script_path, record_path, port_file = sys.argv[1:4]
    api_key = sys.argv[sys.argv.index("--api-key") + 1] if "--api-key" in sys.argv else None
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.script = json.load(open(script_path))
    srv.next = 0
    srv.api_key = api_key
    import threading

    srv.lock = threading.Lock()
    out = open(record_path, "a")

    def record(entry):
        with srv.lock:
            out.write(json.dumps(entry) + "\n")
            out.flush()

    srv.record = record
    with open(port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os

    os.rename(port_file + ".tmp", port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
