"""One translation layer for every user-facing string (CLI, app, move explanations).

Messages are written in English in the code, marked with :func:`gettext`-style calls, and
looked up in catalogs under ``solver/locales/<lang>/LC_MESSAGES/rummikub.mo``. A language
without a catalog falls back to English, so adding a language is adding a catalog.
"""

from __future__ import annotations

import gettext as _gettext
from functools import lru_cache
from pathlib import Path

from .tiles import Tile

DOMAIN = "rummikub"
LOCALE_DIR = Path(__file__).with_name("locales")
DEFAULT_LANGUAGE = "en"
LANGUAGES = ("en", "uk", "ru", "ro")


@lru_cache(maxsize=None)
def translator(lang: str = DEFAULT_LANGUAGE) -> _gettext.NullTranslations:
    """The catalog for ``lang`` (English source strings when there is none)."""
    return _gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang], fallback=True)


def tr(message: str, lang: str = DEFAULT_LANGUAGE, **params: object) -> str:
    """Translate ``message`` and fill its ``{named}`` parameters."""
    text = translator(lang).gettext(message)
    return text.format(**params) if params else text


def tr_in(context: str, message: str, lang: str = DEFAULT_LANGUAGE, **params: object) -> str:
    """Like :func:`tr` for a message that reads differently in ``context`` (gettext ``msgctxt``)."""
    text = translator(lang).pgettext(context, message)
    return text.format(**params) if params else text


def colour_name(tile: Tile, lang: str = DEFAULT_LANGUAGE, plural: bool = False) -> str:
    """A tile's colour as an adjective agreeing with "tile" (feminine in uk/ru: "червона 7");
    ``plural`` for the colour of several tiles at once, as in a run ("червоні 4 5 6")."""
    assert tile.colour is not None
    if plural:
        names = {
            "black": tr_in("several tiles", "black", lang),
            "blue": tr_in("several tiles", "blue", lang),
            "orange": tr_in("several tiles", "orange", lang),
            "red": tr_in("several tiles", "red", lang),
        }
    else:
        names = {
            "black": tr("black", lang),
            "blue": tr("blue", lang),
            "orange": tr("orange", lang),
            "red": tr("red", lang),
        }
    return names[tile.colour.value]


def tile_label(tile: Tile, lang: str = DEFAULT_LANGUAGE) -> str:
    """How players say a tile, e.g. "red 7" or "joker"."""
    if tile.is_joker:
        return tr("joker", lang)
    return tr("{colour} {number}", lang, colour=colour_name(tile, lang), number=tile.number)
