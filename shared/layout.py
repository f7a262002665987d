"""Every file of a document, named in one place: its output folder and its work area.

The output folder is the same in the store (`docs/{doc_id}/out/`, see keys.py) and once
exported (`quire export`, `quire run --out`): its names are relative to it. The work area
(`docs/{doc_id}/work/`) holds intermediate results, keyed by part or by the version of the
input they came from. Part ids (what one task of a state works on) are made and read here.

    Layout.MANIFEST                      manifest.json
    Layout.plan_version(digest)          plans/{digest}.json
    Layout.version_of(key)               the digest back from such a key
    Layout.parse_part(1, 40)             "00001-00040"; Layout.part_pages(...) -> (1, 40)
"""

from __future__ import annotations

from typing import ClassVar


class Layout:
    """Names only: no I/O. Pair a name with `keys.out(doc_id, name)` or
    `keys.work(doc_id, name)` for a store key, or with a folder for a path."""

    # --- the output folder ------------------------------------------------------------------
    IR: ClassVar[str] = "ir.json"
    PLAN: ClassVar[str] = "plan.json"
    MANIFEST: ClassVar[str] = "manifest.json"
    VERIFICATION: ClassVar[str] = "verification-report.json"
    REVIEW: ClassVar[str] = "semantic-review-report.json"
    STUDY_INDEX_EN: ClassVar[str] = "study-index-en.md"
    STUDY_INDEX_FA: ClassVar[str] = "study-index-fa.md"
    STUDY_MAP: ClassVar[str] = "study-map.md"
    RAG_CHUNKS: ClassVar[str] = "rag-chunks.jsonl"
    RAG_SETTINGS: ClassVar[str] = "rag-settings.json"
    IMAGES: ClassVar[str] = "images/"  # the document's images, by content hash
    ANALYSES: ClassVar[str] = "analysis/"  # one analysis per study session
    # the study index and map, by the name the analysis gives each
    STUDY_INDEX: ClassVar[dict[str, str]] = {
        "en": STUDY_INDEX_EN,
        "fa": STUDY_INDEX_FA,
        "map": STUDY_MAP,
    }
    # files every run writes besides the manifest's session files (DESIGN §5 output folder)
    RUN_FILES: ClassVar[tuple[str, ...]] = (
        IR,
        PLAN,
        MANIFEST,
        VERIFICATION,
        REVIEW,
        STUDY_INDEX_EN,
        STUDY_INDEX_FA,
        STUDY_MAP,
        RAG_CHUNKS,
        RAG_SETTINGS,
    )
    RUN_GLOBS: ClassVar[tuple[str, ...]] = (f"{ANALYSES}chunk-*.json",)

    @staticmethod
    def image(sha: str, ext: str) -> str:
        return f"{Layout.IMAGES}{sha}.{ext}"

    @staticmethod
    def analysis(chunk: int) -> str:
        return f"{Layout.ANALYSES}chunk-{chunk:04d}.json"

    @staticmethod
    def session_markdown(stem: str) -> str:
        return f"{stem}.md"

    @staticmethod
    def session_pdf(stem: str) -> str:
        return f"{stem}.pdf"

    # --- the work area ----------------------------------------------------------------------
    CANDIDATES: ClassVar[str] = "candidates.json"
    REVIEW_TASKS: ClassVar[str] = "review-tasks.json"
    PARSED: ClassVar[str] = "parse/"  # a parse part's result
    REVIEWS: ClassVar[str] = "reviews/"  # a review part's outcomes
    CHUNKS: ClassVar[str] = "chunks/"  # a writing part's manifest entries
    VERIFIED: ClassVar[str] = "verify/"  # a verifying part's findings
    VERIFIED_CONTENT: ClassVar[str] = f"{VERIFIED}content.json"
    SESSION_ANALYSES: ClassVar[str] = "analysis/"  # by the session's element range
    REPAIRS: ClassVar[str] = "repair/"  # by the repaired session's element range
    USAGE: ClassVar[str] = "llm-usage/"
    AGENT: ClassVar[str] = "agent/"
    AGENT_READ: ClassVar[str] = f"{AGENT}read/"

    @staticmethod
    def ir_version(digest: str) -> str:
        return f"ir/{digest}.json"

    @staticmethod
    def plan_version(digest: str) -> str:
        return f"plans/{digest}.json"

    @staticmethod
    def repair_request(plan_version: str) -> str:
        return f"repair-requests/{plan_version}.json"

    @staticmethod
    def version_of(key: str) -> str:
        """The version a versioned key names (`.../plans/{digest}.json` -> digest); "" for
        no key."""
        return Layout.file_name(key).removesuffix(".json")

    @staticmethod
    def book_index(ir_key: str) -> str:
        """The book's parsed index, for the IR version `ir_key` holds."""
        return f"book-index/{Layout.file_name(ir_key)}"

    @staticmethod
    def part_result(folder: str, part: str) -> str:
        """A part's result in one of the per-part folders (PARSED, REVIEWS, CHUNKS, VERIFIED)."""
        return f"{folder}{part}.json"

    @staticmethod
    def range_name(first_id: str, last_id: str) -> str:
        """A session's file name in SESSION_ANALYSES and REPAIRS: its element range."""
        return f"{first_id}-{last_id}.json"

    @staticmethod
    def session_analysis(first_id: str, last_id: str) -> str:
        return Layout.SESSION_ANALYSES + Layout.range_name(first_id, last_id)

    @staticmethod
    def repair(first_id: str, last_id: str) -> str:
        """Marks a session range as repaired."""
        return Layout.REPAIRS + Layout.range_name(first_id, last_id)

    @staticmethod
    def file_name(key: str) -> str:
        """A key's last part (a file in one of the folders above)."""
        return key.rpartition("/")[2]

    @staticmethod
    def usage(state: str, plan_version: str, part: str) -> str:
        return f"{Layout.USAGE}{state}-{plan_version}-{part}.json"

    @staticmethod
    def agent_boundaries(revision: int) -> str:
        return f"{Layout.AGENT}boundaries-{revision:08d}.json"

    @staticmethod
    def agent_record(name: str) -> str:
        return f"{Layout.AGENT}{name}.json"

    @staticmethod
    def agent_read(first_id: str, last_id: str) -> str:
        """Marks a session whose text the agent has read."""
        return f"{Layout.AGENT_READ}{first_id}-{last_id}"

    @staticmethod
    def page_image(dpi: int, page: int) -> str:
        return f"page-images/{dpi}/{page:05d}.png"

    # --- part ids ---------------------------------------------------------------------------
    @staticmethod
    def parse_part(first: int, last: int) -> str:
        return f"{first:05d}-{last:05d}"

    @staticmethod
    def part_pages(part: str) -> tuple[int, int]:
        """The pages of a parse part."""
        first, _, last = part.partition("-")
        return int(first), int(last)

    @staticmethod
    def review_part(index: int) -> str:
        return f"batch-{index:04d}"

    @staticmethod
    def render_part(index: int) -> str:
        return f"render-{index:04d}"

    @staticmethod
    def part_index(part: str) -> int:
        """The batch a review or render part stands for."""
        return int(part.rpartition("-")[2])

    @staticmethod
    def chunk_parts(numbers: list[int], size: int) -> list[str]:
        """Parts of up to `size` chunks, in order: "0007" for one chunk, "0001-0004" for
        several (all chunk numbers in between; an analysis part skips those analysed)."""
        groups = [numbers[i : i + size] for i in range(0, len(numbers), size)]
        return [f"{g[0]:04d}" if len(g) == 1 else f"{g[0]:04d}-{g[-1]:04d}" for g in groups]

    @staticmethod
    def part_chunks(part: str) -> list[int]:
        first, _, last = part.partition("-")
        return list(range(int(first), int(last or first) + 1))
