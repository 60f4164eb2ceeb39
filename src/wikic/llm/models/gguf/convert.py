"""Convert a GGUF file (llama, qwen2, gemma3) into an mlx-lm model directory.

Output: config.json, generation_config.json, model.safetensors (streamed tensor by tensor, so
peak memory stays near one tensor), tokenizer.json, tokenizer_config.json. Fixes applied, each
tested: llama Q/K rows un-permuted (so `rope_traditional=False` is right), gemma3 norms stored
as 1+w brought back to w, embeddings tied when `output.weight` is a copy of `token_embd`
(the more precise copy is kept), gemma3's sliding-window pattern restored.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wikic.errors import ModelError
from wikic.llm.models.gguf import config as gguf_config
from wikic.llm.models.gguf.reader import GGUFFile, GGUFTensor, read_gguf
from wikic.llm.models.gguf.tensors import (
    AFFINE_BITS,
    GROUP,
    PlannedTensor,
    affine_blocks,
    dequantize_rows,
    encode,
    pack_codes,
    row_chunks,
    write_safetensors,
)
from wikic.llm.models.gguf.tokenizer import write_tokenizer

log = logging.getLogger(__name__)

CONVERTER_VERSION = "1"
DTYPES = ("auto", "float32", "float16", "bfloat16", "gguf", "q8", "q4")
FLOAT_DTYPES = ("float32", "float16", "bfloat16")
QUANT_FLOAT = "float16"  # scales, biases, norms of quantized models: exact for GGUF's f16 scales
TIE_TOLERANCE = 0.3  # token_embd vs output: 4-bit noise is ~0.1, unrelated matrices ~1.4
ConvertProgress = Callable[[int, int], None]  # (elements done, elements total)

_PLAIN = {
    "attn_norm": "input_layernorm",
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
}
_BLOCK_NAMES = {
    "llama": {**_PLAIN, "ffn_norm": "post_attention_layernorm"},
    "qwen2": {**_PLAIN, "ffn_norm": "post_attention_layernorm"},
    "gemma3": {
        **_PLAIN,
        "ffn_norm": "pre_feedforward_layernorm",
        "post_attention_norm": "post_attention_layernorm",
        "post_ffw_norm": "post_feedforward_layernorm",
        "attn_q_norm": "self_attn.q_norm",
        "attn_k_norm": "self_attn.k_norm",
    },
}
_TOP_NAMES = {"token_embd": "model.embed_tokens", "output_norm": "model.norm", "output": "lm_head"}
_BLOCK_RE = re.compile(r"^blk\.(\d+)\.(\w+)\.(weight|bias)$")


@dataclass(frozen=True)
class ConvertResult:
    architecture: str
    model_type: str
    dtype: str
    n_parameters: int
    tied_embeddings: bool
    bytes_written: int


@dataclass(frozen=True)
class _Job:
    """One GGUF tensor and how it becomes output tensors."""

    source: GGUFTensor
    name: str  # HF module path + .weight/.bias
    rows: np.ndarray | None  # row order (Q/K un-permutation) or None for identity
    offset: float  # added to every value (gemma3 norms: -1)
    bits: int | None  # None: float output; else quantized with this many bits
    exact: bool  # quantized by repacking GGUF blocks (True) or by mlx (False)


def default_dtype() -> str:
    """float32 where mlx runs on the CPU (f32 ≫ 4-bit there), the GGUF's own quantization on GPUs."""
    from wikic.llm.blas import mlx_device

    return "float32" if mlx_device() == "cpu" else "gguf"


def hf_name(arch: str, gguf_name: str) -> str:
    """The mlx-lm parameter name of a GGUF tensor name; ModelError for names we cannot place."""
    base, _, suffix = gguf_name.rpartition(".")
    if base in _TOP_NAMES and suffix == "weight":
        return f"{_TOP_NAMES[base]}.weight"
    m = _BLOCK_RE.match(gguf_name)
    if m and m.group(2) in _BLOCK_NAMES[arch]:
        return f"model.layers.{m.group(1)}.{_BLOCK_NAMES[arch][m.group(2)]}.{m.group(3)}"
    raise ModelError(
        f"Unsupported tensor '{gguf_name}' in a {arch} GGUF file",
        hint="This GGUF variant is not supported by wikic's converter.",
    )


