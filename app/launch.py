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
    "theme.base": "light",
}


def _flag_value(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def streamlit_command(port: int | None = None, address: str | None = None, extra: Sequence[str] = ()) -> list[str]:
    """The Streamlit command line that serves the app: ``streamlit run`` the packaged ``main.py``, our settings."""
    command = ["streamlit", "run", str(MAIN)]
    settings = dict(SETTINGS)
    if port is not None:
        settings["server.port"] = port
    if address is not None:
        settings["server.address"] = address
    for key, value in settings.items():
        command += [f"--{key}", _flag_value(value)]
    return command + list(extra)


def serve(port: int | None = None, address: str | None = None) -> int:
    """Run the app in this process until it is stopped (Ctrl+C); return Streamlit's exit status.

    In this process rather than a child, so that stopping ``rummikub app`` stops the server too.
    """
    from streamlit.web import cli as streamlit_cli

    sys.argv = streamlit_command(port, address)
    try:
        streamlit_cli.main()
    except SystemExit as stop:  # click ends the command with SystemExit
        return stop.code if isinstance(stop.code, int) else 0
    return 0
