"""The words a chunk's key terms are chosen from, in any script.

Scripts written with spaces give their words of three or more letters. Chinese has no
spaces: jieba (a dictionary and HMM segmenter, imported only when Chinese text appears)
cuts each run of Han characters into words, and words of two or more characters that are
not function words count. Japanese (kana present) is cut by script: runs of two or more
kanji or katakana are its content words (compounds and loanwords); hiragana runs are
grammar. Splitting on spaces would make a whole Chinese sentence one "term".
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from typing import Any

from quire.shared.text import HAN, KANA

_SPACED = re.compile(rf"[^\W\d_{HAN}{KANA}]{{3,}}")
_HAN_RUN = re.compile(f"[{HAN}]+")
_JAPANESE = re.compile(r"[\u3040-\u30ff]")
_JAPANESE_TERM = re.compile(rf"[{HAN}]{{2,}}|[\u30a0-\u30ff\u31f0-\u31ff]{{2,}}")
# Chinese function words and fillers of two or more characters (single characters are
# never terms): pronouns, conjunctions, adverbs, measure phrases.
_ZH_STOP_WORDS = """
    我们 你们 他们 它们 这个 那个 这些 那些 这样 那样 这种 那种 这里 那里 什么 怎么 如何
    可以 可能 能够 需要 应该 必须 如果 因为 所以 但是 而且 或者 以及 并且 然后 因此 其中
    其他 其它 一个 一些 一种 一样 没有 不是 就是 还是 只是 也是 都是 已经 通过 进行 使用
    用于 对于 关于 由于 为了 之后 之前 以后 以前 以下 以上 下面 上面 例如 比如 所有 每个
    很多 许多 一般 通常 当然 自己 时候 现在 同时 另外 此外 不过 虽然 然而 即使 不同 相同
    这是 那是 就会 也会 还有 直接 非常 比较 一下 一直 注意 可见 看到 得到 不要 不能 不会
"""
_ZH_STOP = frozenset(_ZH_STOP_WORDS.split())
ZH_STOP = _ZH_STOP


@lru_cache(maxsize=1)
def _jieba() -> Any:
    import jieba  # ~1 s to load its dictionary: only for documents with Chinese text

    jieba.setLogLevel(logging.WARNING)
    return jieba


def jieba_words(run: str) -> list[str]:
    """A run of Chinese text cut into words by jieba."""
    return list(_jieba().lcut(run))


def words(text: str) -> list[str]:
    """The candidate term words of `text`, lower-cased, in order of appearance."""
    out = [w.lower() for w in _SPACED.findall(text)]
    if _JAPANESE.search(text):
        out += _JAPANESE_TERM.findall(text)
    elif _HAN_RUN.search(text):
        cut = _jieba().lcut
        for run in _HAN_RUN.findall(text):
            out += [w for w in cut(run) if len(w) >= 2 and w not in _ZH_STOP]
    return out
