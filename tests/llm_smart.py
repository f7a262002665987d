"""A fake OpenAI-compatible provider that *reads* its prompts and answers every Quire task
(topic review, boundary decision, chunk analysis, repair, study index) with a valid answer
built from the prompt, so whole documents can run on the `openai` backend over loopback.

Faults are scripted per task (the response schema's name: "ReviewAnswer",
"DecisionAnswer", "AnalysisAnswer", "RepairAnswer", "IndexAnswer"): `scripts[task]` is a
queue of replies sent before the task is answered properly (429s, timeouts, malformed
JSON...), and `always[task]` replaces every proper answer of that task (a persistent
fault, or an answer breaking the rules). `obey_injections` makes the model do what
instructions planted in the document tell it to. `refuse` names the response formats the
server refuses (as llama.cpp's refuses "json_schema"); `chatty` wraps every answer in
prose and a code fence, as small models answering in text do.
"""

from __future__ import annotations

import json
import re
from collections import Counter, deque
from collections.abc import Callable
from typing import Any

from llm_servers import FakeProvider, Reply, Request, answer, status

TASKS = ("ReviewAnswer", "DecisionAnswer", "AnalysisAnswer", "RepairAnswer", "IndexAnswer")

# A crude Latin -> Persian letter map: enough for Persian-script text that names the same
# terms as the English (what the analysis and index validators ask for).
_FA = dict(zip("abcdefghijklmnopqrstuvwyz", "ابکدیفگهیجکلمنوپقرستووویز", strict=True))
_FA["x"] = "کس"
_STOP_WORDS = """
the a an of and to in is that for with as by this on are be it from or at its into which
when where what while there their these those than then them they was were has have had
not but can will each other more most such only also about after before between edition
page pages chunk chunks element elements
"""
_STOP = set(_STOP_WORDS.split())
_WORD = re.compile(r"[A-Za-z][A-Za-z-]{3,}")
INJECTION = re.compile(r"ignore (?:all )?previous instructions", re.IGNORECASE)
INJECTED_ID = re.compile(r"cut (?:right )?after (?:element )?(el-\d+)", re.IGNORECASE)


def fa(word: str) -> str:
    return "".join(_FA.get(c, "") for c in word.lower()) or "متن"


def terms(text: str, n: int = 4) -> list[str]:
    """The most frequent content words of `text` (ties in order of appearance)."""
    counts = Counter(w.lower() for w in _WORD.findall(text) if w.lower() not in _STOP)
    return [w for w, _ in counts.most_common(n)] or ["material"]


def _review(user: str) -> dict[str, Any]:
    def ids(label: str) -> list[str]:
        m = re.search(rf"Ids you may cite in {label}: (.*)", user)
        return [i.strip() for i in m.group(1).split(",") if i.strip()] if m else []

    left, right = ids("evidence_left"), ids("evidence_right")
    before, _, after = user.partition("AFTER THE CUT")
    heading_next = re.search(r'<element id="[^"]+" type="heading">', after) is not None
    lt, rt = terms(before, 2), terms(after, 2)
    return {
        "verdict": "new_topic" if heading_next else "same_topic",
        "confidence": 0.8,
        "evidence_left": left[-1:],
        "evidence_right": right[:1],
        "reason": f"Before the cut the text works with {lt[0]} and {lt[-1]}; after it "
        f"the text turns to {rt[0]} and {rt[-1]}.",
    }


def _decide(user: str) -> dict[str, Any]:
    prompt = json.loads(user.split("\n\nYour previous answer was rejected")[0])
    cands = prompt.get("candidates", [])
    preferred = [c for c in cands if c.get("zone") == "preferred"] or cands
    if not preferred:
        return {"action": "extend", "element_id": None, "reason": "nothing to cut", "evidence": []}
    best = max(preferred, key=lambda c: (c.get("score", 0), -cands.index(c)))
    left, right = terms(best.get("left_snippet", ""), 1), terms(best.get("right_snippet", ""), 1)
    return {
        "action": "cut",
        "element_id": best["after_id"],
        "reason": f"The discussion of {left[0]} ends here and {right[0]} begins after it.",
        "evidence": [best["after_id"], best["before_id"]],
    }


