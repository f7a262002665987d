"""Hostile EPUB and HTML input (issue 27): DRM, malformed XML, a missing spine item, a zip
bomb and external entities each fail alone, with their own code and no network access,
while a good book beside them completes."""

from __future__ import annotations

import io
import socket
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from epub_samples import chapter, epub_bytes, sample_chapters, sample_nav
from pipeline_utils import local_runtime

from quire.orchestrator.local import run_documents
from quire.shared.config import RunSettings
from quire.shared.errors import InputError
from quire.workers.execute import submit
from quire.workers.parse.epub import parse_epub_bytes
from quire.workers.parse.limits import MAX_DOCX_XML_PART_BYTES

ENC_NS = "http://www.w3.org/2001/04/xmlenc#"


def _drm() -> bytes:
    enc = (
        '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
        f'xmlns:enc="{ENC_NS}"><enc:EncryptedData>'
        f'<enc:EncryptionMethod Algorithm="{ENC_NS}aes128-cbc"/>'
        '<enc:CipherData><enc:CipherReference URI="OEBPS/ch1.xhtml"/></enc:CipherData>'
        "</enc:EncryptedData></encryption>"
    ).encode()
    return epub_bytes(sample_chapters(1), nav=sample_nav(1), extra={"META-INF/encryption.xml": enc})


def _malformed() -> bytes:
    chapters = sample_chapters(2)
    name, text = chapters[1]
    chapters[1] = (name, text.replace("</h1>", "</h2>", 1))
    return epub_bytes(chapters, nav=sample_nav(2))


def _missing_spine_item() -> bytes:
    return epub_bytes(sample_chapters(2), nav=sample_nav(2), spine_extra=["ch9.xhtml"])


def _bomb() -> bytes:
    """A chapter of 120 MB (over the part limit) that packs into about 120 KB."""
    size = MAX_DOCX_XML_PART_BYTES + (20 << 20)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        with z.open(zipfile.ZipInfo("OEBPS/ch1.xhtml"), "w", force_zip64=True) as member:
            member.write(b"<html><body><p>")
            block = b" " * (1 << 20)
            for _ in range(size >> 20):
                member.write(block)
            member.write(b"</p></body></html>")
    return out.getvalue()


def _xxe(url: str) -> bytes:
    text = chapter("One", "<p>&xxe; &local;</p>").replace(
        "<!DOCTYPE html>",
        f'<!DOCTYPE html [<!ENTITY xxe SYSTEM "{url}"><!ENTITY local SYSTEM "file:///etc/passwd">]>',
    )
    return epub_bytes([("ch1.xhtml", text)], nav=[(1, "One", "ch1.xhtml")])


class _Listener:
    """A loopback server that counts the connections an entity would make."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(5)
        self.sock.settimeout(0.2)
        self.connections = 0
        self.stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/entity.txt"

    def _serve(self) -> None:
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self.stop = True
        self.thread.join()
        self.sock.close()


@pytest.mark.parametrize(
    ("make", "code", "says"),
    [
        (_drm, "drm", "DRM-protected EPUB: META-INF/encryption.xml encrypts 1 resource"),
        (_missing_spine_item, "corrupt", "(OEBPS/ch9.xhtml) is missing from the archive"),
        (_bomb, "too_large", "EPUB part OEBPS/ch1.xhtml inflates to"),
    ],
    ids=["drm", "missing-spine-item", "zip-bomb"],
)
def test_hostile_epub_is_refused_with_its_code(
    make: Callable[[], bytes], code: str, says: str
) -> None:
    with pytest.raises(InputError) as refused:
        parse_epub_bytes(make(), "hostile.epub")
    assert refused.value.code == code and says in str(refused.value), str(refused.value)


def test_a_chapter_that_is_not_well_formed_is_read_as_html() -> None:
    """As e-readers show it (Debian's live-manual EPUBs, in ten languages, have an e-mail
    address in "<…>" unescaped; pandoc's an undeclared "epub:" prefix): not `corrupt`."""
    doc = parse_epub_bytes(_malformed(), "malformed.epub").document
    texts = [e.text for e in doc.elements]
    assert "# Chapter 1. Topic 1" in texts and "# Chapter 2. Topic 2" in texts
    assert sum("(2-13)" in t for t in texts) == 1  # the chapter's last paragraph
    warned = [n.message for n in doc.notes if n.kind == "warning"]
    assert any("chapter OEBPS/ch2.xhtml is not well-formed XML" in m for m in warned), warned
    assert not any("ch1.xhtml" in m for m in warned)


def test_adobe_rights_are_drm() -> None:
    data = epub_bytes(
        sample_chapters(1), nav=sample_nav(1), extra={"META-INF/rights.xml": b"<rights/>"}
    )
    with pytest.raises(InputError) as refused:
        parse_epub_bytes(data, "adept.epub")
    assert refused.value.code == "drm" and "Adobe ADEPT" in str(refused.value)


def test_external_entities_are_refused_without_touching_the_network(tmp_path: Path) -> None:
    listener = _Listener()
    try:
        with pytest.raises(InputError) as refused:
            parse_epub_bytes(_xxe(listener.url), "xxe.epub")
        page = tmp_path / "xxe.html"
        page.write_text(
            f'<!DOCTYPE html [<!ENTITY x SYSTEM "{listener.url}">]><html><body><p>&x;</p>'
            "</body></html>",
            encoding="utf-8",
        )
        from quire.workers.parse import parse_document

        with pytest.raises(InputError) as refused_html:
            parse_document(page)
    finally:
        listener.close()
    assert refused.value.code == "unsafe_xml" and "OEBPS/ch1.xhtml" in str(refused.value)
    assert refused_html.value.code == "unsafe_xml"
    assert listener.connections == 0


def test_hostile_books_fail_alone_in_the_pipeline(tmp_path: Path) -> None:
    rt = local_runtime(tmp_path)
    listener = _Listener()
    bad = {
        "drm.epub": (_drm(), "drm"),
        "missing.epub": (_missing_spine_item(), "corrupt"),
        "bomb.epub": (_bomb(), "too_large"),
        "xxe.epub": (_xxe(listener.url), "unsafe_xml"),
        "notzip.epub": (b"PK\x03\x04 and nothing of a zip", "corrupt"),
    }
    ids = {}
    try:
        for name, (data, _) in bad.items():
            (tmp_path / name).write_bytes(data)
            ids[name] = submit(rt, tmp_path / name, RunSettings()).doc_id
        good_path = tmp_path / "good.epub"
        good_path.write_bytes(epub_bytes(sample_chapters(3), nav=sample_nav(3)))
        good = submit(rt, good_path, RunSettings()).doc_id
        run_documents(rt, [*ids.values(), good], processes=1)
    finally:
        listener.close()
    assert rt.repo.load(good).state == "complete", rt.repo.load(good).error
    for name, doc_id in ids.items():
        s = rt.repo.load(doc_id)
        assert (s.state, s.error_code) == ("failed", bad[name][1]), (name, s.error)
        assert s.error and name in s.error
    assert listener.connections == 0
