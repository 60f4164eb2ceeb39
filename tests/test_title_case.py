"""A lower-case common noun as a page title reads capitalised; a name the documents write in
lower case (code, a command, a sentence that starts with it) never changes
(`language.title_case`). English only."""

from __future__ import annotations

from wikic.language.title_case import capitalised_title
from wikic.vault.document import parse_document

DOC = parse_document(
    """# Storage

A dirty read sees data another transaction has not committed. The store keeps manifests of
every file.

rqlite is a distributed database. Run `uv lock` to pin versions, and set `top_p` low.

```sh
pip install cup
```
""",
    filename="storage.md",
)
OTHER = parse_document("# Other\n\nmanifests is the command that lists them.\n", filename="o.md")


def test_a_common_noun_is_capitalised() -> None:
    assert capitalised_title("dirty read", [DOC]) == "Dirty read"
    assert capitalised_title("manifests", [DOC]) == "Manifests"
    # a hyphen may be an identifier's (`mlx-lm`): left as it is
    assert capitalised_title("point-write statements", [DOC]) == "point-write statements"


def test_names_written_in_lower_case_stay() -> None:
    for name in ("rqlite", "uv lock", "top_p", "pip", "cup", "Storage", "roDB", ".venv"):
        assert capitalised_title(name, [DOC]) == name, name


def test_any_document_of_the_batch_can_show_a_name() -> None:
    assert capitalised_title("manifests", [DOC, OTHER]) == "manifests"


def test_words_of_comments_and_quoted_text_are_not_code() -> None:
    doc = parse_document(
        """# Quantize

Quantization shrinks a model; quantization costs accuracy.

```sh
# naive quantization using default settings
./quantize model.gguf Q4_K_M  // snapshot of the weights
python -c 'print("dirty read of the weights")' "requests[socks]"
```
""",
        filename="q.md",
    )
    assert capitalised_title("quantization", [doc]) == "Quantization"
    assert capitalised_title("snapshot", [doc]) == "Snapshot"
    assert capitalised_title("dirty read", [doc]) == "Dirty read"
    # the code itself still shows its names, a quoted word among them
    assert capitalised_title("python", [doc]) == "python"
    assert capitalised_title("requests", [doc]) == "requests"


def test_a_code_name_the_prose_capitalises_is_titled_so() -> None:
    doc = parse_document(
        """# Basic usage

Poetry helps you declare dependencies. Run `poetry add` to add one, and `poetry install`.
With Poetry you also get a lock file; Poetry never installs a Python interpreter, so bring
your own Python or python interpreter and run your code with `python app.py`. The pip tool and pip
freeze are what plain venv users run: `pip install cup`, then `pip freeze`.
""",
        filename="usage.md",
    )
    assert capitalised_title("poetry", [doc]) == "Poetry"
    assert capitalised_title("python", [doc]) == "Python"  # twice "Python", once "python"
    assert capitalised_title("pip", [doc]) == "pip"  # the prose writes it in lower case too
