"""One translation layer for every user-facing string (CLI, app, move explanations).

Messages are written in English in the code, marked with :func:`gettext`-style calls, and
looked up in catalogs under ``solver/locales/<lang>/LC_MESSAGES/rummikub.mo``. A language
without a catalog falls back to English, so adding a language is adding a catalog.
"""

from __future__ import annotations

import gettext as _gettext
from collections.abc import Mapping
from dataclasses import dataclass, field
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


def tr(message: str, lang: str = DEFAULT_LANGUAGE, /, **params: object) -> str:
    """Translate ``message`` and fill its ``{named}`` parameters. ``message`` and ``lang`` are
    positional-only, so a template may name its own parameters ``{message}`` or ``{lang}``."""
    text = translator(lang).gettext(message)
    return text.format(**params) if params else text


def tr_in(context: str, message: str, lang: str = DEFAULT_LANGUAGE, /, **params: object) -> str:
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


@dataclass(frozen=True)
class Message:
    """A message to translate later: its English template and parameters (e.g. part of an
    error's text). ``text(lang)`` fills it in ``lang``; ``text()`` in English."""

    template: str
    params: Mapping[str, object] = field(default_factory=dict)

    def text(self, lang: str | None = None) -> str:
        values = {name: _param_text(value, lang) for name, value in self.params.items()}
        template = self.template if lang is None else tr(self.template, lang)
        return template.format(**values) if values else template


class TranslatableError(Exception):
    """An error whose message is a template and its parameters, so that the CLI and the app
    can show it in the player's language (:func:`error_text`) while ``str(err)`` stays English.

    Subclasses are raised as ``ScoringError("no round {index} on a sheet of {count} round(s)",
    index=3, count=2)``: the literal template is what the catalog tool extracts. A parameter
    may be a tile, a sequence of tiles, a :class:`Message` or a sequence of them, or another
    translatable error (a cause): each is shown in the reader's language too.
    """

    def __init__(self, message: str, /, **params: object) -> None:
        self.message = message
        self.params = params
        super().__init__(self.text())

    def text(self, lang: str | None = None) -> str:
        """The message in ``lang`` (``None``: the English source, as ``str(err)`` gives it)."""
        return Message(self.message, self.params).text(lang)

    def __reduce__(self):  # keep errors picklable despite the keyword parameters
        return (_rebuild_error, (type(self), self.message, self.params, self.__dict__))


def _rebuild_error(cls: type, message: str, params: dict, state: dict) -> "TranslatableError":
    err = cls.__new__(cls)
    err.__dict__.update(state)
    err.message, err.params = message, params
    Exception.__init__(err, err.text())
    return err


def _param_text(value: object, lang: str | None) -> object:
    if isinstance(value, (TranslatableError, Message)):
        return value.text(lang)
    if isinstance(value, Tile):
        return value.name if lang is None else tile_label(value, lang)
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, (Tile, Message)) for v in value):
        return ", ".join(str(_param_text(v, lang)) for v in value)
    return value


def error_text(err: BaseException, lang: str = DEFAULT_LANGUAGE) -> str:
    """What to show a player about ``err``: translated when it is a :class:`TranslatableError`,
    its English text otherwise (errors from outside the project)."""
    if isinstance(err, TranslatableError):
        return err.text(lang)
    return str(err)
