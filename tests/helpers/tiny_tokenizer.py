"""Tiny byte-level BPE tokenizers for tests, saved as HF tokenizer dirs mlx-lm can load.

Ids 0-255 are the 256 byte symbols, then a few merges, then control tokens; the vocabulary stays
below the 320 logits of the tiny models in `_tiny_models.py`. No network, no model store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHATML_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + "
    "message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
# Like Gemma's template: no system role, the system text opens the first user turn.
TURN_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'system' %}"
    "{{ raise_exception('System role not supported') }}{% endif %}"
    "{{ '<start_of_turn>' + message['role'] + '\\n' + message['content'] + '<end_of_turn>\\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<start_of_turn>model\\n' }}{% endif %}"
)
_MERGES = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("i", "n"), ("Ġ", "a"), ("e", "r"), ("o", "n")]


def build_tokenizer(
    directory: Path,
    *,
    template: str | None = CHATML_TEMPLATE,
    controls: tuple[str, ...] = ("<|endoftext|>", "<|im_start|>", "<|im_end|>"),
    special: bool = True,
    eos: str = "<|im_end|>",
    bos: str | None = None,
    add_bos: bool = False,
) -> Path:
    """Write tokenizer.json + tokenizer_config.json into `directory` and return it.

    `special=False` registers the control tokens as ordinary added tokens (as some converted
    tokenizers do), which framing must still keep out of segment text.
    """
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    byte_map = pre_tokenizers.ByteLevel.alphabet()
    vocab: dict[str, int] = {ch: i for i, ch in enumerate(sorted(byte_map))}
    for left, right in _MERGES:
        vocab.setdefault(left + right, len(vocab))
    tok = Tokenizer(models.BPE(vocab=vocab, merges=_MERGES))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    all_controls = list(controls) + ([bos] if bos and bos not in controls else [])
    tok.add_tokens([AddedToken(c, special=special, normalized=False) for c in all_controls])
    if add_bos and bos:
        bos_id = tok.token_to_id(bos)
        tok.post_processor = processors.TemplateProcessing(
            single=f"{bos} $A", pair=f"{bos} $A $B", special_tokens=[(bos, bos_id)]
        )
    kwargs: dict[str, Any] = {"eos_token": eos}
    if bos:
        kwargs["bos_token"] = bos
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, **kwargs)
    if template is not None:
        fast.chat_template = template
    directory.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(str(directory))
    return directory


def load_tokenizer(directory: Path) -> Any:
    """The mlx-lm TokenizerWrapper of a directory written by `build_tokenizer`."""
    from mlx_lm.tokenizer_utils import load

    return load(directory)
