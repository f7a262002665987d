"""One exception family, so every layer can tell bad input from a bug or a transient fault.

The CLI prints `QuireError`s as one line (no traceback); workers record their `code` and
message as the document's failure reason; only `TransientError`s are retried.
"""

from __future__ import annotations


class QuireError(Exception):
    """Base class. `code` is a stable machine-readable reason, the message is for people."""

    code = "error"

    def __init__(self, message: str, *, source: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.source = source

    def __str__(self) -> str:
        return f"{self.source}: {self.message}" if self.source else self.message


class InputError(QuireError):
    """The document itself is unusable; retrying cannot help."""

    code = "bad_input"


class UnsupportedFormatError(InputError):
    code = "unsupported_format"


class CorruptDocumentError(InputError):
    code = "corrupt"


class EncryptedDocumentError(InputError):
    code = "encrypted"


class DrmProtectedError(InputError):
    """An EPUB whose content is encrypted by a DRM scheme (META-INF/encryption.xml naming
    more than obfuscated fonts, Adobe ADEPT rights, Apple FairPlay): its text cannot be
    read without the vendor's key, which Quire never has."""

    code = "drm"


class BadPasswordError(InputError):
    """The password given for a password-protected PDF does not open it."""

    code = "bad_password"


class PagesWithoutTextError(InputError):
    """--strict: some pages ended without text (blank, figure-only, scanned without OCR)."""

    code = "pages_without_text"


class EmptyDocumentError(InputError):
    code = "empty"


class TooLargeError(InputError):
    code = "too_large"


class UnsafeXmlError(InputError):
    """An XML part of the document declares a DTD (entities, an external DTD): refused, not
    parsed, since entities hide or inject text, read local files or expand without bound."""

    code = "unsafe_xml"


class OcrUnavailableError(QuireError):
    """OCR was needed or asked for, but Tesseract or a language's data is not installed."""

    code = "ocr_unavailable"


class ConflictError(QuireError):
    """A commit was made against a stale revision; nothing was changed."""

    code = "conflict"


class TransientError(QuireError):
    """A fault of the environment (network, 5xx, rate limit) worth retrying with backoff."""

    code = "transient"


class BackendError(QuireError):
    """A review/analysis backend gave no valid answer after its retries."""

    code = "backend"


class ValidationFailedError(QuireError):
    """A decision (boundary, analysis, index) broke a rule and was refused."""

    code = "invalid_decision"


class VerificationError(QuireError):
    """Written output does not preserve the source."""

    code = "verification_failed"


class OutputFolderError(QuireError):
    """The output folder cannot take this run's output (e.g. it holds files Quire did not
    write); nothing was written to it."""

    code = "output_folder"


class NotCompleteError(QuireError):
    """The document has no output yet: it failed, or it is still running."""

    code = "not_complete"


class DocumentFailedError(QuireError):
    """A document ended `failed`; `code` is the document's own error code."""

    def __init__(self, code: str, message: str, *, source: str | None = None) -> None:
        super().__init__(message, source=source)
        self.code = code


class UnknownDocumentError(QuireError):
    """No document (or more than one) matches what was asked for."""

    code = "not_found"


class SettingsError(QuireError):
    """A setting (flag or QUIRE_* variable) is missing or not allowed."""

    code = "bad_setting"


class NotInstalledError(QuireError):
    """A command needs an optional part of Quire (an extra) or a system package."""

    code = "not_installed"
