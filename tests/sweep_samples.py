"""Small PDFs, made with PyMuPDF, for the defects the sweep of unseen manuals found:
words broken at line ends, a Chinese running header whose section part changes, text
inside vector figures, a table drawn cell by cell that is read as a figure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pymupdf

W, H = 595.0, 842.0
LEFT = 72.0

# Line-end breaks: "num-ber" (the document writes "number" elsewhere: a broken word),
# "sub-line" and "texmf-dist" (written with their hyphen inside a line: real compounds),
# "well-known" (neither form elsewhere, both parts words of the document: a compound),
# "com-mand" in a list item, "argu-ment" across the page break, "Prob-lem" in a heading.
HEADING = ["The Prob-", "lem of Runs"]
PAGE1 = [
    "Counting the num-",
    "ber of runs is what this part is about; the number of runs grows",
    "with every sub-",
    "line of a table, and each sub-line has its own texmf-",
    "dist entry in the texmf-dist tree. This is a problem that is well",
    "known to users, a well-",
    "known problem of long documents that every argument about the",
    "layout must face, and that the next argu-",
]
PAGE2 = [
    "ment settles: the command reads the file once and writes each line.",
]
ITEM = ["- a com-", "mand per line is enough."]


def _lines(
    page: Any, y: float, texts: list[str], size: float = 11, font: str = "helv", x: float = LEFT
) -> float:
    for t in texts:
        page.insert_text((x, y), t, fontsize=size, fontname=font)
        y += size * 1.3
    return y


def build_hyphenated(path: Path) -> Path:
    """Two pages: a two-line heading (in the outline), a paragraph with line-end breaks
    running onto page 2, a list item with a break; page numbers at the foot."""
    doc = pymupdf.open()
    page = doc.new_page(width=W, height=H)
    _lines(page, 90, HEADING, size=16, font="hebo")
    _lines(page, 140, PAGE1)
    page.insert_text((W / 2, H - 40), "1", fontsize=9, fontname="helv")
    page = doc.new_page(width=W, height=H)
    y = _lines(page, 90, PAGE2) + 14
    _lines(page, y, ITEM)
    page.insert_text((W / 2, H - 40), "2", fontsize=9, fontname="helv")
    doc.set_toc([[1, "The Problem of Runs", 1]])
    doc.save(path)
    return path


# A Chinese package manual: the running header "第N 节 <section> <page>" changes its
# section part per section and its number per page, and is set larger (10.5 pt) than the
# commonest text (9 pt code notes), as in ctex.pdf; a paragraph crosses each page break.
ZH_SECTIONS = [(13, "用户手册"), (14, "代码实现")]
ZH_TOPICS = ["字体", "标题", "目录", "版式", "数字", "日期", "索引", "脚注", "附录", "参考"]
ZH_BREAK_START = "在下一页继续说明的。"


def _html(page: Any, rect: pymupdf.Rect, html: str) -> None:
    spare, _ = page.insert_htmlbox(rect, html)
    assert spare >= 0, "the text did not fit its box"


def zh_sentence(n: int) -> str:
    """A sentence that differs from page to page (running text repeats; prose does not)."""
    topic = ZH_TOPICS[n % len(ZH_TOPICS)]
    return f"{topic}的设置通过键值对完成，{ZH_TOPICS[(n * 3 + 1) % len(ZH_TOPICS)]}选项都有默认值"


def zh_break_end(n: int) -> str:
    """The foot of page n: a sentence left open, to go on after the next page's header."""
    return f"{zh_sentence(n)}，而\\labelformat 的定义是"


def build_cjk_headers(path: Path, pages_per_section: int = 4) -> Path:
    """Pages of two sections; each page: the header, a paragraph that starts with the end
    of the previous page's sentence, 9 pt notes, and a sentence left open at its foot;
    each section's first page opens with the section's heading."""
    doc = pymupdf.open()
    toc: list[list[Any]] = []
    for number, title in ZH_SECTIONS:
        for k in range(pages_per_section):
            page = doc.new_page(width=W, height=H)
            n = page.number + 1
            _html(
                page,
                pymupdf.Rect(130, 30, 553, 66),
                f'<p style="font-size:10.5pt">第{number} 节 {title}　　　　{n}</p>',
            )
            start = ZH_BREAK_START if n > 1 else ""
            head = ""
            if k == 0:
                toc.append([1, f"第{number} 节 {title}", n])
                head = f'<h2 style="font-size:15pt">第{number} 节 {title}</h2>'
            _html(
                page,
                pymupdf.Rect(130, 74, 553, 160),
                f'{head}<p style="font-size:10.5pt">{start}{zh_sentence(n)}。</p>',
            )
            notes = "".join(
                f"<p>option{i} = value{n}{i}, default {i * 7}; see key list {n}.</p>"
                for i in range(20)
            )
            _html(
                page, pymupdf.Rect(130, 170, 553, 700), f'<div style="font-size:9pt">{notes}</div>'
            )
            _html(
                page,
                pymupdf.Rect(130, 740, 553, 790),
                f'<p style="font-size:10.5pt">{zh_sentence(n + 5)}。{zh_break_end(n)}</p>',
            )
    doc.set_toc(toc)
    doc.save(path)
    return path


