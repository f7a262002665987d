"""Limits that keep hostile input from exhausting a parser's memory.

A few hundred kilobytes can declare gigabytes: a DOCX is a zip whose members may inflate a
thousandfold, and a PDF image's stream may decode to billions of pixels. These limits are
checked on what the file *declares* (zip directory sizes, image dimensions), before
anything is inflated or decoded.
"""

from __future__ import annotations

# Images: Pillow's decompression-bomb threshold (2 x 89,478,485 pixels, about 13k x 13k).
# Bigger images are left out undecoded, with a parser note; the text is still parsed.
MAX_IMAGE_PIXELS = 178_956_970

# DOCX packages (zip): the sum of the members' declared uncompressed sizes, the size of one
# XML part (python-docx parses each into an lxml tree several times its size), and the
# number of members. Real textbooks are far below: the 109-page Debian handbook DOCX
# inflates to about 3 MB.
MAX_DOCX_UNCOMPRESSED_BYTES = 500_000_000
MAX_DOCX_XML_PART_BYTES = 100_000_000
MAX_DOCX_MEMBERS = 20_000
