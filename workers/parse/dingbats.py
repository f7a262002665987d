"""ZapfDingbats read as the symbols it draws, not as the numbers in its glyph names.

ZapfDingbats (and URW's Dingbats, which TeX's `pifont` uses) names its glyphs `/a1` to
`/a206` and a PDF seldom gives it a ToUnicode map. MuPDF reads a name `/aNN` of two or more
digits as the character NN, and for `/a1`…`/a9` gives the code: TeX for the Impatient's
pointing hand ☞ (`/a12`) came out as a form feed, `pifont`'s check mark ✔ (`/a20`) as
U+0014, an arrow ➥ (`/a175`) as "¯", ✡ as a line feed. The sweep met them in 13 of 348
manuals. The font's built-in encoding (below, by code) says which symbol each name draws.

Nine single-digit glyphs give their code, which is also the number of another glyph
(✁ `/a1` at code 33 and ✦ `/a33` both come out as "!"); the codes the font draws (its
widths) tell them apart, else the two-digit glyph is taken. A space is a space unless the
widths say it is ✥ (`/a32`).
"""

from __future__ import annotations

import re
from collections.abc import Collection

# ZapfDingbats' built-in encoding: the symbol at each code, from 33, 128 and 161 (code 240
# is empty), and the number of its glyph name (`/aNN`), in the same order.
_SYMBOLS = {
    33: "✁✂✃✄☎✆✇✈✉☛☞✌✍✎✏✐✑✒✓✔✕✖✗✘✙✚✛✜✝✞✟✠✡✢✣✤✥✦✧★✩✪✫✬✭✮✯✰✱✲✳✴✵✶✷✸✹✺✻✼✽✾✿❀❁❂❃❄❅❆❇❈❉❊❋"
    "●❍■❏❐❑❒▲▼◆❖◗❘❙❚❛❜❝❞",
    128: "❨❩❪❫❬❭❮❯❰❱❲❳❴❵",
    161: "❡❢❣❤❥❦❧♣♦♥♠①②③④⑤⑥⑦⑧⑨⑩❶❷❸❹❺❻❼❽❾❿➀➁➂➃➄➅➆➇➈➉➊➋➌➍➎➏➐➑➒➓➔→↔↕➘➙➚➛➜➝➞➟➠➡➢➣➤➥➦➧➨➩➪➫➬➭➮➯",
    241: "➱➲➳➴➵➶➷➸➹➺➻➼➽➾",
}
_NAMES = [
    *(1, 2, 202, 3, 4, 5, 119, 118, 117, 11, 12, 13, 14, 15, 16, 105, 17, 18, 19, 20, 21),
    *(22, 23, 24, 25, 26, 27, 28, 6, 7, 8, 9, 10, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38),
    *(39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59),
    *(60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 203, 75, 204, 76, 77),
    *(78, 79, 81, 82, 83, 84, 97, 98, 99, 100),
    *(89, 90, 93, 94, 91, 92, 205, 85, 206, 86, 87, 88, 95, 96),
    *(101, 102, 103, 104, 106, 107, 108, 112, 111, 110, 109, 120, 121, 122, 123, 124, 125),
    *(126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142),
    *(143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159),
    *(160, 161, 163, 164, 196, 165, 192, 166, 167, 168, 169, 170, 171, 172, 173, 162, 174),
    *(175, 176, 177, 178, 179, 193, 180, 199, 181, 200, 182),
    *(201, 183, 184, 197, 185, 194, 198, 186, 195, 187, 188, 189, 190, 191),
]
# (code, glyph number, symbol) of every glyph the encoding places
ENCODING = [
    (code, name, symbol)
    for (code, symbol), name in zip(
        ((start + i, s) for start, row in _SYMBOLS.items() for i, s in enumerate(row)),
        _NAMES,
        strict=True,
    )
]

# the font's names with or without a subset prefix: Adobe's, ITC's, URW's (TeX's `pzd`)
_FONT = re.compile(r"^(?:[A-Z]{6}\+)?(?:ITC-?)?(?:Zapf-?Dingbats|Dingbats|D050000L)\b", re.I)


def is_dingbats(font_name: str) -> bool:
    return bool(_FONT.match(font_name))


def dingbats_decoder(drawn: Collection[int] = ()) -> dict[int, str]:
    """A `str.translate` table from what MuPDF gives for a ZapfDingbats glyph to its
    symbol; `drawn`: the codes the font has widths for, when known."""
    table = {name: symbol for _, name, symbol in ENCODING if name >= 10}
    code_of = {name: code for code, name, _ in ENCODING}
    for code, name, symbol in ENCODING:
        # `/a1`…`/a9` give their code: theirs only when the glyph numbered so is not drawn
        if name < 10 and code in drawn and code_of[code] not in drawn:
            table[code] = symbol
    if code_of[32] not in drawn or 32 in drawn:
        del table[32]  # the font's space gives a space too: ✥ (`/a32`) only when sure
    return table
