#!/usr/bin/env python3
# llmjson example test: a scripted OpenAI-compatible /chat/completions server on 127.0.0.1
# SPDX-License-Identifier: MIT
"""Serves scripted responses to POST .../chat/completions, one per request, in order.

Usage: fake_openai.py SCRIPT.json [--timeout SECONDS]

SCRIPT.json is a list of steps, one per expected request:
  {"status": 200, "json": {...}}     the body is this value, as JSON
  {"status": 200, "raw": "text"}     the body is this text, as is
  {"drop": true}                     read the request, then close the connection with no response
  {"sse": ["piece", ...], "interval": 0.02}
                                     a 200 text/event-stream response, written piece by piece
                                     (each piece as is: events, comments, CRLF, a line split
                                     across pieces), `interval` seconds apart (default 0.02);
                                     stops writing as soon as the client has closed the connection
Either kind of 200 step may add "usage": {"prompt_tokens": N, "completion_tokens": N, ...}, sent
as OpenAI sends it: a "json" body gets it as its "usage" member; an "sse" response gets it in a
chunk of its own whose "choices" is empty, written just before the "data: [DONE]" piece (or last),
and only when the request asked for it ("stream_options": {"include_usage": true}).

Binds 127.0.0.1 on an ephemeral port (port 0) and never contacts any address. Writes JSON lines
to stdout, flushed: first {"port": N}; then one line per request received (method, path, the
Authorization and Content-Type headers, the body parsed as JSON, or as text if it is not); after
each "sse" response {"stream": {"sent": BYTES, "total": BYTES, "pieces_sent": N, "pieces": N,
"client_closed": BOOL, "usage_chunk": BOOL}}: the bytes written before the client closed the
connection (or all of them), whether it closed it before the last piece, and whether the pieces
included a usage chunk; last {"done": true, "requests": N}. Exits after GET /__quit, after len(script) + 4 requests (those
past the script get a 500), or after --timeout seconds (default 60), whichever comes first.
"""
import argparse
import http.server
import json
import select
import socket
import sys
import time


def client_closed(sock):
    """Whether the peer has closed the connection: readable, and a peek reads nothing."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except OSError:  # reset by the peer
        return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("script")
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args()
    with open(args.script, encoding="utf-8") as f:
        steps = json.load(f)

    state = {"requests": 0, "quit": False}

    def emit(obj):
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):  # keep stderr quiet
            pass

        def reply(self, status, body, content_type="application/json"):
            data = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def stream(self, step, body):
            # HTTP/1.0 (the handler's default): the body ends when the connection closes.
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            self.wfile.flush()
            texts = list(step["sse"])
            options = body.get("stream_options") if isinstance(body, dict) else None
            usage_chunk = "usage" in step and isinstance(options, dict) and \
                options.get("include_usage") is True
            if usage_chunk:
                chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [],
                         "usage": step["usage"]}
                at = next((i for i, t in enumerate(texts) if t.startswith("data: [DONE]")),
                          len(texts))
                texts.insert(at, "data: " + json.dumps(chunk) + "\n\n")
            pieces = [p.encode("utf-8") for p in texts]
            interval = step.get("interval", 0.02)
            sent = count = 0
            closed = False
            for i, piece in enumerate(pieces):
                if i > 0:
                    time.sleep(interval)
                if client_closed(self.connection):
                    closed = True
                    break
                try:
                    self.wfile.write(piece)
                    self.wfile.flush()
                except OSError:  # broken pipe, reset
                    closed = True
                    break
                sent += len(piece)
                count += 1
            emit({"stream": {"sent": sent, "total": sum(len(p) for p in pieces), "pieces_sent": count,
                             "pieces": len(pieces), "client_closed": closed,
                             "usage_chunk": usage_chunk}})
            self.close_connection = True

        def do_GET(self):
            if self.path == "/__quit":
                state["quit"] = True
                self.reply(200, "{}")
            else:
                self.reply(404, json.dumps({"error": {"message": "not found"}}))

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode("utf-8", "replace")
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw
            n = state["requests"]
            state["requests"] = n + 1
            emit({"method": "POST", "path": self.path,
                  "authorization": self.headers.get("Authorization"),
                  "content_type": self.headers.get("Content-Type"), "body": body})
            if not self.path.endswith("/chat/completions"):
                self.reply(404, json.dumps({"error": {"message": "unknown path " + self.path}}))
                return
            if n >= len(steps):
                self.reply(500, json.dumps({"error": {"message": "the script has no response left"}}))
                return
            step = steps[n]
            if step.get("drop"):
                self.close_connection = True  # no status line, no headers, no body
                return
            if "sse" in step:
                self.stream(step, body)
            elif "raw" in step:
                self.reply(step.get("status", 200), step["raw"], "text/plain")
            else:
                reply = step["json"]
                if "usage" in step:
                    reply = dict(reply, usage=step["usage"])
                self.reply(step.get("status", 200), json.dumps(reply))

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    emit({"port": server.server_address[1]})
    deadline = time.monotonic() + args.timeout
    most = len(steps) + 4
    while not state["quit"] and state["requests"] < most:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        server.timeout = left
        server.handle_request()
    server.server_close()
    emit({"done": True, "requests": state["requests"]})


if __name__ == "__main__":
    main()
