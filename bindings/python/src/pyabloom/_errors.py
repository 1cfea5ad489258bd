"""The exceptions of abloom, and the mapping from the C library's error codes to them.

The mapping mirrors the other bindings (Java's Errors.java, Rust's Error): bad serialized data is
a FormatError (one subclass per code), a failed file system call is the OSError subclass its
errno selects (FileNotFoundError, PermissionError, ...), bad arguments are ValueError, and
allocation failure is MemoryError.
"""

from __future__ import annotations

import os

# The C codes (capi/abloom.h, ABLOOM_ERR_*).
ERR_NULL = -1
ERR_INVALID = -2
ERR_RANGE = -3
ERR_NOMEM = -4
ERR_MISMATCH = -5
ERR_INTERNAL = -6
ERR_READONLY = -7
ERR_BAD_MAGIC = -8
ERR_VERSION = -9
ERR_UNSUPPORTED = -10
ERR_TRUNCATED = -11
ERR_CORRUPT = -12
ERR_CHECKSUM = -13
ERR_ALIGNMENT = -14
ERR_IO = -15
ERR_TOO_SMALL = -16
ERR_STALE = -17


class AbloomError(Exception):
    """An error reported by the abloom library; `code` is its ABLOOM_ERR_* value."""

    def __init__(self, message: str, code: int = 0) -> None:
        super().__init__(message)
        self.code = code


class FormatError(AbloomError, ValueError):
    """Serialized bytes or a file that are not a valid abloom filter."""


class BadMagicError(FormatError):
    """Not an abloom filter at all (wrong magic bytes)."""


class VersionError(FormatError):
    """A format version this library does not read."""


class UnsupportedFormatError(FormatError):
    """A kind, bit layout or hash this library does not know."""


class TruncatedError(FormatError):
    """Shorter than its header says (or than a header)."""


class CorruptError(FormatError):
    """Inconsistent header fields, a bad header checksum, or trailing bytes."""


class ChecksumError(FormatError):
    """The checksum over header and body does not match."""


class StaleError(AbloomError, ValueError):
    """A checked read (verify=True, from_bytes) of a file a read-write writer never synced.

    The writer (mode 'r+') was killed before sync() or close(), or is still running. Not a
    FormatError: the bits are valid (adds only set bits), only the checksums are not current.
    Open it without verify (info.stale is then True), or seal() it once no writer has it open.
    """


class InvalidArgumentError(AbloomError, ValueError):
    """An argument outside its domain (capacity 0, fpr not in (0, 1), too large a filter...)."""


class ShapeMismatchError(AbloomError, ValueError):
    """Two filters of different shapes (kind, bits, shards, k or seed) were combined."""


class ReadOnlyError(AbloomError, TypeError):
    """A write to a read-only filter (a file opened with mode 'r'); TypeError as for mmap."""


class ClosedError(AbloomError, ValueError):
    """A closed filter was used (ValueError, as for a closed file)."""


_FORMAT = {
    ERR_BAD_MAGIC: BadMagicError,
    ERR_VERSION: VersionError,
    ERR_UNSUPPORTED: UnsupportedFormatError,
    ERR_TRUNCATED: TruncatedError,
    ERR_CORRUPT: CorruptError,
    ERR_CHECKSUM: ChecksumError,
}
_ARGUMENT = {ERR_INVALID, ERR_RANGE, ERR_ALIGNMENT, ERR_TOO_SMALL}


def _exception_for(code: int, what: str, message: str, err_no: int, path: bytes) -> BaseException:
    """The exception for C error `code` from operation `what` (called by the extension)."""
    text = f"abloom: {what}: {message}"
    if code in _FORMAT:
        return _FORMAT[code](text, code)
    if code == ERR_STALE:
        return StaleError(text, code)
    if code == ERR_IO:
        if err_no:
            return OSError(err_no, f"{what}: {os.strerror(err_no)}", os.fsdecode(path))
        return OSError(text)
    if code == ERR_NOMEM:
        return MemoryError(text)
    if code in _ARGUMENT:
        return InvalidArgumentError(text, code)
    if code == ERR_MISMATCH:
        return ShapeMismatchError(text, code)
    if code == ERR_READONLY:
        return ReadOnlyError(text, code)
    return AbloomError(text, code)
