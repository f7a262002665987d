"""Options several commands share: the run settings, OCR, passwords, limits."""

from __future__ import annotations

from pathlib import Path

import click

from quire.orchestrator.cli.app import F, current_settings, err
from quire.shared.config import DEFAULTS, ENV_DEFAULTS, RunChoices, RunSettings


def check_ocr(settings: RunSettings) -> None:
    """OCR asked for explicitly (`--ocr` or `--ocr-lang` given) and run in this process: say
    now, in one line, when no engine reads the languages (workers check their own when they
    parse). `force` stops here; `auto` goes on and lists the pages that needed OCR without
    text."""
    from quire.orchestrator.dispatch import check_here

    given = click.get_current_context().params
    if (given.get("ocr") or given.get("ocr_lang")) and settings.ocr != "off":
        check_here(current_settings(), lambda: _check_engine(settings))


def _check_engine(settings: RunSettings) -> None:
    from quire.shared.errors import OcrUnavailableError
    from quire.workers.parse.ocr_engines import pick_engine

    needs = pick_engine(settings.ocr_lang).choice.needs
    if needs and settings.ocr == "force":
        raise OcrUnavailableError(f"no OCR engine reads {settings.ocr_lang}: {needs}")
    if needs:
        err.print(
            f"quire: warning: no OCR engine reads {settings.ocr_lang} ({needs}); "
            "pages that need OCR will be listed without text",
            highlight=False,
        )


def _ocr_lang(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    import re

    from quire.shared.config import OCR_LANG_PATTERN

    if value is not None and not re.fullmatch(OCR_LANG_PATTERN, value):
        raise click.BadParameter("Tesseract language codes joined by '+', e.g. eng+fas+chi_sim")
    return value


def ocr_options(fn: F) -> F:
    for opt in reversed(
        [
            click.option(
                "--ocr",
                type=click.Choice(["auto", "off", "force"]),
                default=None,
                help="OCR pages without a usable text layer (auto), every page that is "
                f"not blank (force), or none (off) [env QUIRE_OCR; {ENV_DEFAULTS.ocr}].",
            ),
            click.option(
                "--ocr-lang",
                default=None,
                metavar="LANGS",
                callback=_ocr_lang,
                help="Tesseract languages, e.g. eng+fas+chi_sim "
                f"[env QUIRE_OCR_LANG; {ENV_DEFAULTS.ocr_lang}].",
            ),
            click.option(
                "--strict",
                is_flag=True,
                default=DEFAULTS.strict,
                help="Fail a document with pages that end without text.",
            ),
        ]
    ):
        fn = opt(fn)
    return fn


password_file_option = click.option(
    "--password-file",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    default=None,
    help="The user password of password-protected PDFs (first line) [env QUIRE_PDF_PASSWORD].",
)
password_map_option = click.option(
    "--password-map",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    default=None,
    help="JSON object of glob patterns (file name or origin) to passwords "
    "[env QUIRE_PDF_PASSWORD_MAP].",
)


def chosen() -> RunChoices:
    """The run choices of the command being run, from its options (`settings_options`,
    `ocr_options`); the ones it does not have keep their defaults."""
    given = click.get_current_context().params
    return RunChoices.given(**{f: given[f] for f in RunChoices.model_fields if f in given})


def settings_options(fn: F) -> F:
    for opt in reversed(
        [
            click.option(
                "--output-format",
                type=click.Choice(["markdown", "pdf", "both"]),
                default=DEFAULTS.output_format,
                show_default=True,
            ),
            click.option(
                "--backend",
                type=click.Choice(["heuristic", "command", "openai", "anthropic"]),
                default=DEFAULTS.backend,
                help="Review/decision backend "
                f"[env QUIRE_REVIEW_BACKEND; {ENV_DEFAULTS.review_backend}].",
            ),
            click.option("--min-pages", type=float, default=DEFAULTS.min_pages, show_default=True),
            click.option("--max-pages", type=float, default=DEFAULTS.max_pages, show_default=True),
            click.option(
                "--overlap-pages", type=int, default=DEFAULTS.overlap_pages, show_default=True
            ),
            click.option(
                "--strict-backend",
                is_flag=True,
                default=None,
                help="Fail a document when the LLM backend's answer for an item stays "
                "invalid or unspecific after its re-asks, instead of letting the heuristic "
                "answer that item [env QUIRE_STRICT_BACKEND].",
            ),
        ]
    ):
        fn = opt(fn)
    return ocr_options(fn)


def limit_options(fn: F) -> F:
    for opt in reversed(
        [
            click.option(
                "--max-file-bytes",
                type=int,
                default=None,
                help="Refuse larger files "
                f"[env QUIRE_MAX_FILE_BYTES; {ENV_DEFAULTS.max_file_bytes}].",
            ),
            click.option(
                "--max-doc-pages",
                type=int,
                default=None,
                help="Refuse documents with more pages "
                f"[env QUIRE_MAX_DOC_PAGES; {ENV_DEFAULTS.max_doc_pages}].",
            ),
        ]
    ):
        fn = opt(fn)
    return fn
