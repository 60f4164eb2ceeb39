"""The long form an abbreviation in parentheses stands for: "Write-Ahead Logging (WAL)".

`long_form` is the Schwartz–Hearst algorithm (A. Schwartz, M. Hearst, "A simple algorithm for
identifying abbreviation definitions in biomedical text", PSB 2003): each letter or digit of
the short form, from its last to its first, is found in the words before the parenthesis,
right to left, the first one at the start of a word; the long form runs from that word to the
parenthesis. It reads what initials alone miss: hyphened words ("point-in-time recovery" of
PITR), letters inside a word ("Multiversion Concurrency Control" of MVCC). Where the initials
of the last words spell the short form, those words are the long form ("Serializable Snapshot
Isolation" of SSI, where the algorithm alone stops at "Snapshot Isolation", its second S
inside "Snapshot"); else the fewest words the algorithm accepts (it alone reads "the next …
transaction ID" for TXID, its X in "next").

One extension, named: an `X` of the short form that the long form does not spell is skipped
(`SKIPPED_LETTER`): X stands for trans-, cross- or ex- by convention ("transaction ID" of
TXID, "Lite Transaction Files" of LTX), letters no initial gives. Only one, never the first,
and only in a short form of three letters or more: two others must be found.
"""

from __future__ import annotations

import re

SKIPPED_LETTER = "x"  # a letter a short form may hold without the long form spelling it
_MAX_SHORT = 10
_EDGES = "_*`'\""  # emphasis and quotes around the long form: "_transaction ID_ (TXID)"


def long_form(short: str, before: str) -> str | None:
    """The words at the end of `before` that `short` abbreviates, or None: at most
    min(|short| + 5, 2 × |short|) words (Schwartz–Hearst), those whose initials spell it first,
    else the fewest the algorithm accepts; longer than the short form, not containing it."""
    short = short.strip()
    if not 2 <= len(short) <= _MAX_SHORT or not short[0].isalnum():
        return None
    if not any(c.isalpha() for c in short):
        return None
    words = before.split()
    tails = [" ".join(words[-n:]) for n in range(1, min(len(short) + 5, 2 * len(short)) + 1)]
    letters = "".join(c for c in short.casefold() if c.isalnum())
    for tail in tails:
        if _initials(tail) == letters:
            return _valid(short, tail.strip(_EDGES))
    for tail in tails:
        if (found := _schwartz_hearst(short, tail)) is not None:
            return _valid(short, found)
    return None


def _letters(short: str) -> int:
    return sum(c.isalnum() for c in short)


def _initials(text: str) -> str:
    return "".join(w[0] for w in re.findall(r"[^\W_]+", text.casefold()))


def _valid(short: str, found: str) -> str | None:
    if len(found) <= len(short) or short.casefold() in found.casefold().split():
        return None
    return found


def _schwartz_hearst(short: str, candidate: str) -> str | None:
    """The long form of `short` in `candidate` by the algorithm, from the word its first
    letter begins; None where a letter is not found (but one `SKIPPED_LETTER`)."""
    s, at = len(short) - 1, len(candidate) - 1
    skipped = False
    while s >= 0:
        c = short[s].casefold()
        if not c.isalnum():
            s -= 1
            continue
        k = at
        while k >= 0 and (
            candidate[k].casefold() != c or (s == 0 and k > 0 and candidate[k - 1].isalnum())
        ):
            k -= 1
        if k < 0:
            if c == SKIPPED_LETTER and s > 0 and not skipped and _letters(short) >= 3:
                skipped, s = True, s - 1
                continue
            return None
        at, s = k - 1, s - 1
    return candidate[candidate.rfind(" ", 0, at + 1) + 1 :].strip(_EDGES)


def abbreviates(short: str, name: str) -> bool:
    """Whether `short` is the abbreviation of the whole of `name`, a name of two words or more
    (`long_form` finds all of its words): LTX of "Lite Transaction Files", not of "Files", nor
    of "Litestream" (its L and T in one word: the model's alias LTX had merged the Litestream
    page into the LTX one)."""
    words = name.strip().strip(_EDGES).split()
    found = long_form(short, name)
    return len(words) >= 2 and found is not None and found.split() == words
