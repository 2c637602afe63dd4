"""The sidebar's "Join from a phone": the app's home-network address as a QR code and as text."""

from __future__ import annotations

import html
from functools import cache

import streamlit as st

from solver.i18n import tr

from .components import show_html
from .network import app_url, browser_warning, lan_address, png_data_uri, qr_png


def serving_https() -> bool:
    """Whether this server was started with a certificate (``rummikub app --https``)."""
    return bool(st.get_option("server.sslCertFile"))


def join_url() -> str:
    """The address phones on the home network open to reach this server."""
    return app_url(lan_address(), int(st.get_option("server.port")), serving_https())


@cache
def qr_data_uri(url: str) -> str:
    return png_data_uri(qr_png(url))


def join_panel(lang: str) -> None:
    url = join_url()
    with st.expander(tr("Join from a phone", lang)):
        st.caption(tr("Scan the code with the phone's camera, or type the address.", lang))
        alt = html.escape(tr("QR code of {url}", lang, url=url))
        show_html(f'<div><img class="rk-join-qr" src="{qr_data_uri(url)}" alt="{alt}" style="width:100%;max-width:14rem"></div>')
        st.code(url, language=None)
        if serving_https():
            st.caption(browser_warning(lang))
        else:
            st.caption(tr(
                "Phones take photos with the upload button. For the live camera in the browser, start the app "
                "with: rummikub app --https", lang,
            ))
