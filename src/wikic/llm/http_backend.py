"""Backend for an OpenAI-compatible server (`/v1/chat/completions`): mlx_lm.server, llama-server,
Ollama, vLLM. Replies are always streamed (SSE) so time to first token is known.

Segments become one system and one user message (the server applies the chat template). Token
counts come from the server's `usage`; without it, and for `count_tokens`, they are estimated
(no tokenizer here): max(words x 4/3, characters / 4), rounded up. Stdlib only (urllib). A batch
is sent as concurrent requests over every server in `base_urls` (at most `concurrency` in flight
on each; the servers batch them); a server that fails is left out and its requests go to the
others (`wikic.llm.fanout`).
"""

from __future__ import annotations

import http.client
import json
import math
import os
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, Literal

from pydantic import BaseModel

from wikic.config import HttpConfig
from wikic.errors import BackendError, ServerUnavailableError
from wikic.llm.backend import (
    BatchStats,
    FinishReason,
    Generation,
    GenerationStats,
    Request,
    Segment,
    TextCallback,
)
from wikic.llm.constrain import (
    generate_structured,
    generate_structured_batch,
    repairs_in,
    strict_json_schema,
)
from wikic.llm.fanout import fan_out
from wikic.llm.framing import chat_messages

JsonSchemaMode = Literal["response_format", "none"]
_CONFIG_HINT = "or set `backend: mlx` in wikic.yaml to run the model in process"


def estimate_tokens(text: str) -> int:
    """Rough token count without a tokenizer (errs high for prose, about right for code)."""
    if not text:
        return 0
    return math.ceil(max(len(text.split()) * 4 / 3, len(text) / 4))


