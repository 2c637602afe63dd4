"""Shared test set-up: markers, and a private data folder so no test touches the user's files."""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    for name, meaning in (
        ("slow", "takes more than a few seconds (large sweeps, end-to-end photo runs)"),
        ("sweep", "the 300-position sweep against the exact checker (half an hour): left out by default, run with -m slow or -m sweep"),
        ("models", "needs the shipped ONNX models"),
        ("browser", "drives headless Chromium against a real server"),
        ("train", "needs the train extra (ultralytics, torch) and trains or compares with the .pt weights"),
    ):
        config.addinivalue_line("markers", f"{name}: {meaning}")


#: Markers of the tests that run last, so that a broken fast test fails the run in seconds.
LATE_MARKERS = ("slow", "browser", "train")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Fast tests first, then the slow, browser and training ones (otherwise in file order)."""
    items.sort(key=lambda item: any(item.get_closest_marker(name) for name in LATE_MARKERS))


@pytest.fixture
def private_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private data folder for the app (``$RUMMIKUB_DATA_DIR``); the score database's path in it."""
    monkeypatch.setenv("RUMMIKUB_DATA_DIR", str(tmp_path))
    return tmp_path / "scores.sqlite3"


@pytest.fixture
def real_root(tmp_path: Path) -> Path:
    """A stand-in for the real data (tests/real_stand_in.py)."""
    from tests.real_stand_in import write_real_root

    return write_real_root(tmp_path / "real")