# A page with a plot (axes, ticks, a curve, tick labels "0 1 2 3" and "0 5 10", axis
# titles), a diagram (boxes joined by arrows, a "1." label), and a rounded box around a
# short note, which is no figure; prose above and below.
TICKS_X = ["0", "1", "2", "3"]
TICKS_Y = ["0", "5", "10"]
PROSE_ABOVE = "The plot below shows how the running time grows with the input size."
PROSE_BELOW = "As the plot shows, the growth is close to linear for small inputs."
NOTE = ["Note", "Short lines", "in a box"]
WARNING = ["Take care: this warning has a drawn icon beside it, and its", "last line is short."]


def _plot(page: Any, x0: float, y0: float, w: float, h: float) -> None:
    shape = page.new_shape()
    shape.draw_rect(pymupdf.Rect(x0, y0, x0 + w, y0 + h))
    for i, label in enumerate(TICKS_X):
        x = x0 + i * w / 3
        shape.draw_line((x, y0 + h), (x, y0 + h - 4))
        page.insert_text((x - 2, y0 + h + 12), label, fontsize=8, fontname="helv")
    for i, label in enumerate(TICKS_Y):
        y = y0 + h - i * h / 2
        shape.draw_line((x0, y), (x0 + 4, y))
        page.insert_text((x0 - 14, y + 3), label, fontsize=8, fontname="helv")
    points = [(x0 + i * w / 10, y0 + h - (i / 10) ** 1.3 * h) for i in range(11)]
    shape.draw_polyline(points)
    shape.finish(color=(0, 0, 0), width=0.6)
    shape.commit()
    page.insert_text((x0 + w / 2 - 20, y0 + h + 26), "size (MB)", fontsize=8, fontname="helv")


def _diagram(page: Any, x0: float, y0: float) -> None:
    shape = page.new_shape()
    for i, label in enumerate(["Parse", "Plan", "Write"]):
        x = x0 + i * 110
        shape.draw_rect(pymupdf.Rect(x, y0, x + 70, y0 + 30))
        page.insert_text((x + 12, y0 + 19), label, fontsize=9, fontname="helv")
        if i:
            shape.draw_line((x - 40, y0 + 15), (x, y0 + 15))
            shape.draw_polyline([(x - 6, y0 + 11), (x, y0 + 15), (x - 6, y0 + 19)])
            page.insert_text((x - 28, y0 + 10), f"{i}.", fontsize=8, fontname="helv")
    shape.finish(color=(0, 0, 0), width=0.6)
    shape.commit()


def build_figures(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=W, height=H)
    page.insert_text((LEFT, 80), "Measuring Growth", fontsize=16, fontname="hebo")
    page.insert_text((LEFT, 110), PROSE_ABOVE, fontsize=11, fontname="helv")
    _plot(page, 140, 150, 240, 160)
    page.insert_text((LEFT, 380), PROSE_BELOW, fontsize=11, fontname="helv")
    _diagram(page, 120, 430)
    box = page.new_shape()
    box.draw_rect(pymupdf.Rect(LEFT - 6, 520, 300, 580), radius=0.15)
    box.finish(color=(0, 0, 0.6), fill=(0.9, 0.9, 1.0), width=0.8)
    box.commit()
    _lines(page, 536, NOTE, size=10)
    warn = page.new_shape()  # a box with an icon drawn beside a paragraph: no figure
    warn.draw_rect(pymupdf.Rect(LEFT - 6, 600, 420, 650))
    warn.draw_polyline([(LEFT + 10 * (k % 2), 610 + 3 * k) for k in range(11)])
    warn.finish(color=(0.6, 0, 0), width=0.8)
    warn.commit()
    for k, line in enumerate(WARNING):
        page.insert_text((LEFT + 30, 616 + 13 * k), line, fontsize=10, fontname="helv")
    page.insert_text((W / 2, H - 40), "1", fontsize=9, fontname="helv")
    doc.set_toc([[1, "Measuring Growth", 1]])
    doc.save(path)
    return path


# Erlang's manuals (DocBook through FOP): a note is a green title band with a large bold
# "Note:" over a tinted body holding the note, each side of the box a line of its own (nine
# drawing items: a figure); a run-in "Example:" follows right below the box, then the
# module's next section title ("Data Types", as large as "Note:").
ADMONITION_SECTIONS = ["Data Types", "Exports"]
ADMONITION_EXAMPLE = "Example:"
ADMONITION_NOTES = [
    "Do not use any of the keys in these examples.",
    "These functions are meant for the shell only.",
]


def _admonition(page: Any, y: float, note: str) -> None:
    band, body = pymupdf.Rect(75, y, 535, y + 20), pymupdf.Rect(75, y + 20, 535, y + 46)
    shape = page.new_shape()
    shape.draw_rect(band)
    shape.finish(fill=(0.17, 0.54, 0.24), color=None)
    shape.draw_rect(body)
    shape.finish(fill=(0.97, 0.98, 0.98), color=None)
    for a, b in [
        ((75, y), (535, y)),
        ((535, y), (535, y + 20)),
        ((75, y), (75, y + 20)),
        ((535, y + 20), (535, y + 46)),
        ((75, y + 46), (535, y + 46)),
        ((75, y + 20), (75, y + 46)),
    ]:
        shape.draw_line(a, b)
        shape.finish(color=(0.29, 0.31, 0.34), width=1, closePath=False)  # one item each
    shape.commit()
    page.insert_text((78, y + 15), "Note:", fontsize=13.3, fontname="hebo", color=(1, 1, 1))
    page.insert_text((78, y + 37), note, fontsize=10, fontname="tiro")


