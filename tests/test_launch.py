"""``rummikub app`` serves the packaged app with the same settings as the checkout's config."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import urllib.request
from pathlib import Path

import pytest

from app import cli, launch
from tests.served_app import free_port, wait_until_healthy

ROOT = Path(__file__).resolve().parents[1]


def _flattened(config: dict) -> dict:
    return {f"{section}.{key}": value for section, values in config.items() for key, value in values.items()}


def test_launcher_settings_equal_the_checkout_config():
    with (ROOT / ".streamlit" / "config.toml").open("rb") as handle:
        assert _flattened(tomllib.load(handle)) == dict(launch.SETTINGS)


def test_command_runs_the_packaged_main_with_every_setting():
    command = launch.streamlit_command(port=8600, address="127.0.0.1")
    assert command[:3] == ["streamlit", "run", str(launch.MAIN)]
    assert launch.MAIN.is_file() and launch.MAIN.parent.name == "app"
    pairs = dict(zip(command[3::2], command[4::2]))
    assert pairs["--server.maxUploadSize"] == "25" and pairs["--browser.gatherUsageStats"] == "false"
    assert pairs["--server.port"] == "8600" and pairs["--server.address"] == "127.0.0.1"


def test_the_cli_passes_port_and_address(monkeypatch):
    seen = {}
    monkeypatch.setattr(launch, "serve", lambda port, address, **options: seen.update(port=port, address=address) or 0)
    assert cli.main(["app", "--port", "8700", "--address", "127.0.0.1"]) == 0
    assert seen == {"port": 8700, "address": "127.0.0.1"}


@pytest.mark.slow
def test_rummikub_app_serves_the_page_from_another_folder(tmp_path):
    port = free_port()
    env = os.environ | {"RUMMIKUB_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "app", "--port", str(port), "--address", "127.0.0.1"],
        cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_until_healthy(process, f"http://127.0.0.1:{port}/_stcore/health")
        process.terminate()
        process.wait(timeout=20)
        with pytest.raises(OSError):  # stopping `rummikub app` stops the server: nothing left serving
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2)
    finally:
        if process.poll() is None:
            process.kill()
