"""Segments → per-segment token lists, framed by the model's chat template.

Each segment is tokenized on its own as `framing piece + text`, so a segment end is always a
token boundary and the same segments always give the same token lists (cold or warm cache).
Segment text is data: special tokens spelled inside it are split into ordinary tokens.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from wikic.errors import BackendError
from wikic.llm.backend import Segment

# Unlikely to occur in a template and made of plain word characters, so no template escapes them.
_SYSTEM_MARK = "WIKICSYSTEMMARK7F3A"
_USER_MARK = "WIKICUSERMARK9C1E"


@dataclass(frozen=True)
class ChatFrame:
    """The strings a chat template puts around the system and user message.

    `system_header` precedes the system message, `system_to_user` joins it to the user message,
    `user_header` precedes the user message when there is no system segment, and
    `generation_prompt` follows the user message. All empty: plain concatenation.
    """

    system_header: str = ""
    system_to_user: str = ""
    user_header: str = ""
    generation_prompt: str = ""

    @property
    def is_plain(self) -> bool:
        return not (self.system_header or self.system_to_user or self.user_header)


def chat_frame(tokenizer: Any) -> ChatFrame:
    """Find the framing strings by rendering the chat template around unique markers."""
    if not _has_chat_template(tokenizer):
        return ChatFrame()
    with_system = _render(tokenizer, [("system", _SYSTEM_MARK), ("user", _USER_MARK)])
    if with_system is None or not _in_order(with_system, _SYSTEM_MARK, _USER_MARK):
        # Templates that refuse a system role: the system text opens the user message instead.
        with_system = _render(tokenizer, [("user", _SYSTEM_MARK + _USER_MARK)])
    user_only = _render(tokenizer, [("user", _USER_MARK)])
    if (
        with_system is None
        or user_only is None
        or not _in_order(with_system, _SYSTEM_MARK, _USER_MARK)
        or user_only.count(_USER_MARK) != 1
    ):
        raise BackendError(
            "the model's chat template does not render a system and a user message",
            hint="Use a model with a standard chat template, or remove chat_template from its "
            "tokenizer_config.json to prompt it as a base model.",
        )
    s_at = with_system.index(_SYSTEM_MARK)
    u_at = with_system.index(_USER_MARK)
    return ChatFrame(
        system_header=with_system[:s_at],
        system_to_user=with_system[s_at + len(_SYSTEM_MARK) : u_at],
        user_header=user_only[: user_only.index(_USER_MARK)],
        generation_prompt=with_system[u_at + len(_USER_MARK) :],
    )


class PromptFramer:
    """Turns segments into token lists for one tokenizer (an mlx-lm TokenizerWrapper or HF fast)."""

    def __init__(self, tokenizer: Any) -> None:
        backend = getattr(tokenizer, "backend_tokenizer", None)
        if backend is None:
            raise BackendError(
                "the model's tokenizer is not a fast (tokenizers-based) tokenizer",
                hint="Convert the model with a tokenizer.json (wikic model install does).",
            )
        self.frame = chat_frame(tokenizer)
        self.backend_tokenizer = backend  # template text: control tokens are recognised
        # A private copy that treats special tokens in the input as text (data stays data).
        self._data_tok = copy.copy(backend)
        self._data_tok.encode_special_tokens = True
        self._special_ids = _control_ids(tokenizer, self.frame, backend)
        specials = sorted(
            (t for t in getattr(tokenizer, "all_special_tokens", []) if t), key=len, reverse=True
        )
        specials += _added_control_strings(tokenizer, self._special_ids)
        self._special_re = (
            re.compile("|".join(re.escape(s) for s in specials)) if specials else None
        )
        self._bos = _bos_to_add(tokenizer, backend)

    def encode_data(self, text: str) -> list[int]:
        """Tokens of `text` as data: no control tokens, no BOS."""
        ids: list[int] = self._data_tok.encode(text, add_special_tokens=False).ids
        if self._special_ids.isdisjoint(ids):
            return ids
        # A control token the tokenizer does not mark special: break each occurrence in two.
        out: list[int] = []
        for piece in _split_controls(text, self._special_ids, self.backend_tokenizer):
            out += self._data_tok.encode(piece, add_special_tokens=False).ids
        return out

    def count_tokens(self, text: str) -> int:
        return len(self.encode_data(text))

    def turn_end_token(self) -> int | None:
        """The control token that closes a chat turn (`<|im_end|>`), if the template has one."""
        ids = self.backend_tokenizer.encode(
            self.frame.generation_prompt, add_special_tokens=False
        ).ids
        return ids[0] if ids and ids[0] in self._special_ids else None

    def _encode_framed(self, piece: str, text: str) -> list[int]:
        """tokenize(piece + text): the piece's control tokens stay, the text is data."""
        head, tail = self._split_piece(piece)
        ids: list[int] = (
            self.backend_tokenizer.encode(head, add_special_tokens=False).ids if head else []
        )
        return ids + (self.encode_data(tail + text) if tail + text else [])

    def _split_piece(self, piece: str) -> tuple[str, str]:
        """Split a framing piece after its last control token (the rest joins the text)."""
        if self._special_re is None:
            return "", piece
        end = 0
        for match in self._special_re.finditer(piece):
            end = match.end()
        return piece[:end], piece[end:]

    def frame_segments(self, segments: Sequence[Segment]) -> list[list[int]]:
        """One token list per segment (empty ones dropped); the generation prompt ends the last."""
        n_system = count_system(segments)
        frame = self.frame
        lists: list[list[int]] = []
        for i, seg in enumerate(segments):
            if i == 0 and n_system:
                piece = frame.system_header
            elif i == n_system:
                piece = frame.system_to_user if n_system else frame.user_header
            else:
                piece = ""
            lists.append(self._encode_framed(piece, seg.text))
        if n_system == len(segments) and not frame.is_plain:
            lists.append(self._encode_framed(frame.system_to_user, ""))  # empty user message
        if frame.generation_prompt:
            lists[-1] = lists[-1] + self._encode_framed(frame.generation_prompt, "")
        if self._bos is not None and lists[0][:1] != [self._bos]:
            lists[0] = [self._bos, *lists[0]]
        return [ids for ids in lists if ids]


