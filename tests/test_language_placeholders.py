"""wikic.language.placeholders: the names a document invents to illustrate, and the titles of
its site's other pages, are no topics."""

from __future__ import annotations

import textwrap

from wikic.language.placeholders import made_up_names, site_page_titles, without
from wikic.vault.document import parse_document


def _made_up(text: str) -> tuple[str, ...]:
    return made_up_names(parse_document(textwrap.dedent(text).lstrip("\n"), filename="d.md"))


def test_names_the_document_calls_hypothetical_are_made_up() -> None:
    """pip's "Dealing with dependency conflicts" (scripts/data/overlap): the packages it
    calls hypothetical, once as their list and once in the note after the example."""
    assert _made_up(
        """
        This section uses hypothetical packages (`package_coffee`, `package_tea`, and
        `package_water`) to explain how pip resolves conflicts. Run `pip install` again.

        Note: `package_coffee==0.44.1` is hypothetical too; `pip install` fails on it.
        """
    ) == ("package_coffee", "package_tea", "package_water")


def test_names_an_example_box_brings_in_or_writes_most_are_made_up() -> None:
    """`cup` comes in inside the example box; `spoon` was listed once "e.g." before it and
    the box writes it twice; `pip` and the lock file are the document's own subjects, written
    more outside the box than in it; a line of output the box quotes names nothing."""
    assert _made_up(
        """
        Pip works out the dependencies (e.g. `spoon`) of what `pip` installs, as the
        `pylock.toml` file records them. `pip` backtracks; `pylock.toml` is the lock file.

        ````{admonition} Example
        `pip` picks `spoon`, then `cup`. The version of `cup` clashes with `spoon`.
        It records them in `pylock.toml`. The `Downloading cup-3.22.0` lines show it.
        ````

        Constrain `cup` to speed it up.
        """
    ) == ("cup", "spoon")


def test_a_document_without_examples_invents_nothing() -> None:
    """A real file named first in an "e.g." is not made up by that alone."""
    assert (
        _made_up(
            """
        Lock files (e.g. `poetry.lock`) pin every version. `poetry.lock` is committed.

        !!! tip
            Commit `poetry.lock` with the project.
        """
        )
        == ()
    )


def test_without_drops_a_made_up_name_and_a_command_line_naming_one() -> None:
    made_up = ["package_coffee", "cup"]
    assert without(["Package_Coffee", "pip", "cup", "pip install cup"], made_up) == ["pip"]


def test_a_title_the_document_writes_only_as_a_link_to_its_site_is_another_pages() -> None:
    """Litestream's "How it works" (scripts/data/overlap) sends the reader to its
    Configuration Reference twice and to Getting Started once; it discusses neither. A web
    address's text (`RFC 6838`), an anchor's, code (`SET TRANSACTION`), lower case and a title
    the prose also writes plainly keep their names."""
    doc = parse_document(
        textwrap.dedent(
            """
            Intervals are configurable; see the [Configuration Reference](/reference/config).
            Values comply with [RFC 6838](https://www.rfc-editor.org/rfc/rfc6838). Read
            [Static URLs](#static-urls), [`SET TRANSACTION`](/sql/set.md) and the
            [optional dependencies](./deps.md#optional). The [Lock File](./lock.md) is below.

            The Lock File pins versions.

            - [Getting Started](/getting-started) - Hands-on tutorial
            - [Configuration Reference](/reference/config) - Every option
            """
        ),
        filename="d.md",
    )
    assert site_page_titles(doc) == ("Configuration Reference", "Getting Started")
