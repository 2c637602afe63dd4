"""Photos read while the player is still busy: an upload starts its reading in the background,
and *Read the tiles* takes it up (or waits for what is left of it).

A 12 MP photo takes about two seconds to read on two cores. A player uploads the table photo,
then photographs or types the rack, so by the time they press the button the reading is usually
done. The readings run on one worker per server process (the models' own threads already use the
cores); each session keeps its last few, by the photo's content, its kind, the rules, the tile
profile and the tiles changed this session, so a reading is never reused for another photo, other
rules, another profile or after another change. The
worker never touches the session: what it needs is resolved on the page's own thread first.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass

from solver.rules import RuleSet
from vision.profiles import TileProfile
from vision.session_memory import SessionMemory
from vision.reading import ReadingKind

#: Readings a session keeps (a table and a rack photo, and the ones just before them).
KEPT = 4


@dataclass(frozen=True)
class _Request:
    digest: tuple[int, int]  # the photo's length and hash (bytes cache their hash: a page hashes them anyway)
    kind: ReadingKind
    rules: RuleSet
    profile: TileProfile | None  # compared by identity: a profile file changed is another object
    notes: tuple[str, ...]
    memory: SessionMemory | None  # by identity too: each change makes a new memory

    def same(self, other: _Request) -> bool:
        return (self.digest, self.kind, self.rules, self.notes) == (other.digest, other.kind, other.rules, other.notes) \
            and self.profile is other.profile and self.memory is other.memory


class Prefetcher:
    """One session's readings ahead of time, run by ``executor`` with ``read``.

    ``read(data, kind, rules, profile, notes, memory)`` is the reading itself
    (:func:`app.photos.read_with_profile`); whatever it raises, :meth:`result` raises.
    """

    def __init__(self, read: Callable[..., object], executor: Executor, kept: int = KEPT) -> None:
        if kept < 1:
            raise ValueError(f"a prefetcher keeps at least one reading, not {kept}")
        self._read = read
        self._executor = executor
        self._kept: deque[tuple[_Request, Future]] = deque(maxlen=kept)
        self._lock = threading.Lock()

    def start(self, data: bytes, kind: ReadingKind, rules: RuleSet, profile: TileProfile | None,
              notes: tuple[str, ...] = (), memory: SessionMemory | None = None) -> None:
        """Begin reading ``data`` unless the same reading is kept already."""
        request = _Request((len(data), hash(data)), kind, rules, profile, notes, memory)
        with self._lock:
            if self._find(request) is None:
                if len(self._kept) == self._kept.maxlen:
                    self._kept[0][1].cancel()  # forgotten: not worth reading if it has not begun
                future = self._executor.submit(self._read, data, kind, rules, profile, notes, memory)
                self._kept.append((request, future))

    def result(self, data: bytes, kind: ReadingKind, rules: RuleSet, profile: TileProfile | None,
               notes: tuple[str, ...] = (), memory: SessionMemory | None = None):
        """The reading of ``data``: the one started ahead (waiting for it if it still runs), or,
        when none was, read now on the calling thread (not kept: it was asked for, not foreseen)."""
        request = _Request((len(data), hash(data)), kind, rules, profile, notes, memory)
        with self._lock:
            future = self._find(request)
        if future is None:
            return self._read(data, kind, rules, profile, notes, memory)
        if future.exception() is not None:  # waits for it; the next press reads again
            with self._lock:
                self._kept = deque(((k, f) for k, f in self._kept if f is not future), maxlen=self._kept.maxlen)
        return future.result()

    def _find(self, request: _Request) -> Future | None:
        return next((future for kept, future in self._kept if kept.same(request)), None)
