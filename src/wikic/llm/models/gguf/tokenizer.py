"""GGUF tokenizer metadata → `tokenizer.json` + `tokenizer_config.json`, without torch.

The vocabulary, merges, pre-tokenizer and decoder come from transformers'
`convert_gguf_tokenizer`; added here is what a GGUF cannot say: Qwen2's NFC normalizer, SmolLM's
one-digit-per-token split, the BOS template and the end-of-turn ids generation must stop at.
The files load with `AutoTokenizer` / `mlx_lm.load` as a plain `PreTrainedTokenizerFast`.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikic.errors import ModelError
from wikic.llm.models.gguf.reader import GGUFFile

log = logging.getLogger(__name__)

_CONTROL = 3  # llama.cpp token type of special tokens like <|im_end|>
# Tokens that end a turn in the chat formats of the supported families; generation stops at them.
_END_OF_TURN = ("<|im_end|>", "<|endoftext|>", "<end_of_turn>", "<|eot_id|>", "<|end_of_text|>")
_NFC_PRE_TYPES = {"qwen2", "qwen35", "deepseek-r1-qwen"}


@dataclass(frozen=True)
class TokenizerInfo:
    bos_token_id: int | None
    eos_token_ids: tuple[int, ...]
    has_chat_template: bool
    vocab_size: int


def _tokenizer_dict(gguf: GGUFFile) -> dict[str, Any]:
    keys = {
        "model": "tokenizer_type",
        "pre": "pre_tokenizer_type",
        "tokens": "tokens",
        "scores": "scores",
        "token_type": "token_type",
        "merges": "merges",
    }
    out = {
        name: gguf.metadata[f"tokenizer.ggml.{k}"]
        for k, name in keys.items()
        if f"tokenizer.ggml.{k}" in gguf.metadata
    }
    if "tokens" not in out:
        raise ModelError(f"{gguf.path.name} has no tokenizer (tokenizer.ggml.tokens is missing)")
    return out


def build_tokenizer(gguf: GGUFFile) -> tuple[Any, dict[str, Any], TokenizerInfo]:
    """(tokenizers.Tokenizer, tokenizer_config dict, info) for the tokenizer the file describes."""
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")  # "PyTorch was not found"
    from tokenizers import normalizers, pre_tokenizers, processors
    from transformers.integrations.gguf.gguf_tokenizer_mapping import convert_gguf_tokenizer

    meta = gguf.metadata
    tdict = _tokenizer_dict(gguf)
    try:
        tok, _ = convert_gguf_tokenizer(gguf.architecture, tdict)
    except (ValueError, KeyError) as exc:
        raise ModelError(f"Cannot build the tokenizer of {gguf.path.name}: {exc}") from None
    pre = tdict.get("pre_tokenizer_type")
    if pre in _NFC_PRE_TYPES:
        tok.normalizer = normalizers.NFC()  # the HF tokenizer normalizes; the GGUF cannot say so
    if pre == "smollm":
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Digits(individual_digits=True),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
            ]
        )
    tokens: list[str] = tdict["tokens"]
    types: list[int] = tdict.get("token_type") or [1] * len(tokens)

    def token(key: str) -> tuple[int | None, str | None]:
        idx = meta.get(f"tokenizer.ggml.{key}")
        return (
            (int(idx), tokens[int(idx)])
            if idx is not None and 0 <= idx < len(tokens)
            else (None, None)
        )

    bos_id, bos = token("bos_token_id")
    eos_id, eos = token("eos_token_id")
    add_bos = bool(meta.get("tokenizer.ggml.add_bos_token", tdict.get("tokenizer_type") == "llama"))
    add_eos = bool(meta.get("tokenizer.ggml.add_eos_token", False))
    if (add_bos and bos is not None) or (add_eos and eos is not None):
        single = (
            ([f"{bos}:0"] if add_bos and bos else [])
            + ["$A:0"]
            + ([f"{eos}:0"] if add_eos and eos else [])
        )
        specials = [
            (t, i) for t, i in ((bos, bos_id), (eos, eos_id)) if t is not None and i is not None
        ]
        tok.post_processor = processors.TemplateProcessing(single=single, special_tokens=specials)

    eos_ids = [i for i in (eos_id, meta.get("tokenizer.ggml.eot_token_id")) if i is not None]
    eos_ids += [
        i
        for i, (t, kind) in enumerate(zip(tokens, types, strict=False))
        if kind == _CONTROL and t in _END_OF_TURN
    ]
    template = meta.get("tokenizer.chat_template")
    config: dict[str, Any] = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": bos,
        "eos_token": eos,
        "unk_token": token("unknown_token_id")[1],
        "pad_token": token("padding_token_id")[1],
        "add_bos_token": add_bos,
        "add_eos_token": add_eos,
        "clean_up_tokenization_spaces": False,
        "model_max_length": int(gguf.arch_key("context_length", 4096)),
    }
    if template:
        config["chat_template"] = template
    info = TokenizerInfo(
        bos_token_id=bos_id,
        eos_token_ids=tuple(dict.fromkeys(int(i) for i in eos_ids)),
        has_chat_template=bool(template),
        vocab_size=len(tokens),
    )
    return tok, config, info


def write_tokenizer(gguf: GGUFFile, out_dir: Path) -> TokenizerInfo:
    """Write tokenizer.json and tokenizer_config.json into `out_dir`."""
    tok, config, info = build_tokenizer(gguf)
    tok.save(str(out_dir / "tokenizer.json"))
    (out_dir / "tokenizer_config.json").write_text(
        json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    log.debug("tokenizer: %d tokens, eos %s", info.vocab_size, info.eos_token_ids)
    return info
