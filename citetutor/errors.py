"""Errors the UI shows as they are: every message says how to fix the problem."""


class CiteTutorError(Exception):
    """Base class; the UI catches only this and shows its message."""


class PdfError(CiteTutorError):
    """A PDF cannot be opened, decrypted or read."""


class PasswordRequired(PdfError):
    """The PDF is encrypted and needs a (correct) password."""


class ModelUnavailable(CiteTutorError):
    """A model server or local model cannot be reached or loaded."""


class ModelOutputError(CiteTutorError):
    """A model reply did not match the schema it was asked for."""


class EmbeddingMismatch(CiteTutorError):
    """Stored vectors were made by a different embedding model than the current one."""


class NotFound(CiteTutorError):
    """A subject, document, page or chunk does not exist."""


class InputError(CiteTutorError):
    """The learner's request is invalid (empty question, bad page range...)."""


class LibraryUnavailable(CiteTutorError):
    """The library (data folder or DuckDB file) cannot be opened."""


class LibraryDamaged(LibraryUnavailable):
    """The library file cannot be read; `snapshot` is the newest readable copy, if any."""

    def __init__(self, message: str, path=None, snapshot=None):
        super().__init__(message)
        self.path, self.snapshot = path, snapshot
