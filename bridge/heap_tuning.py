"""glibc's allocator asked to keep the memory of large buffers between requests (Linux only).

A long conversation makes every request allocate and free a few buffers about the size of its
body: the body itself, its long strings, the editor's chat JSON and its frame. By default glibc
maps each block of 128 KiB or more with mmap and unmaps it when freed, or, once it has raised
that bound, trims its heap back to the kernel as soon as about twice a block is free at the
top: either way every request faults the same pages in again (~270 page faults and ~0.8 ms of
kernel time for a 0.5 MB request, docs/benchmarks.md). Here blocks below `HEAP_BELOW` come from
the heap, and the heap keeps up to `KEEP_FREE` at its top for the next request: the memory a
process holds after a large request is bounded by that, and larger blocks are still mapped
and given back when freed.

Elsewhere (macOS, Windows, musl) the C library's allocator is another one: left as it is.
"""

from __future__ import annotations

import logging
import sys

log = logging.getLogger(__name__)

# mallopt's parameters (glibc's malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
HEAP_BELOW = 16 * 1024 * 1024  # glibc accepts up to 32 MiB on 64-bit systems
KEEP_FREE = 16 * 1024 * 1024


def keep_large_buffers(platform: str = sys.platform) -> bool:
    """Tune glibc's allocator as above; False where there is nothing to tune (or it refused).
    Costs an import of ctypes (~3 ms, ~0.4 MiB): call it once the process serves."""
    if not platform.startswith("linux"):
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own C library
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # glibc answers 1; musl's mallopt is a stub that answers 0.
    tuned = bool(mallopt(M_MMAP_THRESHOLD, HEAP_BELOW) == 1)
    tuned = tuned and bool(mallopt(M_TRIM_THRESHOLD, KEEP_FREE) == 1)
    log.debug("Large buffers kept between requests: %s", "yes" if tuned else "no (not glibc)")
    return tuned
