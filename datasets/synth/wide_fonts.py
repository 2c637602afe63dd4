"""A wide pool of digit fonts for training renders only (issue 15: read anyone's tiles).

The training editions draw their digits in about ten fonts, and every new edition a player
brings has a font of its own. Text readers generalise across fonts by being trained on many of
them; this is that pool: bold faces of 39 free fonts from Debian's font packages —
grotesque, geometric, humanist and rounded sans, transitional and Clarendon-like serifs, monospaced and
hand-drawn-looking faces. :func:`with_wide_fonts` draws a training edition's tiles (its palette,
marks, jokers and body) in these fonts instead of its own.

The held-out editions' fonts, and every font made to match their metrics and shapes, are kept
out (:data:`HELD_OUT_LOOK_ALIKES`), so that the held-out figures still measure fonts never seen.
Nothing here is used when a photo is read, and the test sets never draw these fonts.

Install: ``apt-get install`` the packages of :data:`WIDE_FONT_PACKAGES` (fonts missing on a
machine are left out of the pool; :func:`with_wide_fonts` refuses an empty pool).
"""

from __future__ import annotations

from dataclasses import replace

from datasets.synth.editions import Edition

__all__ = ["WIDE_FONT_FILES", "WIDE_FONT_PACKAGES", "HELD_OUT_LOOK_ALIKES", "installed_wide_fonts", "with_wide_fonts"]

#: Font file name -> the Debian package that installs it (under /usr/share/fonts).
WIDE_FONT_FILES: dict[str, str] = {
    # sans: grotesque, neo-grotesque, humanist, geometric, rounded
    "Roboto-Bold.ttf": "fonts-roboto",
    "Roboto-Black.ttf": "fonts-roboto",
    "RobotoCondensed-Bold.ttf": "fonts-roboto",
    "OpenSans-Bold.ttf": "fonts-open-sans",
    "OpenSans-ExtraBold.ttf": "fonts-open-sans",
    "OpenSans-CondBold.ttf": "fonts-open-sans",
    "Lato-Bold.ttf": "fonts-lato",
    "Lato-Black.ttf": "fonts-lato",
    "Inter-Bold.otf": "fonts-inter",
    "Inter-Black.otf": "fonts-inter",
    "Cantarell-Bold.otf": "fonts-cantarell",
    "Cantarell-ExtraBold.otf": "fonts-cantarell",
    "Cabin-Bold.otf": "fonts-cabin",
    "Carlito-Bold.ttf": "fonts-crosextra-carlito",
    "Oxygen-Sans-Bold.ttf": "fonts-oxygen",
    "Go-Bold.ttf": "fonts-go",
    "LeagueSpartan-Bold.otf": "fonts-league-spartan",
    "LeagueSpartan-Black.otf": "fonts-league-spartan",
    "URWGothic-Demi.otf": "fonts-urw-base35",
    "Quicksand-Bold.ttf": "fonts-quicksand",
    "Jura-Bold.otf": "fonts-jura",
    "Andika-Bold.ttf": "fonts-sil-andika",
    "ComicNeue-Bold.otf": "fonts-comic-neue",
    "NotoSans-Bold.ttf": "fonts-noto-core",
    "NotoSansDisplay-Bold.ttf": "fonts-noto-core",
    # serif: old-style, transitional, slab-like, Clarendon-like
    "C059-Bold.otf": "fonts-urw-base35",
    "P052-Bold.otf": "fonts-urw-base35",
    "URWBookman-Demi.otf": "fonts-urw-base35",
    "Caladea-Bold.ttf": "fonts-crosextra-caladea",
    "BaskervaldADFStd-Bold.otf": "fonts-adf-baskervald",
    "NotoSerif-Bold.ttf": "fonts-noto-core",
    "NotoSerifDisplay-Bold.ttf": "fonts-noto-core",
    "STIX-Bold.otf": "fonts-stix",
    # monospaced
    "Cousine-Bold.ttf": "fonts-croscore",
    "Hack-Bold.ttf": "fonts-hack",
    "FiraCode-Bold.ttf": "fonts-firacode",
    "Go-Mono-Bold.ttf": "fonts-go",
    "NimbusMonoPS-Bold.otf": "fonts-urw-base35",
    "FantasqueSansMono-Bold.ttf": "fonts-fantasque-sans",
}

#: The Debian packages of the pool, in the order to install them.
WIDE_FONT_PACKAGES: tuple[str, ...] = tuple(dict.fromkeys(WIDE_FONT_FILES.values()))

#: Font file-name prefixes kept out of the pool: the held-out editions' fonts (Liberation Sans and
#: Liberation Serif, datasets.synth.editions) and the fonts drawn to their metrics and shapes —
#: Arial/Helvetica and Times clones.
HELD_OUT_LOOK_ALIKES: tuple[str, ...] = (
    "LiberationSans-", "LiberationSerif-", "Arimo-", "Tinos-", "NimbusSans-", "NimbusSansNarrow-", "NimbusRoman-",
    "FreeSans", "FreeSerif", "texgyreheros", "texgyretermes", "TeXGyreHeros", "TeXGyreTermes", "Helvetica", "Arial",
    "Times",
)


def installed_wide_fonts(installed: set[str] | frozenset[str]) -> tuple[str, ...]:
    """The pool's fonts among ``installed`` (file names), in the pool's fixed order."""
    return tuple(name for name in WIDE_FONT_FILES if name in installed)


def with_wide_fonts(edition: Edition) -> Edition:
    """``edition`` drawing its digits in the wide pool's installed fonts (everything else its own)."""
    from datasets.synth.tiles import MissingFontError, font_names

    fonts = installed_wide_fonts(set(font_names()))
    if not fonts:
        raise MissingFontError(
            f"no font of the wide training pool is installed; install {' '.join(WIDE_FONT_PACKAGES)}"
        )
    return replace(edition, name=f"{edition.name}+wide-fonts", fonts=fonts)