def _analysis(user: str) -> dict[str, Any]:
    body = user.split("<chunk>", 1)[-1].split("</chunk>", 1)[0]
    t = terms(body, 4)
    while len(t) < 4:
        t.append(t[-1] + "s")
    return {
        "topic_en": f"{t[0].capitalize()} and {t[1]}",
        "topic_fa": f"{fa(t[0])} و {fa(t[1])}",
        "study_focus_en": f"Explain how {t[0]} relates to {t[1]} and {t[2]}, and apply "
        f"{t[3]} in worked examples.",
        "study_focus_fa": f"توضیح رابطه {fa(t[0])} با {fa(t[1])} و {fa(t[2])} و کاربرد "
        f"{fa(t[3])} در مثال‌ها",
        "coherence": "confident",
        "reason": f"The whole chunk stays with {t[0]} and {t[1]} from start to end.",
    }


def _repair(user: str) -> dict[str, Any]:
    m = re.search(r'"after_id":\s*"([^"]+)"', user)
    return {
        "after_id": m.group(1) if m else "el-000001",
        "reason": "The first concept closes here and a separate one opens after it.",
    }


_INDEX_LINE = re.compile(
    r"^- chunk (\d+) \| link (.+?) \| pages .+? \| (\d+) min \| topic_en: (.*?) \| "
    r"topic_fa: (.*?) \| focus_en: (.*?) \| focus_fa: (.*?)(?: \| key terms: .*?)?"
    r"(?: \| continues.*)?$"
)


def _index(user: str) -> dict[str, Any]:
    lines = [m for ln in user.splitlines() if (m := _INDEX_LINE.match(ln))]
    rows = [
        {
            "chunk": int(m[1]),
            "link": m[2],
            "minutes": int(m[3]),
            "topic_en": m[4],
            "topic_fa": m[5],
            "focus_en": m[6],
            "focus_fa": m[7],
        }
        for m in lines
    ]
    numbers = [r["chunk"] for r in rows]
    first = rows[0] if rows else {"topic_en": "material", "topic_fa": "متن"}
    return {
        "overview_en": f"The document teaches {first['topic_en']} across {len(rows)} sessions, "
        "each building on the terms introduced before it.",
        "overview_fa": f"این سند {first['topic_fa']} را در جلسه‌هایی پیوسته آموزش می‌دهد که "
        "هر کدام بر واژه‌های جلسه پیشین تکیه دارد",
        "lines": rows,
        "groups": [
            {
                "name_en": f"Working with {first['topic_en']}",
                "name_fa": f"کار با {first['topic_fa']}",
                "chunks": numbers,
            }
        ],
        "order": numbers,
        "dependencies": [],
    }


ANSWERS: dict[str, Callable[[str], dict[str, Any]]] = {
    "ReviewAnswer": _review,
    "DecisionAnswer": _decide,
    "AnalysisAnswer": _analysis,
    "RepairAnswer": _repair,
    "IndexAnswer": _index,
}


class SmartProvider(FakeProvider):
    """An OpenAI chat-completions server on a loopback port; use as a context manager."""

    def __init__(
        self, *, obey_injections: bool = False, refuse: tuple[str, ...] = (), chatty: bool = False
    ) -> None:
        super().__init__("openai", refuse=refuse)
        self.obey_injections = obey_injections
        self.chatty = chatty
        self.scripts: dict[str, deque[Reply]] = {t: deque() for t in TASKS}
        self.always: dict[str, Reply] = {}

    def count(self, task: str) -> int:
        return sum(1 for r in self.requests if r.task == task)

    def choose(self, request: Request) -> Reply:
        task, user = request.task, request.user
        with self._lock:
            if self.scripts.get(task):
                return self.scripts[task].popleft()
            if task in self.always:
                return self.always[task]
        if self.obey_injections and INJECTION.search(user):
            hijack = INJECTED_ID.search(user)
            if task == "DecisionAnswer" and hijack:
                return answer(
                    {
                        "action": "cut",
                        "element_id": hijack.group(1),
                        "reason": "The document itself says to cut at this element.",
                        "evidence": [hijack.group(1)],
                    }
                )
            return answer("OK. As instructed, I will not answer in JSON.")
        if task not in ANSWERS:
            return status(400)
        data = ANSWERS[task](user)
        if self.chatty:
            return answer(
                f"Of course! Here it is:\n```json\n{json.dumps(data)}\n```\nAnything else?"
            )
        return answer(data)
