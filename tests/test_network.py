"""Joining from a phone: the LAN address (found without traffic), the QR code, the HTTPS certificate."""

from __future__ import annotations

import datetime as dt
import os
import ssl
import stat
import subprocess
import sys
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from app import cli, launch, network
from tests.served_app import free_port, wait_until_healthy

ROOT = Path(__file__).resolve().parents[1]
NOW = dt.datetime(2025, 8, 20, 12, 0, tzinfo=dt.timezone.utc)


def decode_qr(png: bytes) -> str:
    """The text of the QR code in ``png``, as a phone's camera would read it: OpenCV's detector
    misses some codes at one size, so it is tried at several scales with a white margin."""
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    detector = cv2.QRCodeDetector()
    for scale in (1, 2, 3, 0.5):
        view = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
        view = cv2.copyMakeBorder(view, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(255, 255, 255))
        text, points, _ = detector.detectAndDecode(view)
        if points is not None and text:
            return text
    raise AssertionError("no QR code found")


class FakeSocket:
    """Records what the address probe does with its socket: it must never send."""

    def __init__(self, address: str = "192.168.1.23", fail: bool = False) -> None:
        self.address, self.fail, self.calls = address, fail, []

    def __call__(self, family, kind):
        self.calls.append(("socket", family, kind))
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.calls.append(("close",))

    def connect(self, target):
        self.calls.append(("connect", target))
        if self.fail:
            raise OSError("network is unreachable")

    def getsockname(self):
        return (self.address, 54321)

    def __getattr__(self, name):  # send, sendto, ...: any other use fails the test
        if name.startswith("__"):
            raise AttributeError(name)
        raise AssertionError(f"the address probe used socket.{name}")


def test_the_lan_address_comes_from_a_udp_connect_that_sends_nothing(monkeypatch):
    fake = FakeSocket("192.168.1.23")
    monkeypatch.setattr(network.socket, "socket", fake)
    assert network.lan_address() == "192.168.1.23"
    assert fake.calls[0][2] == network.socket.SOCK_DGRAM  # UDP: connect() only picks a route
    assert [c[0] for c in fake.calls] == ["socket", "connect", "close"]
    assert fake.calls[1][1][0].startswith("10.")  # a private address


@pytest.mark.parametrize("fake", [FakeSocket(fail=True), FakeSocket("0.0.0.0")])
def test_without_a_network_the_address_is_loopback(monkeypatch, fake):
    monkeypatch.setattr(network.socket, "socket", fake)
    assert network.lan_address() == "127.0.0.1"


def test_the_real_lan_address_is_an_ipv4_address():
    import ipaddress

    assert ipaddress.ip_address(network.lan_address()).version == 4


@pytest.mark.parametrize("https", [False, True])
def test_the_qr_code_decodes_to_the_apps_address(https):
    url = network.app_url("192.168.1.23", 8501, https)
    assert url == ("https" if https else "http") + "://192.168.1.23:8501/"
    assert decode_qr(network.qr_png(url)) == url


@pytest.mark.parametrize(
    "url", ["http://192.0.2.2:40601/", "http://10.0.0.5:8502/", "http://10.0.0.5:8562/", "https://192.0.2.2:8694/"]
)
def test_the_qr_code_decodes_for_addresses_a_weaker_code_failed_on(url):
    # At error correction level M, OpenCV's detector found none of these codes.
    assert decode_qr(network.qr_png(url)) == url


def test_the_certificate_is_made_once_for_the_hosts_and_kept(tmp_path):
    hosts = ["192.168.1.23", "127.0.0.1", "localhost"]
    cert, key = network.ensure_certificate(tmp_path, hosts, NOW)
    assert (cert, key) == network.certificate_paths(tmp_path) and cert.parent == tmp_path / "tls"
    assert network.certificate_hosts(cert.read_bytes()) == frozenset(hosts)
    assert stat.S_IMODE(key.stat().st_mode) == 0o600  # the private key is this user's only
    first = cert.read_bytes()
    assert network.ensure_certificate(tmp_path, hosts[:2], NOW + dt.timedelta(days=30))[0].read_bytes() == first
    moved = network.ensure_certificate(tmp_path, ["10.0.0.5", "127.0.0.1"], NOW)  # a new network address
    assert cert.read_bytes() != first and "10.0.0.5" in network.certificate_hosts(moved[0].read_bytes())
    renewed = cert.read_bytes()
    later = NOW + dt.timedelta(days=network.CERTIFICATE_DAYS + 1)
    network.ensure_certificate(tmp_path, ["10.0.0.5"], later)  # expired: made again
    assert cert.read_bytes() != renewed


