"""What a PDF's parse says about itself: the parsers used page by page, and the notes a
reader of its IR should know (a repaired file, weak OCR, a garbled text layer, images left
out, outline entries not found)."""

from __future__ import annotations

from quire.shared.ir import ParserNote, ParserUse
from quire.workers.parse.limits import MAX_IMAGE_PIXELS
from quire.workers.parse.pdf_open import PdfMeta
from quire.workers.parse.pdf_types import PdfPage

LOW_OCR_CONFIDENCE = 70.0


def _runs(pages: list[PdfPage], flag: str) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for p in pages:
        if getattr(p, flag):
            if runs and runs[-1][1] == p.page - 1:
                runs[-1] = (runs[-1][0], p.page)
            else:
                runs.append((p.page, p.page))
    return runs


def parser_uses(pages: list[PdfPage]) -> list[ParserUse]:
    uses: list[ParserUse] = []
    for p in pages:
        last = uses[-1] if uses else None
        if last and last.parser == p.parser and last.reason == p.parser_reason:
            last.last_page = p.page
        else:
            uses.append(
                ParserUse(
                    first_page=p.page, last_page=p.page, parser=p.parser, reason=p.parser_reason
                )
            )
    return uses


_FLAG_NOTES = {
    "garbled": "text layer looks garbled (Latin-1 mojibake from fonts without a Unicode "
    "map): extracted text differs from the printed text",
    "presentation_forms": "right-to-left text is extracted as Arabic presentation forms in "
    "visual order: letter order and word spacing may be wrong",
    "unmapped": "many glyphs have no Unicode mapping (U+FFFD in the extracted text)",
    "codes": "the text layer is glyph codes (control characters from fonts with neither glyph "
    "names nor a Unicode map), not the printed text",
}


def parser_notes(meta: PdfMeta, pages: list[PdfPage], unmatched: list[int]) -> list[ParserNote]:
    notes: list[ParserNote] = []
    if meta.shown_layers:
        names = ", ".join(f"'{n}'" for n in meta.shown_layers[:5])
        more = f" and {len(meta.shown_layers) - 5} more" if len(meta.shown_layers) > 5 else ""
        notes.append(
            ParserNote(
                kind="warning",
                message=f"most of the text is in {len(meta.shown_layers)} optional-content "
                f"layers the PDF hides when opened ({names}{more}; a slide deck's steps are "
                "so); the text was read, and the PDF chunks show it, as with every layer on",
            )
        )
    if meta.repaired:
        notes.append(
            ParserNote(
                kind="warning",
                message=f"the PDF is damaged (e.g. a truncated download) and was repaired by "
                f"MuPDF when opened; {meta.page_count} pages recovered, content may be "
                "incomplete",
            )
        )
    if meta.source_sha256:
        notes.append(
            ParserNote(
                kind="info",
                message="the upload is password-protected: its pages were read from a "
                "decrypted copy made at submission (the password is not stored)",
            )
        )
    for ocr in (p.ocr for p in pages if p.ocr is not None):
        if ocr.confidence < LOW_OCR_CONFIDENCE:
            notes.append(
                ParserNote(
                    kind="warning",
                    message=f"OCR confidence {ocr.confidence:.0f} (below "
                    f"{LOW_OCR_CONFIDENCE:.0f}): the page's text may have many errors",
                    first_page=ocr.page,
                    last_page=ocr.page,
                )
            )
    for flag, message in _FLAG_NOTES.items():
        for a, b in _runs(pages, flag):
            notes.append(ParserNote(kind="warning", message=message, first_page=a, last_page=b))
    for use in parser_uses(pages):
        if use.reason:
            notes.append(
                ParserNote(
                    kind="fallback",
                    message=f"{use.parser}: {use.reason}",
                    first_page=use.first_page,
                    last_page=use.last_page,
                )
            )
    for attr, what in (
        ("decorative_images", "tiny decorative images left out"),
        ("inline_images", "inline images (no object id) left out"),
        ("oversized_images", f"images over {MAX_IMAGE_PIXELS:,} pixels left out, undecoded"),
    ):
        hit = [p for p in pages if getattr(p, attr)]
        if hit:
            total = sum(getattr(p, attr) for p in hit)
            notes.append(
                ParserNote(
                    kind="info",
                    message=f"{total} {what}",
                    first_page=hit[0].page,
                    last_page=hit[-1].page,
                )
            )
    if unmatched:
        pointing = [n for n in unmatched if meta.outline[n].page]
        if pointing:
            shown = "; ".join(meta.outline[n].title for n in pointing[:5])
            notes.append(
                ParserNote(
                    kind="info",
                    message=f"{len(pointing)} of {len(meta.outline)} outline entries were not "
                    f"found as a heading on their page (e.g. {shown})",
                )
            )
    return notes
