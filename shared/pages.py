"""A span of source pages, first to last (both inclusive): one definition of what a page
range is and does, for the elements, sessions, chunks and contexts that span pages.

`PageRange` is a mixin, not a base model: each model keeps declaring `page_first` and
`page_last` where they always stood, because a pydantic base model's fields serialise
first and would reorder every JSON file and tool output written with them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING


class PageRange:
    """Behaviour of anything with `page_first` <= `page_last` (1-based source pages)."""

    __slots__ = ()

    if TYPE_CHECKING:  # declared by the model mixing it in (see the module docstring)
        page_first: int
        page_last: int

    @property
    def page_numbers(self) -> range:
        """Every page of the span, in order."""
        return range(self.page_first, self.page_last + 1)

    @property
    def page_span(self) -> int:
        """How many pages the span touches."""
        return self.page_last - self.page_first + 1

    @property
    def pages_label(self) -> str:
        """The span as "first-last" (the same number twice for one page)."""
        return f"{self.page_first}-{self.page_last}"
