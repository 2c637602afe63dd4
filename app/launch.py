"""``rummikub app``: start the Streamlit app from wherever the package is installed.

``streamlit run app/main.py`` in a checkout reads ``.streamlit/config.toml`` from the folder it
starts in; an installed package has no such folder, so the launcher passes the same settings
as command-line flags (:data:`SETTINGS`; a test keeps the two equal).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

MAIN = Path(__file__).resolve().with_name("main.py")

#: The app's Streamlit settings, section.key -> value (as in ``.streamlit/config.toml``).
SETTINGS: Mapping[str, object] = {
    "server.headless": True,
    "server.maxUploadSize": 25,
    "server.maxMessageSize": 50,
    "server.enableXsrfProtection": True,
    "browser.gatherUsageStats": False,
    "client.toolbarMode": "minimal",
    "client.showErrorDetails": "none",
    "runner.magicEnabled": False,
    "runner.postScriptGC": False,
    "theme.base": "light",
}


def _flag_value(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def streamlit_command(
    port: int | None = None, address: str | None = None, extra: Sequence[str] = (),
    certificate: tuple[Path, Path] | None = None,
) -> list[str]:
    """The Streamlit command line that serves the app: ``streamlit run`` the packaged ``main.py``,
    our settings, and a (certificate, key) pair to serve over HTTPS."""
    command = ["streamlit", "run", str(MAIN)]
    settings = dict(SETTINGS)
    if port is not None:
        settings["server.port"] = port
    if address is not None:
        settings["server.address"] = address
    if certificate is not None:
        settings["server.sslCertFile"], settings["server.sslKeyFile"] = (str(path) for path in certificate)
    for key, value in settings.items():
        command += [f"--{key}", _flag_value(value)]
    return command + list(extra)


def https_certificate() -> tuple[Path, Path]:
    """The self-signed certificate for this computer's addresses, under the data folder
    (``$RUMMIKUB_DATA_DIR``, as for the score database), made on first use."""
    from app.network import LOOPBACK, ensure_certificate, lan_address
    from app.storage import default_database_path

    return ensure_certificate(default_database_path().parent, [lan_address(), LOOPBACK, "localhost"])


def serve(port: int | None = None, address: str | None = None, https: bool = False, lang: str = "en") -> int:
    """Run the app in this process until it is stopped (Ctrl+C); return Streamlit's exit status.

    In this process rather than a child, so that stopping ``rummikub app`` stops the server too.
    ``https``: serve over HTTPS (phones grant the live camera only to secure pages) with
    :func:`https_certificate`, and say what the browser's warning about it means.
    """
    from streamlit.web import cli as streamlit_cli

    certificate = None
    if https:
        from app.network import browser_warning

        certificate = https_certificate()
        print(browser_warning(lang))
    sys.argv = streamlit_command(port, address, certificate=certificate)
    try:
        streamlit_cli.main()
    except SystemExit as stop:  # click ends the command with SystemExit
        return stop.code if isinstance(stop.code, int) else 0
    return 0
