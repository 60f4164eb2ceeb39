"""HttpBackend against a stub OpenAI-compatible server on 127.0.0.1 (ephemeral port)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import BaseModel, Field

from wikic.config import parse_config
from wikic.errors import BackendError, GenerationError
from wikic.llm.backend import system, user
from wikic.llm.factory import make_backend
from wikic.llm.http_backend import HttpBackend, estimate_tokens

Reply = Callable[[dict[str, Any]], tuple[int, str, list[str]]]  # body -> status, type, parts


class Answer(BaseModel):
    city: str = Field(max_length=20)


class Stub:
    """Records requests; answers each with the next scripted reply."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.replies: list[Reply] = []
        self.delay_s = 0.0

    def reply(self, body: dict[str, Any]) -> tuple[int, str, list[str]]:
        return self.replies.pop(0)(body)


def sse(*pieces: str, finish: str = "stop", usage: dict[str, Any] | None = None) -> Reply:
    def make(_: dict[str, Any]) -> tuple[int, str, list[str]]:
        events = [
            {"choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]}
            for p in pieces
        ]
        events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        if usage is not None:
            events.append({"choices": [], "usage": usage})
        parts = [f"data: {json.dumps(e)}\n\n" for e in events] + ["data: [DONE]\n\n"]
        return 200, "text/event-stream", [": keep-alive\n\n", *parts]

    return make


def plain_json(content: str) -> Reply:
    body = {"choices": [{"message": {"role": "assistant", "content": content}}]}
    return lambda _: (200, "application/json", [json.dumps(body)])


def status(code: int, text: str) -> Reply:
    return lambda _: (code, "application/json", [text])


@pytest.fixture
def stub() -> Iterator[tuple[Stub, str]]:
    state = Stub()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            state.requests.append({"path": self.path, **body})
            state.headers.append(dict(self.headers))
            time.sleep(state.delay_s)
            code, content_type, parts = state.reply(body)
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.end_headers()
            try:
                for part in parts:
                    self.wfile.write(part.encode())
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.block_on_close = False
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


USAGE = {
    "prompt_tokens": 30,
    "completion_tokens": 3,
    "prompt_tokens_details": {"cached_tokens": 24},
}


def test_streams_text_and_reports_usage(stub: tuple[Stub, str]) -> None:
    state, url = stub
    state.replies.append(sse("Can", "berra", ".", usage=USAGE))
    backend = HttpBackend(base_url=url, model="qwen")
    pieces: list[str] = []
    result = backend.generate(
        [system("Be brief. "), system("Cite."), user("Capital of "), user("Australia?")],
        max_tokens=20,
        temperature=0.5,
        seed=7,
        on_text=pieces.append,
    )
    assert result.text == "Canberra." and pieces == ["Can", "berra", "."]
    assert result.finish_reason == "stop" and result.value is None
    s = result.stats
    assert (s.prompt_tokens, s.cached_tokens, s.prefill_tokens, s.generated_tokens) == (
        30,
        24,
        6,
        3,
    )
    request = state.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["messages"] == [
        {"role": "system", "content": "Be brief. Cite."},
        {"role": "user", "content": "Capital of Australia?"},
    ]
    assert (request["model"], request["max_tokens"], request["temperature"], request["seed"]) == (
        "qwen",
        20,
        0.5,
        7,
    )
    assert request["stream"] is True and "response_format" not in request


def test_schema_is_sent_and_reply_validated(stub: tuple[Stub, str]) -> None:
    state, url = stub
    state.replies.append(sse('{"city":', '"Canberra"}'))
    result = HttpBackend(base_url=url, model="m").generate([user("Where?")], schema=Answer)
    assert result.value == Answer(city="Canberra")
    fmt = state.requests[0]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "Answer"
    schema = fmt["json_schema"]["schema"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["city"]["maxLength"] == 20


def test_invalid_json_gets_one_repair(stub: tuple[Stub, str]) -> None:
    state, url = stub
    state.replies += [sse('{"city": "a name far longer than twenty"}'), sse('{"city":"Canberra"}')]
    backend = HttpBackend(base_url=url, model="m")
    result = backend.generate([user("Where?")], schema=Answer)
    assert result.value == Answer(city="Canberra") and result.stats.calls == 2
    assert backend.batch_stats.repairs == 1
    repair = state.requests[1]["messages"][-1]["content"]
    assert repair.startswith("Where?") and "at most 20 characters" in repair


def test_truncated_then_invalid_is_a_generation_error(stub: tuple[Stub, str]) -> None:
    state, url = stub
    state.replies += [sse('{"city":"Canb', finish="length"), sse("not json")]
    with pytest.raises(GenerationError, match="Answer JSON, even after one repair attempt"):
        HttpBackend(base_url=url, model="m").generate([user("Where?")], schema=Answer, max_tokens=5)
    assert "cut off after 5 tokens" in state.requests[1]["messages"][-1]["content"]


def test_length_finish_and_estimated_counts_without_usage(stub: tuple[Stub, str]) -> None:
    state, url = stub
    state.replies.append(sse("one two three", finish="length"))
    result = HttpBackend(base_url=url, model="m").generate([user("Count to ten")], max_tokens=3)
    assert result.finish_reason == "length"
    assert result.stats.prompt_tokens == estimate_tokens("Count to ten")
    assert result.stats.generated_tokens == estimate_tokens("one two three")
    assert result.stats.cached_tokens == 0


def test_plain_json_reply_is_accepted(stub: tuple[Stub, str]) -> None:
    state, url = stub
    state.replies.append(plain_json("Hello"))
    pieces: list[str] = []
    result = HttpBackend(base_url=url, model="m").generate([user("Hi")], on_text=pieces.append)
    assert result.text == "Hello" and pieces == ["Hello"]


def test_api_key_comes_from_the_configured_variable(
    stub: tuple[Stub, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    state, url = stub
    state.replies += [sse("ok"), sse("ok")]
    monkeypatch.setenv("MY_KEY", "s3cret")
    config = parse_config({"backend": "http", "http": {"base_url": url, "api_key_env": "MY_KEY"}})
    backend = make_backend(config, "query", cache_dir=None)
    assert isinstance(backend, HttpBackend) and backend.model_name == "qwen2.5-coder-0.5b"
    backend.generate([user("Hi")])
    assert state.headers[0]["Authorization"] == "Bearer s3cret"
    monkeypatch.delenv("MY_KEY")
    make_backend(config, "query", cache_dir=None).generate([user("Hi")])
    assert "Authorization" not in state.headers[1]


def test_factory_sends_the_role_model_or_http_model(stub: tuple[Stub, str]) -> None:
    _, url = stub
    config = parse_config({"backend": "http", "http": {"base_url": url}, "roles": {"write": "big"}})
    assert make_backend(config, "write", cache_dir=None).model_name == "big"
    assert make_backend(config, "extract", cache_dir=None).model_name == "qwen2.5-coder-0.5b"
    pinned = parse_config({"backend": "http", "http": {"base_url": url, "model": "served"}})
    assert make_backend(pinned, "write", cache_dir=None).model_name == "served"


def test_unreachable_server_names_url_and_config() -> None:
    with socket.socket() as sock:  # a free port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    with pytest.raises(BackendError) as info:
        HttpBackend(base_url=url, model="m").generate([user("Hi")])
    assert url in info.value.message and "backend: http" in info.value.message
    assert info.value.hint and "http.base_url" in info.value.hint


@pytest.mark.parametrize(
    "code,hint",
    [(401, "http.api_key_env"), (404, "ends in /v1"), (500, "server's log")],
)
def test_http_errors_are_explained(stub: tuple[Stub, str], code: int, hint: str) -> None:
    state, url = stub
    state.replies.append(status(code, '{"error": {"message": "nope"}}'))
    with pytest.raises(BackendError, match=f"HTTP {code}.*nope") as info:
        HttpBackend(base_url=url, model="m").generate([user("Hi")])
    assert info.value.hint and hint in info.value.hint


def test_error_event_in_the_stream(stub: tuple[Stub, str]) -> None:
    state, url = stub
    state.replies.append(
        lambda _: (200, "text/event-stream", ['data: {"error": {"message": "model crashed"}}\n\n'])
    )
    with pytest.raises(BackendError, match="reported an error: model crashed"):
        HttpBackend(base_url=url, model="m").generate([user("Hi")])


def test_garbage_reply_is_an_error(stub: tuple[Stub, str]) -> None:
    state, url = stub
    state.replies.append(lambda _: (200, "text/html", ["<html>not an API</html>"]))
    with pytest.raises(BackendError, match="not JSON") as info:
        HttpBackend(base_url=url, model="m").generate([user("Hi")])
    assert info.value.hint and "/v1" in info.value.hint


def test_timeout(stub: tuple[Stub, str]) -> None:
    state, url = stub
    state.delay_s = 1.0
    state.replies.append(sse("late"))
    with pytest.raises(BackendError, match=r"sent nothing for 0\.2 s"):
        HttpBackend(base_url=url, model="m", timeout_s=0.2).generate([user("Hi")])


def test_bad_base_url_and_arguments() -> None:
    with pytest.raises(BackendError, match="http://"):
        HttpBackend(base_url="127.0.0.1:8080", model="m")
    backend = HttpBackend(base_url="http://127.0.0.1:9/v1", model="m")
    with pytest.raises(BackendError, match="max_tokens"):
        backend.generate([user("x")], max_tokens=0)
    with pytest.raises(BackendError, match="system segments must come first"):
        backend.generate([user("x"), system("y")])


def test_token_estimate() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("one two three") == 4  # 3 words x 4/3
    assert estimate_tokens("x" * 40) == 10  # one long word: characters / 4
    assert HttpBackend(base_url="http://127.0.0.1:9", model="m").count_tokens("a b c") == 4
