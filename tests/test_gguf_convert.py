"""GGUF → MLX conversion on tiny synthetic GGUF files: names, permutation, norms, ties, quantization."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gguf import GGMLQuantizationType as Q
from gguf import GGUFReader
from gguf.quants import dequantize, quantize

from tests.helpers.tiny_gguf import HEADS, KV_HEADS, llama_permute, random_k_blocks, write_tiny_gguf
from wikic.errors import ModelError
from wikic.llm.models.gguf.convert import convert_gguf, hf_name, unpermute_rows
from wikic.llm.models.gguf.reader import GGUFTensor, read_gguf
from wikic.llm.models.gguf.tensors import (
    AFFINE_BITS,
    PlannedTensor,
    affine_blocks,
    dequantize_rows,
    encode,
    pack_codes,
    write_safetensors,
)


def _convert(tmp_path: Path, arch: str, dtype: str = "float32", **kw: Any) -> tuple[Any, Path]:
    tiny = write_tiny_gguf(tmp_path / f"{arch}.gguf", arch, **kw)
    out = tmp_path / f"{arch}-{dtype}"
    out.mkdir()
    convert_gguf(tiny.path, out, dtype=dtype)
    return tiny, out


def _weights(out: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    return load_file(str(out / "model.safetensors"))


@pytest.mark.parametrize(
    ("arch", "gguf_name", "expected"),
    [
        ("llama", "token_embd.weight", "model.embed_tokens.weight"),
        ("llama", "output.weight", "lm_head.weight"),
        ("llama", "output_norm.weight", "model.norm.weight"),
        ("llama", "blk.3.attn_q.weight", "model.layers.3.self_attn.q_proj.weight"),
        ("llama", "blk.0.attn_output.weight", "model.layers.0.self_attn.o_proj.weight"),
        ("llama", "blk.1.ffn_norm.weight", "model.layers.1.post_attention_layernorm.weight"),
        ("qwen2", "blk.2.attn_k.bias", "model.layers.2.self_attn.k_proj.bias"),
        ("qwen2", "blk.0.ffn_down.weight", "model.layers.0.mlp.down_proj.weight"),
        ("gemma3", "blk.1.ffn_norm.weight", "model.layers.1.pre_feedforward_layernorm.weight"),
        (
            "gemma3",
            "blk.1.post_attention_norm.weight",
            "model.layers.1.post_attention_layernorm.weight",
        ),
        (
            "gemma3",
            "blk.0.post_ffw_norm.weight",
            "model.layers.0.post_feedforward_layernorm.weight",
        ),
        ("gemma3", "blk.5.attn_q_norm.weight", "model.layers.5.self_attn.q_norm.weight"),
        ("gemma3", "blk.5.attn_k_norm.weight", "model.layers.5.self_attn.k_norm.weight"),
    ],
)
def test_tensor_names_map_to_mlx_lm_names(arch: str, gguf_name: str, expected: str) -> None:
    assert hf_name(arch, gguf_name) == expected


@pytest.mark.parametrize(
    "name", ["rope_freqs.weight", "blk.0.ssm_conv.weight", "blk.0.post_ffw_norm.weight"]
)
def test_unknown_tensor_names_are_errors(name: str) -> None:
    with pytest.raises(ModelError, match="Unsupported tensor"):
        hf_name("llama", name)


@pytest.mark.parametrize(("rows", "heads"), [(64, 4), (48, 3), (576, 9), (128, 2)])
def test_unpermute_inverts_llama_cpp_permutation(rows: int, heads: int) -> None:
    w = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
    assert np.array_equal(llama_permute(w, heads)[unpermute_rows(rows, heads)], w)
    assert not np.array_equal(llama_permute(w, heads), w)


def test_reader_agrees_with_gguf_reader(tmp_path: Path) -> None:
    tiny = write_tiny_gguf(tmp_path / "m.gguf", "qwen2", qtype=Q.Q8_0, output="copy")
    ours, theirs = read_gguf(tiny.path), GGUFReader(str(tiny.path))
    for key, f in theirs.fields.items():
        if not key.startswith("GGUF."):
            assert ours.metadata[key] == f.contents(), key
    assert [t.name for t in theirs.tensors] == list(ours.tensors)
    for t in theirs.tensors:
        mine = ours.tensors[t.name]
        assert mine.qtype == t.tensor_type and mine.n_elements == t.n_elements
        assert np.array_equal(
            dequantize_rows(mine), dequantize(t.data, t.tensor_type).reshape(mine.shape)
        )


@pytest.mark.parametrize("content", [b"", b"GGML" + b"\0" * 60, b"GGUF\x03\0\0\0" + b"\xff" * 20])
def test_bad_files_are_model_errors(tmp_path: Path, content: bytes) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(content)
    with pytest.raises(ModelError):
        read_gguf(bad)


def test_truncated_file_is_a_model_error(tmp_path: Path) -> None:
    tiny = write_tiny_gguf(tmp_path / "m.gguf", "llama")
    data = tiny.path.read_bytes()
    tiny.path.write_bytes(data[: len(data) - 1000])
    with pytest.raises(ModelError, match="truncated"):
        read_gguf(tiny.path)


@pytest.mark.parametrize("arch", ["llama", "qwen2", "gemma3"])
@pytest.mark.parametrize("qtype", [Q.F32, Q.Q8_0, Q.Q4_1])
def test_float32_conversion_reproduces_hf_weights(tmp_path: Path, arch: str, qtype: Q) -> None:
    """Names, Q/K un-permutation (llama), gemma norm offset, biases: every tensor matches."""
    tiny, out = _convert(tmp_path, arch, qtype=qtype)
    weights = _weights(out)
    assert set(weights) == set(tiny.expected)
    for name, expected in tiny.expected.items():
        np.testing.assert_allclose(weights[name], expected, rtol=0, atol=1e-6, err_msg=name)


def test_gemma3_config_restores_what_the_gguf_lacks(tmp_path: Path) -> None:
    _, out = _convert(tmp_path, "gemma3", layers=7)
    config = json.loads((out / "config.json").read_text())
    assert config["model_type"] == "gemma3_text"
    assert config["sliding_window_pattern"] == 6 and config["sliding_window"] == 8
    assert config["query_pre_attn_scalar"] == config["head_dim"] == 16
    assert config["rope_local_base_freq"] == 10000.0
    assert (
        config["layer_types"][5] == "full_attention"
        and config["layer_types"][6] == "sliding_attention"
    )
    assert config["tie_word_embeddings"] is True


def test_tied_output_keeps_the_more_precise_copy(tmp_path: Path) -> None:
    tiny, out = _convert(tmp_path, "qwen2", qtype=Q.Q4_0, output="copy")
    weights = _weights(out)
    assert "lm_head.weight" not in weights
    assert json.loads((out / "config.json").read_text())["tie_word_embeddings"] is True
    # output.weight (Q8_0) is finer than token_embd (Q4_0): the embedding holds its values
    np.testing.assert_array_equal(
        weights["model.embed_tokens.weight"], tiny.expected["model.embed_tokens.weight"]
    )


def test_separate_output_stays_untied(tmp_path: Path) -> None:
    _, out = _convert(tmp_path, "llama", output="separate")
    assert "lm_head.weight" in _weights(out)
    assert json.loads((out / "config.json").read_text())["tie_word_embeddings"] is False


def test_bfloat16_and_float16_outputs(tmp_path: Path) -> None:
    tiny, out16 = _convert(tmp_path, "llama", dtype="float16")
    w16 = _weights(out16)
    name = "model.layers.0.self_attn.q_proj.weight"
    assert w16[name].dtype == np.float16
    np.testing.assert_allclose(w16[name], tiny.expected[name], rtol=1e-3, atol=1e-4)
    out_bf = tmp_path / "bf"
    out_bf.mkdir()
    convert_gguf(tiny.path, out_bf, dtype="bfloat16")
    header_len = int.from_bytes((out_bf / "model.safetensors").read_bytes()[:8], "little")
    header = json.loads((out_bf / "model.safetensors").read_bytes()[8 : 8 + header_len])
    assert header[name]["dtype"] == "BF16"


def test_unknown_dtype_and_architecture(tmp_path: Path) -> None:
    tiny = write_tiny_gguf(tmp_path / "m.gguf", "llama")
    with pytest.raises(ModelError, match="Unknown dtype"):
        convert_gguf(tiny.path, tmp_path, dtype="int3")
    data = tiny.path.read_bytes().replace(b"llama", b"mamba")  # metadata key prefixes and the arch
    (tmp_path / "mamba.gguf").write_bytes(data)
    with pytest.raises(ModelError, match="not supported"):
        convert_gguf(tmp_path / "mamba.gguf", tmp_path, dtype="float32")


# -- exact repacking of GGUF blocks ---------------------------------------------------------------


def _tensor(qtype: Q, rows: int = 4, cols: int = 512) -> GGUFTensor:
    rng = np.random.default_rng(int(qtype))
    values = rng.standard_normal((rows, cols)).astype(np.float32)
    if qtype in (Q.Q4_K, Q.Q5_K):
        raw = random_k_blocks((rows, cols), qtype, rng)
    else:
        raw = quantize(values, qtype)
    return GGUFTensor("t", (rows, cols), qtype, raw)


@pytest.mark.parametrize("qtype", sorted(AFFINE_BITS))
def test_affine_blocks_are_exact(qtype: Q) -> None:
    t = _tensor(qtype)
    codes, scales, biases, bits = affine_blocks(t)
    assert codes.max() < 2**bits
    rebuilt = np.repeat(scales, 32, axis=1) * codes + np.repeat(biases, 32, axis=1)
    np.testing.assert_array_equal(rebuilt.astype(np.float32), dequantize_rows(t))
    rows = np.array([3, 1])
    np.testing.assert_array_equal(affine_blocks(t, rows)[0], codes[rows])


@pytest.mark.mlx
@pytest.mark.parametrize("bits", [4, 5, 6, 8])
def test_packed_codes_match_mlx_layout(bits: int) -> None:
    from wikic.llm.blas import import_mlx_core

    mx = import_mlx_core()
    rng = np.random.default_rng(bits)
    codes = rng.integers(0, 2**bits, size=(3, 128)).astype(np.uint8)
    scales = rng.random((3, 4)).astype(np.float32)
    biases = rng.standard_normal((3, 4)).astype(np.float32)
    w = mx.dequantize(
        mx.array(pack_codes(codes, bits)),
        mx.array(scales),
        mx.array(biases),
        group_size=32,
        bits=bits,
    )
    expected = np.repeat(scales, 32, axis=1) * codes + np.repeat(biases, 32, axis=1)
    np.testing.assert_array_equal(np.array(w), expected)


def test_streamed_safetensors_round_trip(tmp_path: Path) -> None:
    from safetensors.numpy import load_file

    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.arange(5, dtype=np.uint32)
    plan = [PlannedTensor("a", "float32", (3, 4)), PlannedTensor("b", "uint32", (5,))]
    write_safetensors(tmp_path / "x.safetensors", plan, [("a", a[:2]), ("a", a[2:]), ("b", b)])
    loaded = load_file(str(tmp_path / "x.safetensors"))
    assert np.array_equal(loaded["a"], a) and np.array_equal(loaded["b"], b)
    with pytest.raises(RuntimeError, match="differ from the plan"):
        write_safetensors(tmp_path / "y.safetensors", plan, [("a", a[:2]), ("b", b)])
    with pytest.raises(RuntimeError, match="out of order"):
        write_safetensors(tmp_path / "z.safetensors", plan, [("b", b), ("a", a)])


def test_bf16_rounds_to_nearest_even() -> None:
    x = np.array([1.0, 1.00390625, 1.01171875, -2.5, 3.140625], dtype=np.float32)
    bits = encode(x, "bfloat16")
    back = (bits.astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_array_equal(back, [1.0, 1.0, 1.015625, -2.5, 3.140625])


# -- the converted models run in mlx-lm -----------------------------------------------------------


def _logits(model: Any, ids: list[int]) -> np.ndarray:
    from wikic.llm.blas import import_mlx_core

    mx = import_mlx_core()
    return np.array(model(mx.array([ids])).astype(mx.float32))


@pytest.mark.mlx
def test_unpermuted_llama_equals_llama_cpp_rope_layout(tmp_path: Path) -> None:
    """The converted model (HF layout, rope_traditional=False) computes exactly what the GGUF's
    permuted rows compute with llama.cpp's interleaved rope (rope_traditional=True)."""
    from mlx_lm.utils import load_model

    from wikic.llm.blas import import_mlx_core

    mx = import_mlx_core()
    tiny, out = _convert(tmp_path, "llama")
    ours, _ = load_model(out)
    theirs, _ = load_model(out, model_config={"rope_traditional": True})
    for i, layer in enumerate(theirs.model.layers):
        attn = layer.self_attn
        q = tiny.expected[f"model.layers.{i}.self_attn.q_proj.weight"]
        k = tiny.expected[f"model.layers.{i}.self_attn.k_proj.weight"]
        attn.q_proj.weight = mx.array(llama_permute(q, HEADS))
        attn.k_proj.weight = mx.array(llama_permute(k, KV_HEADS))
    ids = [5, 40, 77, 3, 120, 9, 61, 200]
    np.testing.assert_allclose(_logits(ours, ids), _logits(theirs, ids), rtol=1e-4, atol=1e-4)


