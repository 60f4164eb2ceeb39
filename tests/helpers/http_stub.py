"""Stub OpenAI-compatible servers on 127.0.0.1 for the HTTP backend's fan-out tests.

`StubServer` answers `/v1/chat/completions` with SSE from a function of the request body and
can be killed mid-run (in-flight replies are cut off, the port stops listening). `script_answer`
plays a FakeBackend responder (the ingest script) over HTTP: the schema comes from the request's
`response_format`, the prompt from its messages.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from wikic.llm.backend import system, user
from wikic.llm.fake import FakeCall

Answer = Callable[[dict[str, Any]], str]  # request body -> reply content ("HTTP 503" for one)


def sse(content: str) -> bytes:
    events = [
        {"choices": [{"index": 0, "delta": {"content": content}, "finish_reason": None}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2}},
    ]
    return ("".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n").encode()


class StubServer:
    """One stub server: `requests` counts the requests it received, `in_flight` the most at once."""

    def __init__(self, answer: Answer, *, delay_s: float = 0.0) -> None:
        self.answer = answer
        self.delay_s = delay_s
        self.requests = 0
        self.bodies: list[dict[str, Any]] = []  # every request's body, in arrival order
        self.answered = 0
        self.most_in_flight = 0
        self.die_after: int | None = None  # kill the server when this many requests came in
        self._in_flight = 0
        self._lock = threading.Lock()
        self.dead = False
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                with stub._lock:
                    stub.requests += 1
                    stub.bodies.append(body)
                    stub._in_flight += 1
                    stub.most_in_flight = max(stub.most_in_flight, stub._in_flight)
                    if stub.die_after is not None and stub.requests >= stub.die_after:
                        threading.Thread(target=stub.kill, daemon=True).start()
                finished = False

                def finish() -> None:
                    # Leaves the count before the reply is written: once the client has read it,
                    # its next request may arrive before this thread would run a `finally`.
                    nonlocal finished
                    if not finished:
                        finished = True
                        with stub._lock:
                            stub._in_flight -= 1

                try:
                    time.sleep(stub.delay_s)
                    if stub.dead:
                        self.close_connection = True
                        return  # no reply at all: the client sees the connection drop
                    content = stub.answer(body)
                    if content.startswith("HTTP "):
                        finish()
                        self.send_response(int(content[5:8]))
                        self.send_header("Content-Type", "application/json")
                        self.end_headers()
                        self.wfile.write(b'{"error": {"message": "overloaded"}}')
                        return
                    with stub._lock:
                        stub.answered += 1  # before the reply: the client may be done after it
                    finish()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    self.wfile.write(sse(content))
                finally:
                    finish()

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.02,), daemon=True
        )
        self._thread.start()

    def kill(self) -> None:
        """Stop listening and cut off the replies in flight (a crashed server)."""
        if self.dead:
            return
        self.dead = True
        self._server.shutdown()
        self._server.server_close()


def script_answer(respond: Callable[[FakeCall], Any]) -> Answer:
    """An `Answer` that replies what `respond` (a FakeBackend responder) gives for the request."""

    def answer(body: dict[str, Any]) -> str:
        fmt = (body.get("response_format") or {}).get("json_schema") or {}
        schema = None
        if fmt:
            doc = fmt["schema"]
            schema = type(fmt["name"], (), {"model_json_schema": staticmethod(lambda: doc)})
        messages = body["messages"]
        segments = [
            system(m["content"]) if m["role"] == "system" else user(m["content"]) for m in messages
        ]
        call = FakeCall(tuple(segments), schema, body["max_tokens"], body["temperature"])
        reply = respond(call)
        return reply if isinstance(reply, str) else json.dumps(reply)

    return answer