def build_admonitions(path: Path, bookmarks: bool = False) -> Path:
    """`bookmarks`: each page's function bookmarked at its note's box, as one of Erlang's
    manuals does ("transport_accept/1" pointing at "Warning:")."""
    doc = pymupdf.open()
    toc: list[list[Any]] = []
    for n, (section, note) in enumerate(zip(ADMONITION_SECTIONS, ADMONITION_NOTES, strict=True)):
        page = doc.new_page(width=W, height=H)
        y = _lines(page, 110, [PROSE_ABOVE, PROSE_BELOW] * 3, size=10, font="tiro")
        _admonition(page, y + 10, note)
        page.insert_text((71, y + 66), ADMONITION_EXAMPLE, fontsize=10, fontname="tibo")
        page.insert_text((71, y + 90), section, fontsize=13.3, fontname="helv")
        _lines(page, y + 106, [PROSE_BELOW, PROSE_ABOVE] * 3, size=10, font="tiro")
        page.insert_text((W / 2, H - 40), str(n + 1), fontsize=9, fontname="helv")
        to = {"kind": pymupdf.LINK_GOTO, "to": pymupdf.Point(72, y + 8), "page": n}
        toc.append([1, f"function_{n}/1", n + 1, to])
    if bookmarks:
        doc.set_toc(toc)
    doc.save(path)
    return path


# Debian's live-manual PDFs draw almost no text (their fonts are missing): a page's only
# text is a large tilde where the bookmark of "9.1 Includes" points. A line of no letter or
# digit is no title: the tilde became "#### ˜" and the session title "̃".
TILDE_PROSE = "The chapter goes on with prose that a reader would study at length here."


def build_bookmark_at_a_symbol(path: Path) -> Path:
    doc = pymupdf.open()
    toc: list[list[Any]] = []
    for n, title in enumerate(["Getting started", "Includes"]):
        page = doc.new_page(width=W, height=H)
        page.insert_text((LEFT, 90), title if n == 0 else "~", fontsize=16, fontname="hebo")
        _lines(page, 130, [TILDE_PROSE] * 8)
        to = {"kind": pymupdf.LINK_GOTO, "to": pymupdf.Point(LEFT, 70), "page": n}
        toc.append([1, title, n + 1, to])
    doc.set_toc(toc)
    doc.save(path)
    return path


# A thesis template's sample figures: a framed, filled box holding one large letter (36 pt,
# the largest type of the document), "Figure 1.1: ..." right below it; on page 2 the
# caption sits above the box; no outline. The letters are figure text, no chapter headings.
CAPTIONED = ["Figure 1.1: A placeholder figure drawn as a box.", "Figure 2: Another placeholder."]
CAPTIONED_PROSE = "Some prose about the thesis, long enough to be a paragraph of its own here."


def _letter_box(page: Any, y0: float, letter: str) -> None:
    box = page.new_shape()
    box.draw_rect(pymupdf.Rect(250, y0, 322, y0 + 54))
    box.finish(color=(0, 0, 0), fill=(0.85, 0.85, 0.85), width=0.8)
    box.commit()
    page.insert_text((275, y0 + 40), letter, fontsize=36, fontname="helv")


def _centred(page: Any, y: float, text: str) -> None:  # under the box, as LaTeX sets it
    width = pymupdf.get_text_length(text, fontname="helv", fontsize=10)
    page.insert_text((286 - width / 2, y), text, fontsize=10, fontname="helv")


def build_captioned_boxes(path: Path) -> Path:
    doc = pymupdf.open()
    for n, title in enumerate(["Introduction", "Literature Review"]):
        page = doc.new_page(width=W, height=H)
        page.insert_text((LEFT, 80), title, fontsize=16, fontname="hebo")
        page.insert_text((LEFT, 110), CAPTIONED_PROSE, fontsize=11, fontname="helv")
        if n == 0:
            _letter_box(page, 150, "A")
            _centred(page, 216, CAPTIONED[0])
        else:
            _centred(page, 150, CAPTIONED[1])
            _letter_box(page, 160, "B")
        page.insert_text((LEFT, 260), CAPTIONED_PROSE, fontsize=11, fontname="helv")
    doc.save(path)
    return path


# A package manual whose commonest text is small (8 pt notes) and whose header sits in a
# drawn bar: "toolkit.sty" over the section's title (sections of one or two pages), a
# footer "N of 6" at 10 pt, and a numbered code listing starting right under the bar
# ("457 {": a code line, not page 3's number).
BANNER_SECTIONS = ["Options", "Options", "Commands", "Examples", "Examples", "Index"]