def test_a_damaged_certificate_is_replaced(tmp_path):
    cert, key = network.certificate_paths(tmp_path)
    cert.parent.mkdir()
    cert.write_text("not a certificate")
    key.write_text("nor a key")
    network.ensure_certificate(tmp_path, ["127.0.0.1"], NOW)
    assert network.certificate_hosts(cert.read_bytes()) == {"127.0.0.1"}


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only folder")
def test_a_read_only_data_folder_is_a_clear_error(tmp_path):
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(network.CertificateError, match="cannot store the HTTPS certificate"):
            network.ensure_certificate(tmp_path, ["127.0.0.1"])
    finally:
        tmp_path.chmod(0o700)


def test_a_certificate_that_cannot_be_stored_is_a_message_not_a_traceback(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "data"
    blocker.write_text("a file where the data folder should be")
    monkeypatch.setenv("RUMMIKUB_DATA_DIR", str(blocker))
    assert cli.main(["app", "--https"]) == cli.EXIT_BAD_INPUT
    assert "cannot store the HTTPS certificate" in capsys.readouterr().err


def test_a_tls_client_trusting_the_certificate_reaches_a_server_using_it(tmp_path):
    cert, key = network.ensure_certificate(tmp_path, ["127.0.0.1", "localhost"])
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(cert, key)
    import socket

    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]

        def answer() -> None:
            connection, _ = listener.accept()
            with server_context.wrap_socket(connection, server_side=True) as tls:
                tls.sendall(b"hello")

        thread = threading.Thread(target=answer, daemon=True)
        thread.start()
        client = ssl.create_default_context(cafile=str(cert))  # verifies the name 127.0.0.1 too
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            with client.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
                assert tls.recv(5) == b"hello"
        thread.join(timeout=10)


def test_https_passes_the_certificate_to_streamlit(tmp_path, monkeypatch):
    command = launch.streamlit_command(certificate=(tmp_path / "c.pem", tmp_path / "k.pem"))
    pairs = dict(zip(command[3::2], command[4::2]))
    assert pairs["--server.sslCertFile"] == str(tmp_path / "c.pem")
    assert pairs["--server.sslKeyFile"] == str(tmp_path / "k.pem")
    assert "--server.sslCertFile" not in launch.streamlit_command()
    monkeypatch.setenv("RUMMIKUB_DATA_DIR", str(tmp_path))
    assert launch.https_certificate() == network.certificate_paths(tmp_path)


def test_the_cli_passes_https_and_the_language(monkeypatch):
    seen = {}
    monkeypatch.setattr(launch, "serve", lambda port, address, **options: seen.update(options) or 0)
    assert cli.main(["app", "--https", "--lang", "uk"]) == 0
    assert seen == {"https": True, "lang": "uk"}
    assert cli.main(["app"]) == 0 and seen["https"] is False


def test_the_browser_warning_is_one_translated_sentence():
    english = network.browser_warning("en")
    assert english.count(".") == 1 and english.endswith(".")
    assert network.browser_warning("ro") != english


@pytest.mark.slow
def test_rummikub_app_https_serves_with_its_own_certificate(tmp_path):
    port = free_port()
    data = tmp_path / "data"
    env = os.environ | {"RUMMIKUB_DATA_DIR": str(data), "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "app", "--https", "--port", str(port), "--address", "127.0.0.1"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        cert = network.certificate_paths(data)[0]

        def trusting_the_certificate() -> ssl.SSLContext:
            if not cert.is_file():
                raise OSError("no certificate yet")
            return ssl.create_default_context(cafile=str(cert))

        wait_until_healthy(process, f"https://127.0.0.1:{port}/_stcore/health", trusting_the_certificate)
    finally:
        process.terminate()
        out, _ = process.communicate(timeout=20)
    assert network.browser_warning("en") in out
