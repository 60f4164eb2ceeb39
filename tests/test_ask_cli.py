"""`wikic ask`: prompt building inside/outside a wiki, streaming, --json, and errors."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.helpers.wikitools import make_wiki
from tests.test_http_backend import Stub, sse, stub  # noqa: F401  (stub is a fixture)
from wikic.cli import app
from wikic.config import Config
from wikic.llm.backend import Segment
from wikic.llm.fake import FakeBackend

runner = CliRunner()


class Recorder:
    """Stands in for `make_backend`: remembers what it was asked for, returns a FakeBackend."""

    def __init__(self, *replies: str) -> None:
        self.backend = FakeBackend(name="fake-model").enqueue(*replies)
        self.calls: list[tuple[Config, str, Path | None]] = []

    def __call__(self, config: Config, role: str, *, cache_dir: Path | None) -> FakeBackend:
        self.calls.append((config, role, cache_dir))
        return self.backend


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    rec = Recorder("Canberra is the capital.")
    monkeypatch.setattr("wikic.llm.factory.make_backend", rec)
    # it stands in for the model too: there is none to install on first use
    monkeypatch.setattr("wikic.cli.backends.install_on_first_use", lambda config, role: None)
    return rec


def test_outside_a_wiki_uses_defaults(
    recorder: Recorder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["ask", "What is the capital of Australia?"])
    assert result.exit_code == 0, result.output
    assert "Canberra is the capital." in result.stdout
    assert "[fake-model]" in result.stderr and "prompt tokens" in result.stderr
    config, role, cache_dir = recorder.calls[0]
    assert (config, role, cache_dir) == (Config(), "query", None)
    call = recorder.backend.history[0]
    assert call.segments == (Segment("What is the capital of Australia?", "user"),)
    assert (call.max_tokens, call.temperature, call.schema) == (256, 0.0, None)


def test_inside_a_wiki_uses_its_config_agents_md_and_cache(
    recorder: Recorder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = make_wiki(tmp_path / "w")
    (paths.root / "wikic.yaml").write_text("model: smollm2-135m\ngeneration:\n  temperature: 0.3\n")
    (paths.root / "AGENTS.md").write_text("# Schema\nBe terse.\n")
    monkeypatch.chdir(paths.root / "raw")
    result = runner.invoke(app, ["ask", "Hi?", "--max-tokens", "9"])
    assert result.exit_code == 0, result.output
    config, _, cache_dir = recorder.calls[0]
    assert config.model == "smollm2-135m"
    assert cache_dir == paths.root / ".wikic" / "kv"
    call = recorder.backend.history[0]
    assert call.segments == (Segment("# Schema\nBe terse.\n", "system"), Segment("Hi?", "user"))
    assert (call.max_tokens, call.temperature) == (9, 0.3)


def test_model_override_no_system_and_temperature(
    recorder: Recorder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = make_wiki(tmp_path / "w")
    (paths.root / "wikic.yaml").write_text("roles:\n  query: other-model\n")
    result = runner.invoke(
        app,
        [
            "-C",
            str(paths.root),
            "ask",
            "Hi?",
            "-m",
            "gemma3-270m",
            "--no-system",
            "--temperature",
            "0.7",
        ],
    )
    assert result.exit_code == 0, result.output
    config = recorder.calls[0][0]
    assert config.model_for("query") == "gemma3-270m"
    call = recorder.backend.history[0]
    assert call.segments == (Segment("Hi?", "user"),) and call.temperature == 0.7


def test_json_output(recorder: Recorder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["ask", "Capital?", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["text"] == "Canberra is the capital." and data["model"] == "fake-model"
    assert data["finish_reason"] == "stop" and data["wiki"] is None
    assert data["stats"]["generated_tokens"] == 4 and data["stats"]["calls"] == 1


def test_empty_prompt_and_missing_wiki_are_errors(
    recorder: Recorder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["ask", "   "])
    assert result.exit_code == 2 and "the prompt is empty" in result.output
    result = runner.invoke(app, ["-C", str(tmp_path), "ask", "Hi"])
    assert result.exit_code == 1 and "no wiki found" in result.output
    assert not recorder.calls


def test_ask_through_an_http_server(
    stub: tuple[Stub, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    state, url = stub
    state.replies.append(sse("Can", "berra", usage={"prompt_tokens": 12, "completion_tokens": 2}))
    paths = make_wiki(tmp_path / "w")
    (paths.root / "wikic.yaml").write_text(f"backend: http\nhttp:\n  base_url: {url}\n")
    result = runner.invoke(app, ["-C", str(paths.root), "ask", "Capital of Australia?"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "Canberra"
    assert "12 prompt tokens" in result.stderr
    messages = state.requests[0]["messages"]
    assert messages[0]["role"] == "system" and messages[1]["content"] == "Capital of Australia?"
    assert state.requests[0]["model"] == "qwen2.5-coder-0.5b"


def test_unreachable_server_is_a_clean_error(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    paths = make_wiki(tmp_path / "w")
    (paths.root / "wikic.yaml").write_text(
        f"backend: http\nhttp:\n  base_url: http://127.0.0.1:{port}/v1\n"
    )
    result = runner.invoke(app, ["-C", str(paths.root), "ask", "Hi"])
    assert result.exit_code == 1
    assert "Error: cannot reach the LLM server" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.real_model
@pytest.mark.slow
def test_ask_a_real_model(
    real_models_env: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(
        app, ["ask", "What is the capital of Australia?", "-m", "qwen2.5-coder-0.5b", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert "Canberra" in data["text"] and data["stats"]["prompt_tokens"] > 0


def test_missing_model_says_how_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["ask", "Hi", "-m", "smollm2-135m"])
    assert result.exit_code == 1
    assert "not installed" in result.stderr and "wikic model install smollm2-135m" in result.stderr