@pytest.mark.mlx
@pytest.mark.parametrize("arch", ["llama", "qwen2", "gemma3"])
def test_converted_model_loads_with_mlx_lm(tmp_path: Path, arch: str) -> None:
    from mlx_lm import load
    from mlx_lm.models.cache import RotatingKVCache

    _, out = _convert(tmp_path, arch, layers=6 if arch == "gemma3" else 2)
    model, tokenizer = load(str(out))
    logits = _logits(model, tokenizer.encode("the 12 he"))
    assert np.isfinite(logits).all()
    if arch == "gemma3":
        kinds = [type(c).__name__ for c in model.make_cache()]
        assert kinds[:5] == ["RotatingKVCache"] * 5 and kinds[5] == "KVCache"
        assert isinstance(model.make_cache()[0], RotatingKVCache)


@pytest.mark.mlx
def test_gguf_dtype_repacks_exactly_and_runs(tmp_path: Path) -> None:
    from mlx_lm import load

    from wikic.llm.blas import import_mlx_core

    mx = import_mlx_core()
    tiny, out = _convert(tmp_path, "qwen2", dtype="gguf", qtype=Q.Q8_0, output="copy")
    config = json.loads((out / "config.json").read_text())
    quant = config["quantization"]
    assert quant["model.layers.0.mlp.up_proj"] == {"group_size": 32, "bits": 8}
    assert quant["model.embed_tokens"]["bits"] == 8
    model, _ = load(str(out))
    layer = model.model.layers[0].mlp.up_proj
    w = mx.dequantize(
        layer.weight,
        layer.scales.astype(mx.float32),
        layer.biases.astype(mx.float32),
        group_size=32,
        bits=8,
    )
    np.testing.assert_array_equal(np.array(w), tiny.expected["model.layers.0.mlp.up_proj.weight"])
    f32 = tmp_path / "f32"
    f32.mkdir()
    convert_gguf(tiny.path, f32, dtype="float32")
    ref, _ = load(str(f32))
    ids = [5, 40, 77, 3, 120]
    np.testing.assert_allclose(_logits(model, ids), _logits(ref, ids), atol=0.05)