def build_banner_headers(path: Path) -> Path:
    doc = pymupdf.open()
    for n, section in enumerate(BANNER_SECTIONS, 1):
        page = doc.new_page(width=W, height=H)
        bar = page.new_shape()
        bar.draw_rect(pymupdf.Rect(0, 0, W, 72))
        bar.finish(fill=(0.85, 0.9, 1.0), color=None)
        for k in range(8):  # decoration drawn in the bar
            bar.draw_line((400 + 20 * k, 10), (410 + 20 * k, 60))
        bar.finish(color=(0.5, 0.5, 0.8), width=0.5)
        bar.commit()
        page.insert_text((46, 34), "toolkit.sty", fontsize=15.5, fontname="helv")
        page.insert_text((441, 60), section, fontsize=9, fontname="helv")
        y = 96.0
        for k in range(3):
            number = 455 + 10 * n + k
            page.insert_text((LEFT, y), str(number), fontsize=5.5, fontname="helv")
            code = "{" if k == 0 else f"\\def\\{section.lower()}{'ab'[k - 1] * n}{{}}"
            page.insert_text((LEFT + 20, y), code, fontsize=8, fontname="cour")
            y += 10
        notes = [f"note {n}.{k}: the key list of this part has {k + 3} entries" for k in range(30)]
        _lines(page, 140, notes, size=8)
        page.insert_text((485, 810), f"{n} of 6", fontsize=10, fontname="helv")
    doc.set_toc([[1, s, n] for n, s in enumerate(BANNER_SECTIONS, 1) if n in (1, 3, 4, 6)])
    doc.save(path)
    return path


def build_long_listing(path: Path, pages: int = 8) -> Path:
    """A Courier listing that runs over `pages` pages without a break."""
    doc = pymupdf.open()
    n = 0
    for _ in range(pages):
        page = doc.new_page(width=W, height=H)
        y = 80.0
        while y < H - 80:
            n += 1
            page.insert_text(
                (LEFT, y), f"font{n:04d}   Family-{n % 7}   {n * 3}", fontsize=9, fontname="cour"
            )
            y += 11
    doc.save(path)
    return path


# A reference manual whose running header names the current section, without a page
# number (that is at the foot): "6.2 Compound Entry Sets" heads the one page of its short
# section, between runs of "6.1 ..." and "6.3 ..." headers (bib2gls).
SECTION_HEADERS = [
    ("6.1 Entry Definitions", 4),
    ("6.2 Compound Entry Sets", 1),
    ("6.3 Location Lists and Cross-References", 4),
]


def build_section_headers(path: Path) -> Path:
    """One page per entry of SECTION_HEADERS' runs: the header (the section's title, at
    the same height on every page), the section's heading on its first page, prose that
    differs from page to page, and the page number at the foot."""
    doc = pymupdf.open()
    toc: list[list[Any]] = []
    for title, pages in SECTION_HEADERS:
        for k in range(pages):
            page = doc.new_page(width=W, height=H)
            n = page.number + 1
            page.insert_text((72, 40), title, fontsize=9)
            y = 90.0
            if k == 0:
                toc.append([1, title, n])
                page.insert_text((72, y), title, fontsize=14)
                y += 30
            for i in range(24):
                line = f"Entry {n}.{i}: the command sets option {i} of block {n * 31 + i}."
                page.insert_text((72, y + 22 * i), line, fontsize=10)
            page.insert_text((W / 2, H - 30), str(n + 300), fontsize=9)
    doc.set_toc(toc)
    doc.save(path)
    return path


# A manual whose running header ("N Making Graphics" / "4.2 Graphics Packages N") sits
# over a rule, and whose page 3 holds a TikZ-like picture: a grid clipped to a small window
# but drawn far beyond it, up past the header (lshort's \clip example), with labels.
GRAPHICS_HEADERS = ["Making Graphics", "4.2 Graphics Packages"]
PICTURE_LABELS = ["A", "B", "C"]


def _clipped_grid(doc: Any, page: Any, window: pymupdf.Rect) -> None:
    """A hatching of 30 slanted lines spanning most of the page, clipped to `window` (raw
    operators: PyMuPDF's shapes cannot clip)."""
    x0, x1 = window.x0, window.x1
    bottom, top = H - window.y1, H - window.y0  # PDF space: y grows upwards
    ops = [f"q {x0:.1f} {bottom:.1f} {x1 - x0:.1f} {top - bottom:.1f} re W n 0.5 w"]
    for k in range(30):
        x = 40 + 18 * k
        ops.append(f"{x} 100 m {x + 60} {H + 60:.0f} l")
    ops.append("S Q")
    page.clean_contents()
    xref = page.get_contents()[0]
    doc.update_stream(xref, doc.xref_stream(xref) + ("\n" + "\n".join(ops) + "\n").encode())


def build_clipped_figure(path: Path, pages: int = 6) -> Path:
    doc = pymupdf.open()
    for n in range(1, pages + 1):
        page = doc.new_page(width=W, height=H)
        left, right = (
            (f"{n + 100}", GRAPHICS_HEADERS[0])
            if n % 2 == 0
            else (GRAPHICS_HEADERS[1], f"{n + 100}")
        )
        page.insert_text((LEFT, 50), left, fontsize=10, fontname="helv")
        page.insert_text((W - LEFT - 60, 50), right, fontsize=10, fontname="helv")
        rule = page.new_shape()
        rule.draw_line((LEFT, 56), (W - LEFT, 56))
        rule.finish(color=(0, 0, 0), width=0.4)
        rule.commit()
        lines = [
            f"Paragraph {n}.{k}: drawing commands draw the picture line by line." for k in range(8)
        ]
        y = _lines(page, 100, lines)
        if n == 3:
            window = pymupdf.Rect(300, y + 20, 480, y + 160)
            _clipped_grid(doc, page, window)
            for k, label in enumerate(PICTURE_LABELS):
                page.insert_text((320 + 50 * k, y + 90), label, fontsize=9, fontname="helv")
            y += 180
        _lines(page, y, [f"More text on page {n}, after the picture." for _ in range(6)])
    doc.save(path)
    return path


