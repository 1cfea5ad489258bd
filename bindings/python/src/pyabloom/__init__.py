"""pyabloom: lock-free, cache-line-blocked Bloom filters over the abloom C library.

A BloomFilter behaves like a set that may answer "yes" for a key never added (at the rate it was
sized for) and never answers "no" for one that was:

    >>> from pyabloom import BloomFilter
    >>> f = BloomFilter(1_000_000, 0.01)
    >>> f.add("hello")
    >>> "hello" in f
    True

Keys are str (UTF-8), bytes, bytearray, memoryview or int (8 little-endian bytes), hashed
exactly as the C, Go, Java and Rust bindings hash them, and files are byte-identical across them.
"""

from __future__ import annotations

from ._abloom import MAX_THREADS, BloomFilter, Info, Plan, isa, library_version, seal
from ._errors import (
    AbloomError,
    BadMagicError,
    ChecksumError,
    ClosedError,
    CorruptError,
    FormatError,
    InvalidArgumentError,
    ReadOnlyError,
    ShapeMismatchError,
    StaleError,
    TruncatedError,
    UnsupportedFormatError,
    VersionError,
)

BloomFilter.__module__ = __name__
__version__ = "0.1.0"

__all__ = [
    "MAX_THREADS",
    "AbloomError",
    "BadMagicError",
    "BloomFilter",
    "ChecksumError",
    "ClosedError",
    "CorruptError",
    "FormatError",
    "Info",
    "InvalidArgumentError",
    "Plan",
    "ReadOnlyError",
    "ShapeMismatchError",
    "StaleError",
    "TruncatedError",
    "UnsupportedFormatError",
    "VersionError",
    "__version__",
    "isa",
    "library_version",
    "seal",
]