def count_system(segments: Sequence[Segment]) -> int:
    """How many leading system segments there are; checks that none comes after a user one."""
    if not segments:
        raise BackendError("cannot generate from an empty prompt (no segments)")
    n_system = 0
    while n_system < len(segments) and segments[n_system].role == "system":
        n_system += 1
    if any(s.role != "user" for s in segments[n_system:]):
        raise BackendError(
            "a system segment follows a user segment; system segments must come first"
        )
    return n_system


def chat_messages(segments: Sequence[Segment]) -> list[dict[str, str]]:
    """The system and user message the segments form (for servers that apply the template)."""
    n_system = count_system(segments)
    messages = []
    if n_system:
        messages.append({"role": "system", "content": "".join(s.text for s in segments[:n_system])})
    messages.append({"role": "user", "content": "".join(s.text for s in segments[n_system:])})
    return messages


def eos_ids(tokenizer: Any) -> set[int]:
    """End-of-sequence ids: mlx-lm's `eos_token_ids` (a set) or HF's (an int or a list)."""
    found: set[int] = set()
    for name in ("eos_token_ids", "eos_token_id"):
        value = getattr(tokenizer, name, None)
        if isinstance(value, int):
            found.add(value)
        elif value:
            found.update(int(i) for i in value)
    return found


def _has_chat_template(tokenizer: Any) -> bool:
    flag = getattr(tokenizer, "has_chat_template", None)
    if isinstance(flag, bool):
        return flag
    return getattr(tokenizer, "chat_template", None) is not None


def _render(tokenizer: Any, messages: list[tuple[str, str]]) -> str | None:
    try:
        out = tokenizer.apply_chat_template(
            [{"role": r, "content": c} for r, c in messages],
            tokenize=False,
            add_generation_prompt=True,
        )
    except Exception:  # a template may raise on a role it does not support
        return None
    return out if isinstance(out, str) else None


def _in_order(text: str, first: str, second: str) -> bool:
    if text.count(first) != 1 or text.count(second) != 1:
        return False
    return text.index(first) + len(first) <= text.index(second)


def _control_ids(tokenizer: Any, frame: ChatFrame, backend: Any) -> frozenset[int]:
    """Ids that must never come from data: special tokens, EOS/BOS and the template's markers."""
    ids: set[int] = set(getattr(tokenizer, "all_special_ids", []) or [])
    for name in ("eos_token_id", "bos_token_id", "pad_token_id"):
        value = getattr(tokenizer, name, None)
        if isinstance(value, int):
            ids.add(value)
    ids.update(eos_ids(tokenizer))
    added = {int(k) for k in (getattr(tokenizer, "added_tokens_decoder", None) or {})}
    for piece in (frame.system_header, frame.system_to_user, frame.user_header):
        ids.update(i for i in backend.encode(piece, add_special_tokens=False).ids if i in added)
    ids.update(
        i
        for i in backend.encode(frame.generation_prompt, add_special_tokens=False).ids
        if i in added
    )
    return frozenset(ids)


def _added_control_strings(tokenizer: Any, control_ids: frozenset[int]) -> list[str]:
    decoder = getattr(tokenizer, "added_tokens_decoder", None) or {}
    found = [tok.content for i, tok in decoder.items() if int(i) in control_ids and tok.content]
    return sorted(found, key=len, reverse=True)


def _split_controls(text: str, control_ids: frozenset[int], backend: Any) -> list[str]:
    """Cut `text` inside every occurrence of a control token's string."""
    strings = [
        s for s in (backend.id_to_token(i) for i in control_ids) if s and len(s) > 1 and s in text
    ]
    if not strings:
        return [text]
    pattern = re.compile("|".join(re.escape(s) for s in sorted(strings, key=len, reverse=True)))
    pieces: list[str] = []
    last = 0
    for match in pattern.finditer(text):
        cut = match.start() + 1
        pieces.append(text[last:cut])
        last = cut
    pieces.append(text[last:])
    return pieces


def _bos_to_add(tokenizer: Any, backend: Any) -> int | None:
    """The BOS id when the tokenizer adds one on its own (the first segment carries it)."""
    bos = getattr(tokenizer, "bos_token_id", None)
    if not isinstance(bos, int):
        return None
    with_special = backend.encode("a", add_special_tokens=True).ids
    return bos if with_special[:1] == [bos] else None