# A plot whose curves climb past the running header to the top of the page (pst-news10's
# piece-wise functions; its header rule is an image there, no path): the header row,
# wider than the plot on both sides, is no text of the plot's.
PLOT_HEADER = "7. The PostScript header files"
PLOT_LABELS = ["x", "y"]


def build_plot_over_header(path: Path, pages: int = 5) -> Path:
    doc = pymupdf.open()
    for n in range(1, pages + 1):
        page = doc.new_page(width=W, height=H)
        page.insert_text((LEFT, 50), PLOT_HEADER, fontsize=9, fontname="helv")
        page.insert_text((W - LEFT - 12, 50), f"{n + 16}", fontsize=9, fontname="helv")
        y = 100.0
        if n == 3:
            plot = page.new_shape()
            plot.draw_line((200, 360), (400, 360))  # the axes
            plot.draw_line((300, 160), (300, 560))
            for k in range(8):  # curves, two of them running off the top of the page
                top = 0 if k < 2 else 200 + 10 * k
                plot.draw_line((210 + 20 * k, 540), (230 + 20 * k, top))
            plot.finish(color=(0, 0, 1), width=0.5)
            plot.commit()
            page.insert_text((404, 364), PLOT_LABELS[0], fontsize=9, fontname="helv")
            page.insert_text((304, 158), PLOT_LABELS[1], fontsize=9, fontname="helv")
            y = 600.0
        _lines(
            page,
            y,
            [f"Paragraph {n}.{k}: the header files define the operators." for k in range(6)],
        )
    doc.save(path)
    return path


# Slides whose frame title repeats while a frame runs over several slides; on slide 3 a
# drawing at the top of the slide (a picture placed over the title area) takes the title
# into its figure text, whose block then has the drawing's box (beamer-verona).
SLIDE_W, SLIDE_H = 363.0, 272.0
SLIDE_TITLE = "The sidebar option"


def build_slide_titles(path: Path, slides: int = 5) -> Path:
    doc = pymupdf.open()
    for n in range(1, slides + 1):
        page = doc.new_page(width=SLIDE_W, height=SLIDE_H)
        page.insert_text((8, 22), SLIDE_TITLE, fontsize=14, fontname="helv")
        if n == 3:
            art = page.new_shape()
            for k in range(10):
                art.draw_line((150 + 20 * k, 0), (160 + 20 * k, 46))
            art.finish(color=(0.5, 0.5, 0.8), width=0.5)
            art.draw_line((8, 46), (SLIDE_W, 46))
            art.finish(color=(0.5, 0.5, 0.8), width=0.5)
            art.commit()
        lines = [f"Slide {n}, point {k}: the sidebar shows graphic {n * 10 + k}." for k in range(8)]
        _lines(page, 70, lines, size=9)
    doc.save(path)
    return path


# ConTeXt's slide manuals (metafun-s): a ring of filled bars frames every slide (title bar,
# side bars, footer bar), the running header "Page N" and the section's name sit in the
# title bar, and the text under it has short lines ("This time we used the path:").
FRAMED_SECTIONS = ["Paths"] * 3 + ["Transformations"] * 3
FRAMED_SHORT = "This time we used the path:"


def build_framed_slides(path: Path) -> Path:
    doc = pymupdf.open()
    for n, section in enumerate(FRAMED_SECTIONS, 1):
        page = doc.new_page(width=SLIDE_W, height=SLIDE_H)
        chrome = page.new_shape()
        for x0, y0, x1, y1 in [
            (0, 0, SLIDE_W, 27),
            (0, SLIDE_H - 24, SLIDE_W, SLIDE_H),
            (0, 0, 37, SLIDE_H),
            (SLIDE_W - 33, 0, SLIDE_W, SLIDE_H),
        ]:  # each bar a path of its own, drawn as ConTeXt does: four lines
            chrome.draw_polyline([(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)])
            chrome.finish(fill=(0.6, 0.6, 0.6), color=None, closePath=True)
        chrome.commit()
        page.insert_text((SLIDE_W - 180, 12), f"Page {n}", fontsize=10, fontname="helv")
        page.insert_text((SLIDE_W - 120, 12), section, fontsize=10, fontname="helv")
        lines = [
            f"Slide {n} explains the {k}th way to draw a path with control points."
            for k in range(4)
        ]
        y = _lines(page, 70, lines, size=8, x=50)
        page.insert_text((50, y + 20), FRAMED_SHORT, fontsize=8, fontname="helv")
    doc.save(path)
    return path


# groff's mom (slide-demo.pdf): a three-part header set as one line, its parts apart by
# runs of spaces, 171 characters in all (173 in the demo).
PADDED_HEADER = "Header left" + " " * 62 + "Creating slides with mom" + " " * 62 + "Header right"


def build_padded_headers(path: Path, pages: int = 6) -> Path:
    doc = pymupdf.open()
    for n in range(1, pages + 1):
        page = doc.new_page(width=W, height=H)
        page.insert_text((36, 40), PADDED_HEADER, fontsize=6, fontname="helv")
        _lines(
            page,
            100,
            [f"Slide {n} shows point {k} of the talk, set as a paragraph." for k in range(20)],
        )
    doc.save(path)
    return path


