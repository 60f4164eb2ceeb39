"""The one stop list and the one stemmer (language/stopwords.py, language/stemming.py), stated
on single words: what each set holds and why, and which forms one stem joins."""

from __future__ import annotations

import pytest

from wikic.language import stopwords as sw
from wikic.language.stemming import stem, stem_prefix
from wikic.vault.names import name_key


def test_every_purpose_builds_on_the_one_stop_list() -> None:
    assert sw.STOP_WORDS <= sw.TOPICLESS_WORDS and sw.STOP_WORDS <= sw.QUERY_STOP_WORDS
    assert sw.ARTICLES <= sw.STOP_WORDS
    assert sw.DETERMINERS <= sw.TOPICLESS_WORDS  # a determiner never starts a name


def test_function_words_are_stop_words_and_topic_words_are_not() -> None:
    assert {"the", "of", "which", "should", "doesn't", "us"} <= sw.STOP_WORDS
    # words a corpus topic name holds ("intern state", "working group", "free-threaded build")
    assert not {"state", "group", "system", "text", "free", "working", "keys"} & sw.STOP_WORDS


def test_a_word_a_question_turns_on_is_no_stop_word_but_starts_no_name() -> None:
    for word in ("without", "must", "never", "between"):
        assert word not in sw.QUERY_STOP_WORDS  # "What happens without a GPU?"
        assert word in sw.TOPICLESS_WORDS  # "Without X" names no "Without X"


def test_request_words_are_stop_words_of_a_query_only() -> None:
    assert {"tell", "explain", "list"} <= sw.QUERY_STOP_WORDS
    assert "list" not in sw.TOPICLESS_WORDS  # "deferred-free list" is a name


def test_light_verbs_and_months_start_no_name() -> None:
    assert {"use", "makes", "kept"} <= sw.TOPICLESS_WORDS
    assert {"march", "monday"} <= sw.CALENDAR_WORDS


def test_the_stemmed_stop_list_holds_the_stems_of_the_stop_words() -> None:
    assert stem("does") in sw.STOP_STEMS and stem("having") in sw.STOP_STEMS


@pytest.mark.parametrize(
    ("forms", "joined"),
    [
        (("added", "adds", "add"), True),
        (("cache", "caches", "caching"), True),
        (("interned", "interning", "intern"), True),
        (("entity", "entities"), True),
        (("persisted", "persist"), True),
        (("interned", "interpreter"), False),  # the 5-letter prefix made them one word
        (("token", "tokenizer"), True),  # a derivation Snowball joins
        (("repeat", "repetitions"), False),
    ],
)
def test_one_stem_joins_the_forms_of_a_word(forms: tuple[str, ...], joined: bool) -> None:
    assert (len({stem(f) for f in forms}) == 1) is joined


def test_stemming_ignores_case_and_leaves_code_words_alone() -> None:
    assert stem("Caches") == stem("caches")
    assert stem("LLMs") == stem("llm") and stem("PRs") == "pr"  # an abbreviation's plural
    assert stem("gguf") == "gguf" and stem("q4") == "q4"


def test_a_stem_prefix_reaches_the_derivations_a_stem_keeps_apart() -> None:
    assert stem_prefix("repeat") == "repe" and "repetitions".startswith(stem_prefix("repeat"))
    assert stem_prefix("gpu") == "gpu"  # never longer than the stem


def test_the_name_key_stems_the_last_word_only() -> None:
    assert name_key("The Prefix-Caches") == name_key("prefix cache") == "prefixcach"
    assert name_key("Caching layers") != name_key("Cache layers")  # only the last word
    assert name_key("Self-profiler") == name_key("self-profiling")
    assert name_key("Llama 2") != name_key("Llama 3")