@pytest.mark.mlx
@pytest.mark.parametrize("dtype", ["q8", "q4"])
def test_mlx_quantized_dtypes_load_and_stay_close(tmp_path: Path, dtype: str) -> None:
    from mlx_lm import load

    tiny, out = _convert(tmp_path, "llama", dtype=dtype)
    bits = 8 if dtype == "q8" else 4
    assert (
        json.loads((out / "config.json").read_text())["quantization"][
            "model.layers.1.mlp.down_proj"
        ]["bits"]
        == bits
    )
    model, _ = load(str(out))
    f32 = tmp_path / "f32"
    f32.mkdir()
    convert_gguf(tiny.path, f32, dtype="float32")
    ref, _ = load(str(f32))
    ids = [5, 40, 77, 3]
    diff = np.abs(_logits(model, ids) - _logits(ref, ids)).max()
    assert diff < (0.05 if dtype == "q8" else 0.5)


# -- tokenizer ------------------------------------------------------------------------------------


def _tokenizer(tmp_path: Path, arch: str) -> Any:
    from transformers import AutoTokenizer

    _, out = _convert(tmp_path, arch)
    return AutoTokenizer.from_pretrained(str(out))


def test_qwen2_tokenizer_normalizes_nfc_and_keeps_specials_whole(tmp_path: Path) -> None:
    tok = _tokenizer(tmp_path, "qwen2")
    assert tok.encode("e\u0301") == tok.encode("\u00e9")
    ids = tok.encode("<|im_start|>the<|im_end|>")
    assert ids[0] == tok.convert_tokens_to_ids("<|im_start|>") and ids[-1] == 2
    assert tok.decode(tok.encode(" the 12 héllo\n\tx")) == " the 12 héllo\n\tx"
    assert "<|im_start|>user\nhi<|im_end|>" in tok.apply_chat_template(
        [{"role": "user", "content": "hi"}], tokenize=False
    )


def test_smollm_tokenizer_splits_digits(tmp_path: Path) -> None:
    tok = _tokenizer(tmp_path, "llama")
    assert tok.convert_ids_to_tokens(tok.encode("12")) == [
        "1",
        "2",
    ]  # "12" exists, digits split first
    assert tok.decode(tok.encode("the 123 e\u0301")) == "the 123 e\u0301"  # no NFC for SmolLM


def test_gemma_tokenizer_adds_bos(tmp_path: Path) -> None:
    tok = _tokenizer(tmp_path, "gemma3")
    ids = tok.encode("the he")
    assert ids[0] == 2
    assert tok.decode(ids, skip_special_tokens=True) == "the he"
    assert tok.chat_template is None


def test_generation_config_lists_end_of_turn_ids(tmp_path: Path) -> None:
    _, out = _convert(tmp_path, "qwen2")
    gen = json.loads((out / "generation_config.json").read_text())
    assert gen["eos_token_id"] == [2, 0]  # <|im_end|> (the file's eos), then <|endoftext|>
