from __future__ import annotations

from wikic.language import grounding as g
from wikic.vault.names import name_key

TEXT = (
    "# Notes\n\nThe KV cache grows with every token. Gemma 3 uses sliding windows, and "
    "prefix caching reuses a stored prefix. Most agents keep logs. We met Andrej Karpathy.\n"
)


def test_clean_name_drops_generic_and_leading_words() -> None:
    assert g.clean_name("the KV cache") == "KV cache"
    assert g.clean_name("Most agents") == "agents"
    for junk in ("entity", "Concepts", "the topic", "  ", "123", "a b c d e f g h"):
        assert g.clean_name(junk) is None, junk


def test_names_in_and_mentions_ignore_case_and_plurals() -> None:
    assert g.names_in(["kv caches"], TEXT) and g.names_in(["Prefix Caching"], TEXT)
    assert not g.names_in(["rotating cache"], TEXT)
    assert g.mentions(["KV cache"], "A rotating KV cache keeps the last window.")
    assert not g.mentions(["Episodic memory"], "Semantic memory is indexed by concept.")
    assert name_key("caches") == name_key("cache") and name_key("entities") == name_key("entity")


def test_two_words_snowball_stems_alike_are_not_one_name() -> None:
    # "specification" and "specific" are both `specif`: a page "Specification" gathered every
    # sentence saying "specific" (held-out code-only compile, before this check)
    assert name_key("specification") == name_key("specific")
    assert not g.mentions(["Specification"], "It installs the application's specific files.")
    assert not g.names_in(["specification"], "A specific value is used.")
    assert not g.mentions(["Python installation"], "The Python installers include pip.")
    # inflections of one word still name it
    assert g.mentions(["Specification"], "Both specifications define it.")
    assert g.mentions(["cache"], "Caching is turned off.")
    assert g.mentions(["commit"], "Each transaction is committed.")
    assert g.names_in(["retention policy"], "retention policies apply")


def test_guess_type_reads_capitalisation() -> None:
    assert g.guess_type("Andrej Karpathy", TEXT, "concept") == "entity"
    assert g.guess_type("prefix caching", TEXT, "entity") == "concept"
    assert g.guess_type("KV cache", TEXT, "entity") == "concept"
    assert g.guess_type("Notes", TEXT, "concept") == "concept"  # only at a line start: keep


def test_grounded_summaries() -> None:
    facts = "Gemma 3 uses sliding windows of 512 tokens in its local layers."
    assert g.grounded("Gemma 3 uses sliding windows in local layers.", facts)
    assert not g.grounded("The LLM wiki pattern was described by Andrej Karpathy.", facts)
    assert not g.grounded("", facts)


def test_related_aliases() -> None:
    assert g.related("KV caches", "KV cache") and g.related("Gemma three", "Gemma 3")
    assert g.related("KV", "key value") and g.related("large language model", "LLM")
    assert not g.related("Hybrid models", "Gemma 3") and not g.related("model", "Gemma 3")


def test_a_short_flag_is_another_name_for_its_long_form() -> None:
    assert g.related("-t", "--threads") and g.related("-ctk", "--cache-type-k")
    assert g.related("--n-gpu-layers", "-ngl")
    assert not g.related("-x", "--threads") and not g.related("-r", "--output")


def test_clean_name_keeps_balanced_brackets() -> None:
    assert g.clean_name("Quiescent-State Based Reclamation (QSBR)") == (
        "Quiescent-State Based Reclamation (QSBR)"
    )
    assert g.clean_name("(QSBR)") == "QSBR" and g.clean_name("QSBR)") == "QSBR"
    assert g.clean_name("Reclamation (QSBR") == "Reclamation"  # a cut-off parenthetical goes
    assert g.clean_name("f(x)") == "f(x)"


def test_a_parenthetical_that_is_another_name_becomes_an_alias() -> None:
    assert g.split_abbreviation("Quiescent-State Based Reclamation (QSBR)") == (
        "Quiescent-State Based Reclamation",
        ("QSBR",),
    )
    assert g.split_abbreviation("Byte pair encoding (BPE)") == ("Byte pair encoding", ("BPE",))
    # its letters in order, not its initials (`abbreviations.long_form`)
    assert g.split_abbreviation("Lite Transaction Files (LTX)") == (
        "Lite Transaction Files",
        ("LTX",),
    )
    assert g.split_abbreviation("Installing on Linux (USB)") == ("Installing on Linux (USB)", ())
    # not another name for it: the name keeps its (balanced) parenthetical
    assert g.split_abbreviation("SentencePiece (Unigram)") == ("SentencePiece (Unigram)", ())


def test_a_shortened_code_name_is_related_to_its_words() -> None:
    assert g.related("wr_seq", "Global Write Sequence") and g.related(
        "rd_seq", "Global Read Sequence"
    )
    assert g.related("cg_cranelift", "rustc_codegen_cranelift")
    assert not g.related("rd_seq", "Global Write Sequence")
    assert not g.related("qsbr_goal", "deferred-free list")


def test_an_abbreviation_by_its_letters_is_related_both_ways() -> None:
    # not the initials: "ti" of "transaction ID"; the page "Transaction ID" had lost its alias
    assert g.related("TXID", "Transaction ID") and g.related("Transaction ID", "TXID")
    assert g.related("WAL", "Write-ahead logging")
    assert not g.related("TXID", "Write-ahead logging")
    assert not g.related("SSI", "Snapshot")