# A manual set in typewriter type (tkz-berge, NamedGraphs): its chapter titles are
# monospace lines at the outline's target points, and a two-line monospace footer, "tkz-berge
# AlterMundus" over the chapter's title, stands at the foot of every page. A code line of
# the text ("% Else") ends a few pages too.
TYPEWRITER_CHAPTERS = [("1 Macros and Vertices", 3), ("2 Edges in a Graph", 3), ("3 Classics", 3)]
TYPEWRITER_CODE_FOOT = "% Else"


def build_typewriter_book(path: Path) -> Path:
    doc = pymupdf.open()
    toc: list[list[Any]] = []
    for title, pages in TYPEWRITER_CHAPTERS:
        for k in range(pages):
            page = doc.new_page(width=W, height=H)
            n = page.number + 1
            y = 70.0
            if k == 0:
                page.insert_text((72, y), title, fontsize=12, fontname="cour")
                to = {"kind": pymupdf.LINK_GOTO, "page": n - 1, "to": pymupdf.Point(72, 58)}
                toc.append([1, title, n, to])
                y += 30
            for i in range(12):
                line = f"Sheet {n}, line {i}: the macro draws vertex {n * 13 + i} of the graph."
                page.insert_text((72, y + 18 * i), line, fontsize=10)
            for i in range(6):
                code = f"\\Vertex[x={i},y={n}]{{v{n}{i}}}"
                page.insert_text((90, y + 240 + 14 * i), code, fontsize=9, fontname="cour")
            if n % 3 == 1:
                page.insert_text((90, H - 110), TYPEWRITER_CODE_FOOT, fontsize=9, fontname="cour")
            foot = "tkz-berge" + " " * 30 + "AlterMundus"
            page.insert_text((72, H - 48), foot, fontsize=8, fontname="cour")
            page.insert_text((72, H - 38), title, fontsize=8, fontname="cour")
    doc.set_toc(toc)
    doc.save(path)
    return path


# LaTeX's A4 page sets the folio at 83-87 % of the height, above the bottom band (biber-ms,
# tikzpingus, mathastext: 1,132 page numbers left in 53 of the sweep's manuals). Page
# FOLIO_GAP has none, and its last line is a bare number equal to its page number: text.
FOLIO_Y = 0.845 * H
FOLIO_PAGES = 6
FOLIO_GAP = 5


def build_raised_folios(path: Path) -> Path:
    doc = pymupdf.open()
    for n in range(1, FOLIO_PAGES + 1):
        page = doc.new_page(width=W, height=H)
        for i in range(20):
            line = f"Step {n}.{i}: the reader counts {n * 17 + i} entries in block {i}."
            page.insert_text((72, 80 + 20 * i), line, fontsize=10)
        if n == FOLIO_GAP:
            page.insert_text((72, 520), "The number of entries on this sheet is", fontsize=10)
            page.insert_text((W / 2, 560), str(n), fontsize=10)
        else:
            page.insert_text((W / 2, FOLIO_Y), str(n), fontsize=10)
    doc.save(path)
    return path


# pst-optexp's pages carry their number in the running header; a chapter's first page has
# none and prints its number at the foot instead, at 84.6 % of the height: folios never
# two pages apart (9 left in the text). Page TEXT_NUMBER ends on a bare number too: text.
CHAPTER_OPENINGS = (1, 6, 12, 17)
CHAPTER_BOOK_PAGES = 20
TEXT_NUMBER = 9


def build_chapter_folios(path: Path) -> Path:
    doc = pymupdf.open()
    chapter = 0
    for n in range(1, CHAPTER_BOOK_PAGES + 1):
        page = doc.new_page(width=W, height=H)
        top = 110
        if n in CHAPTER_OPENINGS:
            chapter += 1
            page.insert_text((72, 150), f"{chapter}. Chapter number {chapter}", fontsize=20)
            page.insert_text((W - 100, FOLIO_Y), str(n), fontsize=10)
            top = 200
        else:
            page.insert_text((72, 60), f"{chapter}.1. Part of chapter {chapter}", fontsize=10)
            page.insert_text((W - 100, 60), str(n), fontsize=10)
        for i in range(16):
            line = f"In step {n}.{i} the reader counts {n * 17 + i} entries in block {i}."
            page.insert_text((72, top + 20 * i), line, fontsize=10)
        if n == TEXT_NUMBER:
            page.insert_text((72, 560), "The number of entries on this sheet is", fontsize=10)
            page.insert_text((W / 2, 600), str(n), fontsize=10)
    doc.save(path)
    return path


JOURNAL_PAGES = 8
JOURNAL_FOOTER = "Canadian Journal of Economics / Revue canadienne d'économique"
JOURNAL_AUTHORS = "AMS AND BORIS VEYTSMAN"


def build_journal_pages(path: Path) -> Path:
    """A journal's wide margins: the running header stands at 12.5-13.3 % of the height,
    set as the page number and the authors side by side on even pages (the number first,
    so the authors are not the page's top block); an unnumbered footer at 83.5 %."""
    doc = pymupdf.open()
    for n in range(1, JOURNAL_PAGES + 1):
        page = doc.new_page(width=612, height=792)
        if n % 2:
            page.insert_text((270, 104), f"SAMPLE PAPER {n}", fontsize=8)
        else:
            page.insert_text((243, 104.5), JOURNAL_AUTHORS, fontsize=8)
        for i in range(24):
            line = f"Lemma {n}.{i} bounds the group of order {n * 31 + i} by its {i}-th factor."
            page.insert_text((119, 130 + 21 * i), line, fontsize=10)
        page.insert_text((149, 668), JOURNAL_FOOTER, fontsize=8)
        if not n % 2:  # drawn last, as TeX's output routine may: a block of its own
            page.insert_text((119, 103.5), str(n), fontsize=8)
    doc.save(path)
    return path


