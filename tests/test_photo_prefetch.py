"""Photos read ahead: a reading started at upload is what the button gets, never another photo's."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.photo_prefetch import Prefetcher
from solver.rules import PRESETS, STANDARD
from vision.reading import ReadingKind

TABLE, RACK = ReadingKind.TABLE, ReadingKind.RACK


class Reads:
    """Stands in for the reading: records each call and its thread, answers with its arguments."""

    def __init__(self, gate: threading.Event | None = None, fail: Exception | None = None) -> None:
        self.calls: list[tuple[bytes, ReadingKind, str]] = []
        self.gate = gate
        self.fail = fail

    def __call__(self, data, kind, rules, profile, notes, memory=None):
        self.calls.append((data, kind, threading.current_thread().name))
        if self.gate is not None:
            assert self.gate.wait(10), "the test never opened the gate"
        if self.fail is not None:
            raise self.fail
        return (data, kind, rules, profile, notes) if memory is None else (data, kind, rules, profile, notes, memory)


@pytest.fixture
def worker():
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ahead") as executor:
        yield executor


def test_a_reading_started_ahead_is_taken_up_and_not_read_again(worker):
    reads = Reads()
    ahead = Prefetcher(reads, worker)
    ahead.start(b"photo", TABLE, STANDARD, None)
    assert ahead.result(b"photo", TABLE, STANDARD, None) == (b"photo", TABLE, STANDARD, None, ())
    assert ahead.result(b"photo", TABLE, STANDARD, None)[0] == b"photo"
    assert [(d, k) for d, k, _ in reads.calls] == [(b"photo", TABLE)]
    assert reads.calls[0][2].startswith("ahead")  # on the worker, not the page's thread


def test_the_button_waits_for_a_reading_still_running(worker):
    gate = threading.Event()
    reads = Reads(gate)
    ahead = Prefetcher(reads, worker)
    ahead.start(b"photo", TABLE, STANDARD, None)
    threading.Timer(0.2, gate.set).start()
    assert ahead.result(b"photo", TABLE, STANDARD, None)[0] == b"photo"
    assert len(reads.calls) == 1


@pytest.mark.parametrize(
    "other",
    [
        (b"another photo", TABLE, STANDARD, None, ()),
        (b"photo", RACK, STANDARD, None, ()),
        (b"photo", TABLE, PRESETS["four-jokers"], None, ()),
        (b"photo", TABLE, STANDARD, object(), ()),  # another tile profile
        (b"photo", TABLE, STANDARD, None, ("The tile profile 'x' was not used",)),
        (b"photo", TABLE, STANDARD, None, (), object()),  # a tile changed since: another session memory
    ],
)
def test_a_reading_ahead_is_never_given_for_another_photo_rules_profile_or_memory(worker, other):
    reads = Reads()
    ahead = Prefetcher(reads, worker)
    ahead.start(b"photo", TABLE, STANDARD, None)
    assert ahead.result(*other) == other
    assert len(reads.calls) == 2
    assert reads.calls[1][2] == threading.current_thread().name  # not foreseen: read on the spot


def test_a_photo_not_read_ahead_is_read_on_the_spot(worker):
    reads = Reads()
    assert Prefetcher(reads, worker).result(b"photo", RACK, STANDARD, None)[1] is RACK
    assert reads.calls[0][2] == threading.current_thread().name


def test_only_the_last_readings_are_kept(worker):
    reads = Reads()
    ahead = Prefetcher(reads, worker, kept=2)
    for data in (b"one", b"two", b"three"):
        ahead.start(data, TABLE, STANDARD, None)
    ahead.result(b"three", TABLE, STANDARD, None)
    ahead.result(b"two", TABLE, STANDARD, None)
    assert len(reads.calls) == 3
    ahead.result(b"one", TABLE, STANDARD, None)  # forgotten: read again
    assert len(reads.calls) == 4


def test_starting_the_same_reading_twice_reads_once(worker):
    reads = Reads()
    ahead = Prefetcher(reads, worker)
    ahead.start(b"photo", TABLE, STANDARD, None)
    ahead.start(b"photo", TABLE, STANDARD, None)
    ahead.result(b"photo", TABLE, STANDARD, None)
    assert len(reads.calls) == 1


def test_a_failed_reading_raises_for_the_button_and_is_tried_again_next_time(worker):
    reads = Reads(fail=ValueError("the photo cannot be read"))
    ahead = Prefetcher(reads, worker)
    ahead.start(b"photo", TABLE, STANDARD, None)
    with pytest.raises(ValueError, match="cannot be read"):
        ahead.result(b"photo", TABLE, STANDARD, None)
    with pytest.raises(ValueError, match="cannot be read"):
        ahead.result(b"photo", TABLE, STANDARD, None)
    assert len(reads.calls) == 2


def test_keeping_nothing_is_refused(worker):
    with pytest.raises(ValueError, match="at least one"):
        Prefetcher(Reads(), worker, kept=0)


def test_a_forgotten_reading_that_has_not_begun_is_not_read(worker):
    gate = threading.Event()
    reads = Reads(gate)
    ahead = Prefetcher(reads, worker, kept=2)
    ahead.start(b"one", TABLE, STANDARD, None)  # the worker's: it waits at the gate
    for _ in range(1000):  # until the worker has begun it
        if reads.calls:
            break
        threading.Event().wait(0.01)
    ahead.start(b"two", TABLE, STANDARD, None)  # queued behind it
    ahead.start(b"three", TABLE, STANDARD, None)  # forgets "one" (running: it goes on)
    ahead.start(b"four", TABLE, STANDARD, None)  # forgets "two" (queued: cancelled)
    gate.set()
    ahead.result(b"four", TABLE, STANDARD, None)
    assert [data for data, _, _ in reads.calls] == [b"one", b"three", b"four"]


def test_a_reading_ahead_with_the_sessions_memory_is_taken_up_with_the_same_memory(worker):
    reads = Reads()
    ahead = Prefetcher(reads, worker)
    memory = object()
    ahead.start(b"photo", TABLE, STANDARD, None, (), memory)
    assert ahead.result(b"photo", TABLE, STANDARD, None, (), memory)[-1] is memory
    assert len(reads.calls) == 1