def unpermute_rows(n_rows: int, n_head: int) -> np.ndarray:
    """Row order undoing llama.cpp's Q/K permutation (it interleaves each head's rope halves)."""
    head_dim = n_rows // n_head
    idx = np.arange(n_rows).reshape(n_head, head_dim // 2, 2).swapaxes(1, 2)
    return idx.reshape(n_rows)


def convert_gguf(
    gguf_path: Path, out_dir: Path, *, dtype: str = "auto", progress: ConvertProgress | None = None
) -> ConvertResult:
    """Write an mlx-lm model directory for `gguf_path` into the existing, empty `out_dir`."""
    if dtype not in DTYPES:
        raise ModelError(f"Unknown dtype '{dtype}'", hint=f"Choose one of: {', '.join(DTYPES)}.")
    if dtype == "auto":
        dtype = default_dtype()
    gguf = read_gguf(gguf_path)
    arch = gguf.architecture
    if arch not in _BLOCK_NAMES:
        raise ModelError(
            f"{gguf_path.name}: architecture '{arch}' is not supported",
            hint=f"Supported: {', '.join(sorted(_BLOCK_NAMES))}.",
        )
    tokenizer = write_tokenizer(gguf, out_dir)
    tied, jobs = _plan(gguf, dtype)
    config = gguf_config.model_config(gguf, tied=tied, tokenizer=tokenizer)
    if dtype not in FLOAT_DTYPES:
        quant: dict[str, Any] = {"group_size": GROUP, "bits": 4, "mode": "affine"}
        quant.update(
            {
                j.name.rsplit(".", 1)[0]: {"group_size": GROUP, "bits": j.bits}
                for j in jobs
                if j.bits is not None
            }
        )
        config["quantization"] = config["quantization_config"] = quant
    float_dtype = dtype if dtype in FLOAT_DTYPES else QUANT_FLOAT
    plan = [p for j in jobs for p in _planned(j, float_dtype)]
    total = sum(j.source.n_elements for j in jobs)
    size = write_safetensors(
        out_dir / "model.safetensors", plan, _produce(jobs, float_dtype, total, progress)
    )
    (out_dir / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    gen = {"bos_token_id": tokenizer.bos_token_id, "eos_token_id": list(tokenizer.eos_token_ids)}
    (out_dir / "generation_config.json").write_text(
        json.dumps(gen, indent=2) + "\n", encoding="utf-8"
    )
    return ConvertResult(arch, config["model_type"], dtype, total, tied, size)


def _plan(gguf: GGUFFile, dtype: str) -> tuple[bool, list[_Job]]:
    arch, tensors = gguf.architecture, dict(gguf.tensors)
    tied = _tie_embeddings(tensors)
    heads, kv_heads = (
        int(gguf.arch_key("attention.head_count")),
        gguf.arch_key("attention.head_count_kv"),
    )
    jobs = []
    for t in tensors.values():
        name = hf_name(arch, t.name)
        rows = None
        if arch == "llama" and (".q_proj." in name or ".k_proj." in name):
            n_head = heads if ".q_proj." in name else int(kv_heads or heads)
            rows = unpermute_rows(t.shape[0], n_head)
        offset = -1.0 if arch == "gemma3" and name.endswith("norm.weight") else 0.0
        bits, exact = _quant_bits(t, name, dtype)
        jobs.append(_Job(t, name, rows, offset, bits, exact))
    return tied, jobs


def _tie_embeddings(tensors: dict[str, GGUFTensor]) -> bool:
    """Drop `output.weight` when it is `token_embd` again (up to quantization noise); keep the more
    precise copy as the embedding. Returns whether the embeddings are tied."""
    out, emb = tensors.get("output.weight"), tensors.get("token_embd.weight")
    if out is None:
        return True
    if emb is None or out.shape != emb.shape:
        return False
    sample = np.arange(0, out.shape[0], max(1, out.shape[0] // 2048))
    a, b = dequantize_rows(emb, sample), dequantize_rows(out, sample)
    diff = float(np.linalg.norm(a - b) / max(float(np.linalg.norm(b)), 1e-12))
    log.debug("token_embd vs output: relative difference %.4f", diff)
    if diff >= TIE_TOLERANCE:
        return False
    keep = out if out.bits_per_weight > emb.bits_per_weight else emb
    del tensors["output.weight"]
    tensors["token_embd.weight"] = GGUFTensor(
        "token_embd.weight", keep.shape, keep.qtype, keep.data
    )
    return True


def _quant_bits(t: GGUFTensor, name: str, dtype: str) -> tuple[int | None, bool]:
    quantizable = len(t.shape) == 2 and name.endswith("weight") and "norm" not in name
    if dtype in FLOAT_DTYPES or not quantizable or t.shape[1] % GROUP:
        return None, False
    if dtype in ("q8", "q4"):
        return (8 if dtype == "q8" else 4), False
    if t.qtype in AFFINE_BITS:
        return AFFINE_BITS[t.qtype], True
    if t.bits_per_weight >= 16:
        return None, False  # the file kept it unquantized; so do we
    floor = int(t.bits_per_weight)  # Q6_K → 6; anything below 4 bits is requantized at 4
    return min(b for b in (4, 5, 6, 8) if b >= max(4, floor)), False


def _planned(job: _Job, float_dtype: str) -> list[PlannedTensor]:
    shape = job.source.shape
    if job.bits is None:
        return [PlannedTensor(job.name, float_dtype, shape)]
    base = job.name.rsplit(".", 1)[0]
    groups = (shape[0], shape[1] // GROUP)
    return [
        PlannedTensor(job.name, "uint32", (shape[0], shape[1] * job.bits // 32)),
        PlannedTensor(f"{base}.scales", float_dtype, groups),
        PlannedTensor(f"{base}.biases", float_dtype, groups),
    ]


def _produce(
    jobs: list[_Job], float_dtype: str, total: int, progress: ConvertProgress | None
) -> Iterator[tuple[str, np.ndarray]]:
    done = 0
    for job in jobs:
        t = job.source
        order = job.rows if job.rows is not None else np.arange(t.shape[0] if t.shape else 1)
        if len(t.shape) < 2:
            yield job.name, encode(dequantize_rows(t)[order] + job.offset, float_dtype)
        elif job.bits is None:
            for chunk in row_chunks(t.shape[0], t.shape[1]):
                yield job.name, encode(dequantize_rows(t, order[chunk]) + job.offset, float_dtype)
        else:
            scales, biases = [], []
            for chunk in row_chunks(t.shape[0], t.shape[1]):
                packed, s, b = _quantize_chunk(job, order[chunk])
                scales.append(s)
                biases.append(b)
                yield job.name, packed
            base = job.name.rsplit(".", 1)[0]
            yield f"{base}.scales", encode(np.concatenate(scales), float_dtype)
            yield f"{base}.biases", encode(np.concatenate(biases), float_dtype)
        done += t.n_elements
        if progress is not None:
            progress(done, total)


def _quantize_chunk(job: _Job, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    assert job.bits is not None
    if job.exact:
        codes, scales, biases, _ = affine_blocks(job.source, rows)
        return pack_codes(codes, job.bits), scales, biases
    from wikic.llm.blas import import_mlx_core

    mx = import_mlx_core()
    w = mx.array(dequantize_rows(job.source, rows) + job.offset)
    wq, scales, biases = mx.quantize(w, group_size=GROUP, bits=job.bits)
    return np.array(wq).view("<u4"), np.array(scales), np.array(biases)
