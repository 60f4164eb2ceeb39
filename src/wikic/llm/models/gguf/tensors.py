"""Tensor-level pieces of GGUF → MLX conversion: dequantization, exact repacking, safetensors output.

GGUF Q4_0/Q4_1/Q5_0/Q5_1/Q8_0 blocks and the 32-value sub-blocks of Q4_K/Q5_K are affine
(`w = scale * q + bias`), i.e. MLX affine quantization with group size 32, so they are repacked
code for code (`affine_blocks`); other types are dequantized. Everything works on row chunks so
that converting a model never holds more than one tensor (or one chunk of it) in memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from gguf.constants import GGMLQuantizationType as Q
from gguf.quants import Q4_K, dequantize

from wikic.llm.models.gguf.reader import GGUFTensor

GROUP = 32  # GGUF's block (or sub-block) size and the MLX group size of a repacked tensor
ROW_CHUNK_BYTES = 64 * 2**20  # f32 bytes per chunk when streaming a large tensor
AFFINE_BITS = {Q.Q4_0: 4, Q.Q4_1: 4, Q.Q5_0: 5, Q.Q5_1: 5, Q.Q8_0: 8, Q.Q4_K: 4, Q.Q5_K: 5}


def row_chunks(n_rows: int, n_cols: int) -> Iterator[slice]:
    step = max(1, ROW_CHUNK_BYTES // max(1, 4 * n_cols))
    for start in range(0, n_rows, step):
        yield slice(start, min(n_rows, start + step))


def dequantize_rows(t: GGUFTensor, rows: slice | np.ndarray | None = None) -> np.ndarray:
    """f32 values of `t` (all of it, or the given rows of a matrix), shaped like `t.shape`."""
    data = t.data if rows is None else t.data[rows]
    if t.qtype == Q.BF16:
        return (data.astype(np.uint32) << 16).view(np.float32)
    out = dequantize(np.ascontiguousarray(data), t.qtype)
    return out.reshape((*data.shape[:-1], t.shape[-1])) if t.shape else out


def _f16(raw: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(raw).view(np.float16).astype(np.float32)


def affine_blocks(
    t: GGUFTensor, rows: np.ndarray | slice | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(codes uint8 (R, C), scales f32 (R, C/32), biases f32 (R, C/32), bits) of an affine type.

    `dequantize_rows(t) == scales * codes + biases` (per group of 32) holds exactly.
    """
    bits = AFFINE_BITS[t.qtype]
    blocks = t.data if rows is None else t.data[rows]
    n_rows, cols = blocks.shape[0], t.shape[-1]
    if t.qtype in (Q.Q4_K, Q.Q5_K):
        codes, scales, biases = _k_blocks(blocks.reshape(n_rows * cols // 256, -1), t.qtype)
    else:
        codes, scales, biases = _legacy_blocks(blocks.reshape(n_rows * cols // GROUP, -1), t.qtype)
    return (
        codes.reshape(n_rows, cols).astype(np.uint8),
        scales.reshape(n_rows, cols // GROUP).astype(np.float32),
        biases.reshape(n_rows, cols // GROUP).astype(np.float32),
        bits,
    )


def _k_blocks(b: np.ndarray, qtype: Q) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q4_K/Q5_K super-blocks (one per row of `b`): 8 sub-blocks of 32 with 6-bit scale and min."""
    d, dmin = _f16(b[:, 0:2]), _f16(b[:, 2:4])
    sc, mn = Q4_K.get_scale_min(np.ascontiguousarray(b[:, 4:16]))
    scales, biases = d * sc.astype(np.float32), -dmin * mn.astype(np.float32)
    nibble_shift = np.array([0, 4], dtype=np.uint8).reshape(1, 1, 2, 1)
    codes = ((b[:, -128:].reshape(-1, 4, 1, 32) >> nibble_shift) & 0x0F).reshape(-1, 256)
    if qtype == Q.Q5_K:  # the fifth bit of sub-block j is bit j of the 32 `qh` bytes
        qh = b[:, 16:48].reshape(-1, 1, 32) >> np.arange(8, dtype=np.uint8).reshape(1, 8, 1)
        codes = codes | ((qh & 1).reshape(-1, 256) << 4)
    return codes, scales, biases


def _legacy_blocks(b: np.ndarray, qtype: Q) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q4_0/Q4_1/Q5_0/Q5_1/Q8_0 blocks of 32 (one per row of `b`): f16 scale [, f16 min], codes."""
    d = _f16(b[:, 0:2])
    if qtype == Q.Q8_0:
        return (b[:, 2:].view(np.int8).astype(np.int16) + 128).astype(np.uint8), d, -128.0 * d
    has_min = qtype in (Q.Q4_1, Q.Q5_1)
    pos = 4 if has_min else 2
    high = None
    if AFFINE_BITS[qtype] == 5:
        qh = np.ascontiguousarray(b[:, pos : pos + 4]).view("<u4")
        high = ((qh >> np.arange(32, dtype=np.uint32)) & 1).astype(np.uint8) << 4
        pos += 4
    qs = b[:, pos : pos + 16]
    codes = np.concatenate([qs & 0x0F, qs >> 4], axis=-1)  # low nibbles: 0-15, high: 16-31
    if high is not None:
        codes = codes | high
    biases = _f16(b[:, 2:4]) if has_min else -float(2 ** (AFFINE_BITS[qtype] - 1)) * d
    return codes, d, biases


def pack_codes(codes: np.ndarray, bits: int) -> np.ndarray:
    """MLX's packed layout: each row's codes as one LSB-first bit stream, read as uint32 words."""
    n_rows, cols = codes.shape
    stream = ((codes[..., None] >> np.arange(bits, dtype=np.uint8)) & 1).astype(np.uint8)
    packed = np.packbits(stream.reshape(n_rows, cols * bits), axis=-1, bitorder="little")
    return np.ascontiguousarray(packed).view("<u4")


def to_bf16_bits(x: np.ndarray) -> np.ndarray:
    """f32 → bfloat16 (as uint16 bits), rounding to nearest even like MLX and torch do."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


_ST_DTYPES = {"float32": "F32", "float16": "F16", "bfloat16": "BF16", "uint32": "U32"}
_ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2, "uint32": 4}


@dataclass(frozen=True)
class PlannedTensor:
    """A tensor to be written: its final name, dtype name and shape; data comes later, in order."""

    name: str
    dtype: str  # float32 | float16 | bfloat16 | uint32
    shape: tuple[int, ...]

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape)) * _ITEMSIZE[self.dtype]


def encode(x: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "bfloat16":
        return to_bf16_bits(x)
    return np.ascontiguousarray(
        x, dtype={"float32": np.float32, "float16": np.float16, "uint32": np.uint32}[dtype]
    )


def write_safetensors(
    path: Path, plan: list[PlannedTensor], chunks: Iterable[tuple[str, np.ndarray]]
) -> int:
    """Stream tensors into a safetensors file; the header comes from `plan`, so no tensor needs
    to be held while others are written. `chunks` yields (name, encoded array) in plan order,
    possibly several chunks per tensor. Returns the file size."""
    header: dict[str, object] = {"__metadata__": {"format": "mlx"}}
    offset = 0
    for p in plan:
        header[p.name] = {
            "dtype": _ST_DTYPES[p.dtype],
            "shape": list(p.shape),
            "data_offsets": [offset, offset + p.nbytes],
        }
        offset += p.nbytes
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)
    written = [0] * len(plan)
    idx = 0
    with path.open("wb") as fh:
        fh.write(len(head).to_bytes(8, "little") + head)
        for name, arr in chunks:
            while idx < len(plan) and plan[idx].name != name:
                idx += 1  # the previous tensor is complete; the size check below catches gaps
            if idx == len(plan):
                raise RuntimeError(f"tensor {name} is not in the plan or comes out of order")
            fh.write(np.ascontiguousarray(arr).tobytes())
            written[idx] += arr.nbytes
    bad = [p.name for p, n in zip(plan, written, strict=True) if n != p.nbytes]
    if bad:
        raise RuntimeError(f"tensor sizes differ from the plan: {bad[:3]}")
    return 8 + len(head) + offset