SYNOPSIS_PAGES = (2, 3, 4)


def build_synopsis_labels(path: Path) -> Path:
    """latex2e-fr: "Synopsis :" over a line of code at the foot of three pages in a row,
    at 86.8-87.0 % of the height (inside the bottom band on one page, just above it on
    the others): text, whichever way its neighbours stand."""
    doc = pymupdf.open()
    for n in range(1, 7):
        page = doc.new_page(width=612, height=792)
        for i in range(26):
            page.insert_text(
                (90, 90 + 22 * i), f"Texte {n}.{i} de l'environnement {i}.", fontsize=10
            )
        if n in SYNOPSIS_PAGES:
            y = 700.0 if n == 3 else 698.5  # the label's top at 689.3 / 687.8
            page.insert_text((90, y), "Synopsis :", fontsize=10)
            page.insert_text((119, 714), f"\\\\begin{{env{n}}}", fontsize=10, fontname="cour")
    doc.save(path)
    return path


# A journal's review copy (lineno, as in aomart's sample): every line numbered in the left
# margin, small, the count running on across pages; then a page of numbered paragraphs
# (a number beside each paragraph's first line only), whose numbers are text and stay, and
# a page of a listing with its lines numbered, which keeps its numbers too.
NUMBERED_LINES_PER_PAGE = 30  # the test expects 1-30 and 31-60
NUMBERED_PARAGRAPHS = 4
_WORDS = [
    "graph",
    "vertex",
    "path",
    "edge",
    "tree",
    "cycle",
    "degree",
    "matrix",
    "spanning",
    "count",
    "walk",
    "bound",
]


# a listing of TeX (chhaya's) and of a CSV file (randomlist's), in a proportional face
LISTING = [f"\\RequirePackage{{{name}}}" for name in ("marathi", "glossaries", "xkeyval")]
LISTING += ["Name,FirstName,Result", "Aho,Alfred,A", "Babbage,Charles,A", "Chaitin,Gregory,B"]
LISTING += ["Dijkstra,Edsger,A", "Eckert,John,B"]


def prose_line(n: int) -> str:
    """A line of prose without digits, different for every n."""
    words = [_WORDS[(n * 7 + k * (n % 5 + 1)) % len(_WORDS)] for k in range(11)]
    return f"The {' '.join(words)} and so on"


def numbered_lines(pages: int = 2) -> list[str]:
    """The prose lines of `build_line_numbered`'s numbered pages, in order."""
    per = NUMBERED_LINES_PER_PAGE
    return [prose_line(n) + ("." if (n - 1) % 6 == 5 else "") for n in range(1, pages * per + 1)]


def build_line_numbered(path: Path, pages: int = 2) -> Path:
    doc = pymupdf.open()
    lines = numbered_lines(pages)
    line = 0
    for _ in range(pages):
        page = doc.new_page(width=W, height=H)
        for k in range(NUMBERED_LINES_PER_PAGE):
            y = 90 + 13 * k
            indent = 12 if k % 6 == 0 else 0  # a paragraph every six lines
            page.insert_text((LEFT + indent, y), lines[line], fontsize=10, fontname="tiro")
            line += 1
            number = str(line)  # set flush right, as lineno does: 1-9 and 10-60 share no x0
            x = LEFT - 8 - pymupdf.get_text_length(number, "helv", 7)
            page.insert_text((x, y), number, fontsize=7, fontname="helv")
    page = doc.new_page(width=W, height=H)
    y = 90.0
    for p in range(1, NUMBERED_PARAGRAPHS + 1):
        page.insert_text((LEFT - 18, y), str(p), fontsize=7, fontname="helv")
        for k in range(4 + p):  # paragraphs of different lengths
            text = prose_line(100 * p + k) + ("." if k == 3 + p else "")
            page.insert_text((LEFT + (12 if k == 0 else 0), y), text, fontsize=10, fontname="tiro")
            y += 13
        y += 8
    page = doc.new_page(width=W, height=H)
    for k, code in enumerate(LISTING):
        page.insert_text((LEFT - 14, 90 + 11 * k), str(k + 1), fontsize=7, fontname="helv")
        page.insert_text((LEFT, 90 + 11 * k), code, fontsize=9, fontname="helv")
    doc.save(path)
    return path


# GnuCash's guide (DocBook through Apache FOP): a table drawn cell by cell whose
# description column holds paragraphs ("specifi-" / "er." breaks a word in one): a
# described table. With its description column first (`described=False`), a cell of over
# 250 characters makes it no table for the finder, and its text is read as a figure's.
FOP_PROSE = "A specifier names the font; every specifier is a string that gtk accepts."
FOP_ROWS = [
    ("Name", "Type", ["Description"]),
    (
        "Font_n",
        "string",
        [
            "If supplied, this is the font used to",
            "print this specific text item. The",
            "field holds any string that gtk",
            "accepts as a font specifi-",
            "er. If this field is omitted, the",
            "default font is the font given in",
            "the Top section of the check file,",
            "or else the font that is set in the",
            "preferences dialog of the program.",
        ],
    ),
    ("Align_n", "string", ["One of left, center or right."]),
    ("Text_n", "string", ["The text to print, for an item", "of the type TEXT."]),
]