class HttpBackend:
    """`Backend` talking to an OpenAI-compatible chat completions endpoint."""

    def __init__(
        self,
        *,
        base_url: str | None = None,
        base_urls: Sequence[str] = (),
        model: str,
        api_key: str | None = None,
        timeout_s: float = 600.0,
        concurrency: int = 8,
        json_schema: JsonSchemaMode = "response_format",
    ) -> None:
        urls = [*([base_url] if base_url else []), *base_urls]
        if not urls:
            raise BackendError("no LLM server given", hint="Set http.base_url in wikic.yaml.")
        for url in urls:
            if not url.startswith(("http://", "https://")):
                raise BackendError(
                    f"http.base_url must start with http:// or https://, not {url!r}",
                    hint="Set http.base_url in wikic.yaml, e.g. http://127.0.0.1:8080/v1.",
                )
        self.base_urls = tuple(u.rstrip("/") for u in urls)
        self.base_url = self.base_urls[0]
        self._model = model
        self._api_key = api_key
        self._timeout = timeout_s
        if concurrency < 1:
            raise BackendError(f"the batch size must be at least 1, not {concurrency}")
        self.concurrency = concurrency  # per server
        self.json_schema = json_schema
        self.batch_stats = BatchStats()
        self.served: Counter[str] = Counter()  # requests answered, by server
        self._lock = threading.Lock()

    @classmethod
    def from_config(cls, http: HttpConfig, model: str, *, concurrency: int = 8) -> HttpBackend:
        """Build from the `http:` section of wikic.yaml; `model` is the role's model name and
        `concurrency` the most requests in flight per server (generation.batch_size), unless
        http.concurrency says otherwise."""
        key = os.environ.get(http.api_key_env) if http.api_key_env else None
        return cls(
            base_urls=http.servers(),
            model=http.model or model,
            api_key=key or None,
            timeout_s=http.timeout_s,
            concurrency=http.concurrency or concurrency,
            json_schema=http.json_schema,
        )

    @property
    def model_name(self) -> str:
        return self._model

    def count_tokens(self, text: str) -> int:
        return estimate_tokens(text)

    def generate(
        self,
        segments: Sequence[Segment],
        *,
        schema: type[BaseModel] | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        seed: int = 0,
        on_text: TextCallback | None = None,
    ) -> Generation:
        if max_tokens < 1:
            raise BackendError(f"max_tokens must be at least 1, not {max_tokens}")

        def attempt(prompt: Sequence[Segment]) -> Generation:
            def send(server: str, _: int) -> Generation:
                return self._complete(
                    server, prompt, schema, max_tokens, temperature, seed, on_text
                )

            return fan_out(self.base_urls, 1, 1, send)[0]

        if schema is None:
            return attempt(segments)
        result = generate_structured(attempt, segments, schema, max_tokens)
        self._count_repairs([result])
        return result

    def generate_batch(self, requests: Sequence[Request]) -> list[Generation]:
        """See `BatchBackend.generate_batch`: the requests are sent concurrently."""
        for r in requests:
            if r.max_tokens < 1:
                raise BackendError(f"max_tokens must be at least 1, not {r.max_tokens}")
        out = generate_structured_batch(self._complete_all, requests)
        self._count_repairs(out)
        return out

    def _count_repairs(self, generations: Sequence[Generation]) -> None:
        repairs = repairs_in(generations)
        if repairs:
            self.batch_stats = self.batch_stats + BatchStats(repairs=repairs)

    def _complete_all(self, requests: Sequence[Request]) -> list[Generation]:
        if not requests:
            return []
        start = time.perf_counter()
        per_server = min(self.concurrency, len(requests))

        def send(server: str, i: int) -> Generation:
            r = requests[i]
            return self._complete(server, r.segments, r.schema, r.max_tokens, r.temperature, r.seed)

        out = fan_out(self.base_urls, len(requests), per_server, send)
        generated = sum(g.stats.generated_tokens for g in out)
        # no steps to count here: decode_s is the batch's wall time (the server's prefill too)
        self.batch_stats = self.batch_stats + BatchStats(
            batches=1,
            rows=len(requests),
            largest=min(len(requests), per_server * len(self.base_urls)),
            generated_tokens=generated,
            decode_s=time.perf_counter() - start,
        )
        return out

    def _complete(
        self,
        server: str,
        segments: Sequence[Segment],
        schema: type[BaseModel] | None,
        max_tokens: int,
        temperature: float,
        seed: int,
        on_text: TextCallback | None = None,
    ) -> Generation:
        messages = chat_messages(segments)
        body: dict[str, Any] = {
            "model": self._model,
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "seed": seed,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if schema is not None and self.json_schema == "response_format":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": schema.__name__,
                    "schema": strict_json_schema(schema),
                    "strict": True,
                },
            }
        start = time.perf_counter()
        first_token_at: float | None = None
        parts: list[str] = []
        finish: FinishReason = "stop"
        usage: dict[str, Any] = {}
        for chunk in self._post_stream(server, "/chat/completions", body):
            if chunk.get("usage"):
                usage = chunk["usage"]
            for choice in chunk.get("choices") or []:
                delta = choice.get("delta") or choice.get("message") or {}
                piece = delta.get("content")
                if piece:
                    if first_token_at is None:
                        first_token_at = time.perf_counter()
                    parts.append(piece)
                    if on_text is not None:
                        on_text(piece)
                if choice.get("finish_reason") == "length":
                    finish = "length"
        end = time.perf_counter()
        text = "".join(parts)
        with self._lock:
            self.served[server] += 1
        ttft = (first_token_at or end) - start
        return Generation(
            text, None, _stats(usage, messages, text, ttft, end - start - ttft), finish
        )

    def _post_stream(
        self, server: str, path: str, body: dict[str, Any]
    ) -> Iterator[dict[str, Any]]:
        """POST `body` to `server`; yield each JSON chunk of the SSE reply (or the one plain JSON
        reply). A server that cannot answer raises ServerUnavailableError."""
        url = server + path
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        request = urllib.request.Request(
            url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                if "text/event-stream" not in response.headers.get("Content-Type", ""):
                    yield _json_object(response.read(), url)
                    return
                for raw in response:
                    line = raw.decode("utf-8", "replace").strip()
                    if not line.startswith("data:"):
                        continue  # blank separators, comments, `event:` lines
                    data = line[5:].strip()
                    if data == "[DONE]":
                        return
                    yield _json_object(data.encode("utf-8"), url)
        except urllib.error.HTTPError as exc:
            raise _http_error(exc, url, self._model) from None
        except TimeoutError:
            raise ServerUnavailableError(
                f"the LLM server at {server} sent nothing for {self._timeout:g} s",
                hint="Raise http.timeout_s in wikic.yaml, or check that the server is not stuck.",
            ) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", exc) or type(exc).__name__
            raise ServerUnavailableError(
                f"cannot reach the LLM server at {server} ({reason}); wikic.yaml says "
                "`backend: http`",
                hint="Start an OpenAI-compatible server there (e.g. `mlx_lm.server --port 8080`), "
                f"fix http.base_url, {_CONFIG_HINT}.",
            ) from None


def _json_object(data: bytes, url: str) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise BackendError(
            f"the LLM server at {url} sent a reply that is not JSON: {data[:200]!r}",
            hint="Check that http.base_url points at an OpenAI-compatible API (it usually ends "
            "in /v1).",
        ) from None
    if not isinstance(value, dict):
        raise BackendError(f"the LLM server at {url} sent unexpected JSON: {str(value)[:200]}")
    if value.get("error"):
        error = value["error"]
        message = error.get("message", error) if isinstance(error, dict) else error
        raise BackendError(f"the LLM server at {url} reported an error: {message}")
    return value


def _http_error(exc: urllib.error.HTTPError, url: str, model: str) -> BackendError:
    try:
        detail = exc.read().decode("utf-8", "replace")[:300]
    except OSError:
        detail = ""
    message = f"the LLM server at {url} answered HTTP {exc.code}"
    if detail:
        message += f": {detail}"
    if exc.code in (401, 403):
        hint = "Put the API key in the variable named by http.api_key_env (default WIKIC_API_KEY)."
    elif exc.code == 404:
        hint = (
            f"Check http.base_url (it usually ends in /v1) and that the server serves "
            f"model {model!r} (http.model in wikic.yaml)."
        )
    else:
        hint = f"Check the server's log, {_CONFIG_HINT}."
    if exc.code >= 500:
        return ServerUnavailableError(message, hint=hint)
    return BackendError(message, hint=hint)


def _stats(
    usage: dict[str, Any],
    messages: list[dict[str, str]],
    text: str,
    prefill_s: float,
    decode_s: float,
) -> GenerationStats:
    prompt = usage.get("prompt_tokens")
    if not isinstance(prompt, int):
        prompt = sum(estimate_tokens(m["content"]) for m in messages)
    generated = usage.get("completion_tokens")
    if not isinstance(generated, int):
        generated = estimate_tokens(text)
    details = usage.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    cached = min(cached, prompt) if isinstance(cached, int) else 0
    return GenerationStats(
        prompt_tokens=prompt,
        cached_tokens=cached,
        prefill_tokens=prompt - cached,
        generated_tokens=generated,
        prefill_s=prefill_s,
        decode_s=decode_s,
    )
