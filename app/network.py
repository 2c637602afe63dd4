"""Joining from a phone: the app's address on the home network, as a QR code, and a certificate.

Phones at the table open the app on the laptop that serves it. The address they need is the
laptop's on the home network (not ``localhost``); :func:`lan_address` finds it without sending
anything. A phone's browser grants the live camera only to secure pages (HTTPS, or localhost),
so ``rummikub app --https`` serves over HTTPS with a self-signed certificate that
:func:`ensure_certificate` makes here on first use: no certificate authority, no network. The
browser warns that it does not know who signed it; on one's own network that is expected.
"""

from __future__ import annotations

import base64
import datetime as dt
import io
import ipaddress
import os
import socket
from collections.abc import Sequence
from pathlib import Path

from solver.i18n import DEFAULT_LANGUAGE, TranslatableError, tr

#: Any private address: "connecting" a UDP socket to it sends nothing, but makes the system
#: pick the interface (and so the source address) it would route there, i.e. the LAN one.
_PROBE = ("10.255.255.255", 1)
LOOPBACK = "127.0.0.1"
CERTIFICATE_DIR = "tls"
CERTIFICATE_FILE = "cert.pem"
KEY_FILE = "key.pem"
#: Long enough for years of game nights; browsers distrust a self-signed certificate anyway.
CERTIFICATE_DAYS = 825


class CertificateError(TranslatableError, OSError):
    """The certificate for HTTPS cannot be made or stored (e.g. the data folder is read-only)."""


def browser_warning(lang: str = DEFAULT_LANGUAGE) -> str:
    """What the browser's warning about the self-signed certificate means, in one sentence."""
    return tr(
        "Browsers warn that this connection is not private because its certificate was made by this computer, "
        "not by an authority they know; on your own home network it is safe to continue.", lang,
    )


def lan_address() -> str:
    """This machine's IPv4 address on its network, or ``127.0.0.1`` when it has none."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(_PROBE)
            address = probe.getsockname()[0]
    except OSError:
        return LOOPBACK
    return address if address and address != "0.0.0.0" else LOOPBACK


def app_url(host: str, port: int, https: bool = False) -> str:
    """The address a phone opens: ``http(s)://host:port/``."""
    return f"{'https' if https else 'http'}://{host}:{port}/"


def qr_png(text: str, scale: int = 8) -> bytes:
    """``text`` as a QR code PNG (black on white, the standard quiet zone), made by segno.

    Error correction level Q (25 %): a code photographed off a screen reads more reliably.
    """
    import segno

    out = io.BytesIO()
    segno.make(text, error="q").save(out, kind="png", scale=scale, border=4)
    return out.getvalue()


def png_data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def certificate_paths(directory: Path) -> tuple[Path, Path]:
    """Where the certificate and its key live under the data folder."""
    folder = Path(directory) / CERTIFICATE_DIR
    return folder / CERTIFICATE_FILE, folder / KEY_FILE


def ensure_certificate(directory: Path, hosts: Sequence[str], now: dt.datetime | None = None) -> tuple[Path, Path]:
    """The certificate and key files for ``hosts`` under ``directory``, made on first use.

    A certificate already there is kept while it is valid and names every host (so a phone
    sees the same one each game night); a new address on the network makes a new one.
    """
    now = now or dt.datetime.now(dt.timezone.utc)
    cert_path, key_path = certificate_paths(directory)
    if cert_path.is_file() and key_path.is_file() and _covers(cert_path.read_bytes(), hosts, now):
        return cert_path, key_path
    cert_pem, key_pem = make_certificate(hosts, now)
    try:
        cert_path.parent.mkdir(parents=True, exist_ok=True)
        _write_private(key_path, key_pem)
        _write_private(cert_path, cert_pem)
    except OSError as err:
        raise CertificateError(
            "cannot store the HTTPS certificate in {path}: {reason}", path=str(cert_path.parent), reason=str(err)
        ) from err
    return cert_path, key_path


def make_certificate(hosts: Sequence[str], now: dt.datetime) -> tuple[bytes, bytes]:
    """A self-signed certificate (PEM) naming ``hosts`` (IP addresses or names), and its key."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Rummikub assistant (this computer)")])
    names = [_general_name(host) for host in dict.fromkeys(hosts)]
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=CERTIFICATE_DAYS))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return certificate.public_bytes(serialization.Encoding.PEM), key_pem


def certificate_hosts(cert_pem: bytes) -> frozenset[str]:
    """The addresses and names a certificate is for."""
    from cryptography import x509

    certificate = x509.load_pem_x509_certificate(cert_pem)
    names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return frozenset(
        [str(ip) for ip in names.get_values_for_type(x509.IPAddress)] + names.get_values_for_type(x509.DNSName)
    )


def _covers(cert_pem: bytes, hosts: Sequence[str], now: dt.datetime) -> bool:
    from cryptography import x509

    try:
        certificate = x509.load_pem_x509_certificate(cert_pem)
        valid = certificate.not_valid_before_utc <= now < certificate.not_valid_after_utc
        return valid and set(hosts) <= certificate_hosts(cert_pem)
    except (ValueError, x509.ExtensionNotFound):  # damaged, or not one of ours: make a new one
        return False


def _general_name(host: str):
    from cryptography import x509

    try:
        return x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        return x509.DNSName(host)


def _write_private(path: Path, data: bytes) -> None:
    """Write ``data`` readable by this user only, replacing the file in one step."""
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
    os.replace(temporary, path)