def build_fop_table(path: Path, described: bool = True) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=W, height=H)
    page.insert_text((LEFT, 80), "Check Formats", fontsize=16, fontname="hebo")
    page.insert_text((LEFT, 110), FOP_PROSE, fontsize=11, fontname="helv")
    shape = page.new_shape()
    # the (x0, x1) of the name, type and description columns
    name, kind, text = [(LEFT, 172), (172, 272), (272, 500)]
    if not described:
        text, name, kind = [(LEFT, 300), (300, 400), (400, 500)]
    y = 140.0
    for label, type_, lines in FOP_ROWS:
        bottom = y + 8 + 13 * len(lines)
        for x0, x1 in (name, kind, text):  # each cell drawn on its own, as FOP does
            shape.draw_rect(pymupdf.Rect(x0, y, x1, bottom))
        page.insert_text((name[0] + 4, y + 14), label, fontsize=10, fontname="helv")
        page.insert_text((kind[0] + 4, y + 14), type_, fontsize=10, fontname="helv")
        _lines(page, y + 14, lines, size=10, x=text[0] + 4)
        y = bottom
    shape.finish(color=(0, 0, 0), width=0.5)
    shape.commit()
    page.insert_text((W / 2, H - 40), "1", fontsize=9, fontname="helv")
    doc.set_toc([[1, "Check Formats", 1]])
    doc.save(path)
    return path


# A thesis set two-sided: every chapter opens on a right-hand page without a header, a
# blank page closes a chapter that ends on a right-hand page, and the left-hand pages carry
# the header (sample-doctor's "东南大学博士学位论文"): between two blank pages, a left page's
# nearest headers are four pages away.
THESIS_HEADER = "Doctoral Thesis of Southeast University"
THESIS_PAGES = "OHOHOHOBOHOBOHOH"  # O: chapter opening, H: left page with header, B: blank
THESIS_CHAPTERS = ["Abstract", "Background", "Introduction", "Methods", "Results", "Discussion"]
THESIS_CHAPTERS += ["Conclusions", "Acknowledgements"]


def build_blank_page_thesis(path: Path) -> Path:
    doc = pymupdf.open()
    toc: list[list[Any]] = []
    for kind in THESIS_PAGES:
        page = doc.new_page(width=W, height=H)
        n = page.number + 1
        if kind == "B":
            continue
        y = 90.0
        if kind == "O":
            title = THESIS_CHAPTERS[len(toc)]
            toc.append([1, title, n])
            page.insert_text((LEFT, 140), title, fontsize=16, fontname="hebo")
            y = 180.0
        else:
            page.insert_text((LEFT, 50), THESIS_HEADER, fontsize=9, fontname="helv")
        for i in range(20):
            line = f"Paragraph {n}.{i} argues step {i} of the case made on page {n} at length."
            page.insert_text((LEFT, y + 22 * i), line, fontsize=10, fontname="helv")
        page.insert_text((W / 2, H - 40), str(n), fontsize=9, fontname="helv")
    doc.set_toc(toc)
    doc.save(path)
    return path


# A Spanish book whose bookmarks keep babel's English names: the entry "Index" points at
# the page titled "Índice alfabético", just above the bold letter group "Símbolos" (lshort-cs:
# "Index" over "Rejstřík" and "Symboly"; lshort-a4, pt-lshort: "Índice", "Symbols").
LOCAL_INDEX_TITLE = "Índice alfabético"
LOCAL_INDEX_GROUP = "Símbolos"


def build_localised_index(path: Path, chapters: int = 3, pages: int = 6) -> Path:
    doc = pymupdf.open()
    toc: list[list[Any]] = []
    for c in range(1, chapters + 1):
        for k in range(pages):
            page = doc.new_page(width=W, height=H)
            y = 90.0
            if k == 0:
                title = f"{c} Capítulo sobre el tema {c}"
                toc.append([1, title, page.number + 1])
                page.insert_text((LEFT, y), title, fontsize=16, fontname="hebo")
                y += 40
            for i in range(24):
                line = f"Esta frase {i} del capítulo {c} explica la página {k} con cuidado."
                page.insert_text((LEFT, y + 22 * i), line, fontsize=10, fontname="helv")
    page = doc.new_page(width=W, height=H)
    page.insert_text((LEFT, 100), LOCAL_INDEX_TITLE, fontsize=20, fontname="hebo")
    page.insert_text((LEFT, 150), LOCAL_INDEX_GROUP, fontsize=10, fontname="hebo")
    for i in range(30):
        entry = f"\\orden{chr(97 + i % 26)}{i}, {2 + i % 17}, {3 + i % 11}"
        page.insert_text((LEFT, 170 + 18 * i), entry, fontsize=10, fontname="helv")
    # the bookmark's target: the index's anchor, at the letter group under the title
    index_page = page.number + 1
    toc.append(
        [1, "Index", index_page, {"kind": pymupdf.LINK_GOTO, "to": pymupdf.Point(LEFT, 140)}]
    )
    doc.set_toc(toc)
    doc.save(path)
    return path
