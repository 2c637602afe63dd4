"""Shared test set-up: markers, and a private data folder so no test touches the user's files."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    for name, meaning in (
        ("slow", "takes more than a few seconds (large sweeps, end-to-end photo runs)"),
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
