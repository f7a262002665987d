"""Image-only ("scanned") pages with known text, and password-protected PDFs, for the OCR,
"nothing lost silently" and password tests and for bench/bench_ocr.py.

`rasterize_pages` turns chosen pages of a born-digital PDF into pages that hold only a
grey image of themselves (no text layer, as a scanner makes them) and returns each such
page's text layer, which is then the known text OCR must find. The outline is kept.
"""

from __future__ import annotations

from pathlib import Path

from quire.workers.parse.pdf_open import pymupdf_module


def rasterize_pages(
    src: Path, dst: Path, pages: set[int] | None = None, *, dpi: int = 300
) -> dict[int, str]:
    """Copy `src` to `dst` with `pages` (1-based; None: all) replaced by images of
    themselves at `dpi`; returns {page: its text layer before}."""
    p = pymupdf_module()
    texts: dict[int, str] = {}
    with p.open(src) as doc, p.open() as out:
        for page in doc:
            n = page.number + 1
            if pages is not None and n not in pages:
                out.insert_pdf(doc, from_page=page.number, to_page=page.number)
                continue
            texts[n] = page.get_text()
            pix = page.get_pixmap(dpi=dpi, colorspace=p.csGRAY, alpha=False)
            image_page = out.new_page(width=page.rect.width, height=page.rect.height)
            image_page.insert_image(image_page.rect, stream=pix.tobytes("png"))
        out.set_toc(doc.get_toc())
        out.save(dst, garbage=3, deflate=True)
    return texts


def encrypt_pdf(src: Path, dst: Path, *, user: str, owner: str) -> Path:
    """`src` saved with AES-256 encryption; an empty `user` makes an owner-password-only
    PDF (opens without a password, permissions restricted)."""
    p = pymupdf_module()
    with p.open(src) as doc:
        doc.save(
            dst,
            encryption=p.PDF_ENCRYPT_AES_256,
            user_pw=user,
            owner_pw=owner,
            permissions=0 if not user else -1,
        )
    return dst
