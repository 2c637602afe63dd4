"""numpy's linear algebra on one thread while a move is solved.

The solver's matrix products are small (tens of old melds by a few thousand candidates), yet
OpenBLAS splits them over every core. Waking its threads costs more than the product, and on a
busy machine (the app reading a photo, another program) a thread that waits for a core stalls
the whole product by tens of milliseconds: at table 90 + rack 14 under load the slowest 5 % of
moves took 88-95 ms with the default threads and 58 ms with one (``benchmarks.variant_benchmark``,
interleaved runs). The limit is set per move and undone after it, so nothing else in the process
(a caller's own numpy work) is changed.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator

from threadpoolctl import ThreadpoolController


@functools.lru_cache(maxsize=1)
def _controller() -> ThreadpoolController:
    # Finding the loaded BLAS libraries takes about 2 ms: once per process.
    return ThreadpoolController()


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Inside the block, numpy's BLAS runs on one thread (about 10 µs to enter and leave)."""
    with _controller().limit(limits=1, user_api="blas"):
        yield
