"""Passwords for password-protected PDFs: given at run time, used once, never stored.

Where they come from, first match wins for each document:
1. a password map (`--password-map FILE`, env QUIRE_PDF_PASSWORD_MAP naming the file): a
   JSON object of glob patterns to passwords, tried in file order against the document's
   file name and its full origin (path, `s3://bucket/key` or bucket key), e.g.
   `{"faq-*.pdf": "s3cret", "s3://books/locked/*": "other"}`;
2. a password file (`--password-file FILE`): its first line is the password;
3. QUIRE_PDF_PASSWORD.

Passwords are only handed to `workers.execute.submit_bytes`, which opens the PDF at
admission and stores a decrypted copy: they never enter settings, sessions, task messages,
logs, metrics or outputs. `SecretStr` keeps them out of reprs and log lines by accident.
"""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, SecretStr

from quire.shared.errors import QuireError
from quire.shared.settings import Settings


class PasswordFileError(QuireError):
    code = "bad_password_file"


class Passwords(BaseModel):
    model_config = ConfigDict(frozen=True)

    default: SecretStr | None = None
    patterns: tuple[tuple[str, SecretStr], ...] = ()

    def for_document(self, name: str, origin: str = "") -> str | None:
        """The password to try for a document, or None."""
        for pattern, secret in self.patterns:
            if fnmatch.fnmatchcase(name, pattern) or (
                origin and fnmatch.fnmatchcase(origin, pattern)
            ):
                return secret.get_secret_value()
        return self.default.get_secret_value() if self.default else None

    @classmethod
    def load(
        cls,
        password_file: Path | None = None,
        map_file: Path | None = None,
        *,
        settings: Settings,
    ) -> Passwords:
        """From the flags' files, else the settings (see the module doc)."""
        env = settings
        default = env.pdf_password.get_secret_value() if env.pdf_password else None
        if password_file is not None:
            lines = _read(password_file).splitlines()
            default = lines[0] if lines else ""
            if not default:
                raise PasswordFileError(f"{password_file}: the password file is empty")
        map_path = map_file or env.pdf_password_map
        patterns: tuple[tuple[str, SecretStr], ...] = ()
        if map_path is not None:
            patterns = _parse_map(map_path, _read(map_path))
        return cls(default=SecretStr(default) if default else None, patterns=patterns)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PasswordFileError(f"{path}: cannot read ({type(exc).__name__})") from None


def _parse_map(path: Path, text: str) -> tuple[tuple[str, SecretStr], ...]:
    # the file's content is never quoted in an error: it holds the passwords
    try:
        data = json.loads(text)
    except ValueError:
        raise PasswordFileError(
            f"{path}: not JSON (expected an object of glob patterns to passwords)"
        ) from None
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and k and v for k, v in data.items()
    ):
        raise PasswordFileError(
            f"{path}: expected a JSON object of non-empty glob patterns to non-empty passwords"
        )
    return tuple((k, SecretStr(v)) for k, v in data.items())
