"""Tile editions: what one manufacturer's box of tiles looks like, as a value the renderer takes.

Rummikub has been printed by many makers for decades: fonts, ink palettes, the mark under 6 and 9,
a circle behind the digit, joker faces, the plastic's tone and the tile's shape all differ. One
photo shows one box, so a scene draws one :class:`Edition` and every tile in it follows it (each
tile still varies a little: ink drift, light, wear).

Generalisation is measured by *leaving editions out*: :data:`HELD_OUT` names editions that no
training-data builder may render (``tests/test_editions.py`` enforces it); the test sets of
:mod:`training.testsets` render them. Their features are combinations and fonts that the training
editions do not have, so their figures say how the models read a box they have never seen.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from solver.tiles import Colour

__all__ = [
    "Mark",
    "Marked",
    "JokerFace",
    "Edition",
    "CATALOGUE",
    "HELD_OUT",
    "TRAINING_EDITIONS",
    "HELD_OUT_EDITIONS",
    "SIBLING_GAMES",
    "NEVER_TRAINED",
    "SELECTION_ONLY",
    "ASSORTED",
    "edition",
]

BGR = tuple[int, int, int]


class Mark(enum.Enum):
    """The small mark under the number that tells which way is up."""

    DOT = "dot"
    BAR = "bar"
    RING = "ring"
    LOGO = "logo"  # a tiny maker's emblem (a diamond in a ring)


class Marked(enum.Enum):
    """Which numbers carry the mark."""

    NONE = "none"
    ALL = "all"
    SIX_NINE = "six-nine"  # only 6 and 9, to tell them apart


class JokerFace(enum.Enum):
    SMILE = "smile"  # a smiling face in a circle
    TWO_FACED = "two-faced"  # two faces head to foot, like a playing card
    JESTER = "jester"  # a face under a three-pointed jester's hat
    CLOVER = "clover"  # a four-leaf clover: Okey's "false okey" tile, the sibling game's joker


@dataclass(frozen=True)
class Edition:
    """How one edition's tiles look. Ranges are (low, high) drawn per tile.

    ``fonts`` are names from :func:`datasets.synth.tiles.font_names`; empty means the assorted
    training fonts. ``inks`` gives the nominal BGR of black, blue, orange and red (in
    :class:`Colour` order); empty means :data:`datasets.synth.tiles.INK_BGR`. ``body`` is the
    plastic's nominal BGR; ``None`` draws today's ivory / cream / white per tile.
    """

    name: str
    fonts: tuple[str, ...] = ()
    stroke: tuple[float, float] = (0.0, 1.0)  # extra stroke weight per tile: dilation in 1/60 of the height
    inks: tuple[BGR, ...] = ()
    ink_drift: float = 1.0  # 1 = the assorted drift (teal blues, red/yellow oranges, grey blacks)
    black_sheen: float = 0.0  # how far black drifts to bronze / grey where light catches it (0..1)
    marks: tuple[Mark, ...] = (Mark.DOT, Mark.BAR, Mark.RING)
    marked: Marked = Marked.ALL
    digit_circle: bool = False  # a light disc printed behind the number
    jokers: tuple[JokerFace, ...] = (JokerFace.SMILE,)
    joker_inks: tuple[Colour, ...] = (Colour.RED, Colour.BLACK, Colour.ORANGE, Colour.BLUE)
    body: BGR | None = None
    aspect: tuple[float, float] = (0.62, 0.78)
    digit_height: tuple[float, float] = (0.27, 0.38)  # share of the face's height

    def __post_init__(self) -> None:
        if self.inks and len(self.inks) != len(Colour):
            raise ValueError(f"edition {self.name!r}: inks needs one colour per {[c.value for c in Colour]}")
        for low, high in (self.stroke, self.aspect, self.digit_height):
            if low > high:
                raise ValueError(f"edition {self.name!r}: a range runs from high to low")
        if not self.marks and self.marked is not Marked.NONE:
            raise ValueError(f"edition {self.name!r}: marked numbers need at least one mark shape")
        if not self.jokers or not self.joker_inks:
            raise ValueError(f"edition {self.name!r}: needs a joker face and a joker ink")

    def ink(self, colour: Colour) -> BGR | None:
        return self.inks[list(Colour).index(colour)] if self.inks else None


#: Today's generator: every training font, mark and ink drift mixed tile by tile.
ASSORTED = Edition("assorted")

CATALOGUE: tuple[Edition, ...] = (
    ASSORTED,
    # Like the real photos' edition: cream plastic, bold grotesque digits, a small ring under each.
    Edition(
        "classic",
        fonts=("DejaVuSans-Bold.ttf", "DejaVuSansCondensed-Bold.ttf"),
        stroke=(0.0, 0.6),
        inks=((34, 30, 30), (185, 100, 20), (20, 130, 235), (40, 30, 205)),
        ink_drift=0.5,
        marks=(Mark.RING, Mark.BAR),
        body=(214, 236, 246),
    ),
    # Teal blue, yellow-orange, a dot under every number, narrow tiles, two-faced jokers (shared
    # features of US editions, in another font and with the dot on every number).
    Edition(
        "travel-teal",
        fonts=("LiberationSansNarrow-Bold.ttf", "DejaVuSansCondensed-Bold.ttf"),
        stroke=(0.3, 1.0),
        inks=((40, 36, 34), (150, 125, 10), (10, 165, 240), (45, 35, 200)),
        ink_drift=0.7,
        marks=(Mark.DOT,),
        jokers=(JokerFace.TWO_FACED,),
        joker_inks=(Colour.RED, Colour.BLACK),
        body=(232, 240, 244),
        aspect=(0.6, 0.68),
    ),
    # Serif digits on a light circle (features of "Original" editions), deep blue, yellowed body.
    Edition(
        "vintage-serif",
        fonts=("DejaVuSerif-Bold.ttf", "DejaVuSerifCondensed-Bold.ttf", "STIXGeneralBol.ttf"),
        stroke=(0.0, 0.8),
        inks=((30, 30, 32), (170, 80, 25), (25, 120, 225), (35, 25, 180)),
        ink_drift=0.6,
        black_sheen=0.4,
        marks=(Mark.BAR,),
        digit_circle=True,
        jokers=(JokerFace.SMILE, JokerFace.JESTER),
        body=(175, 215, 232),
        aspect=(0.68, 0.76),
    ),
    # Bronze/grey black, cyan blue, logo under 6 and 9 only, mono digits, wide tiles.
    Edition(
        "bronze-mono",
        fonts=("DejaVuSansMono-Bold.ttf", "LiberationMono-Bold.ttf"),
        stroke=(0.2, 1.2),
        inks=((60, 75, 95), (210, 150, 10), (0, 150, 245), (50, 40, 215)),
        ink_drift=0.6,
        black_sheen=0.8,
        marks=(Mark.LOGO,),
        marked=Marked.SIX_NINE,
        jokers=(JokerFace.JESTER,),
        joker_inks=(Colour.ORANGE, Colour.RED),
        body=(238, 242, 243),
        aspect=(0.74, 0.82),
    ),
    # Hand-drawn-looking stroke fonts, no marks at all, white body.
    Edition(
        "stroke-plain",
        fonts=("hershey-2", "hershey-3", "hershey-0"),
        stroke=(0.5, 1.5),
        inks=((30, 30, 30), (200, 95, 10), (15, 140, 245), (30, 20, 215)),
        ink_drift=0.5,
        marks=(),
        marked=Marked.NONE,
        jokers=(JokerFace.SMILE,),
        body=(240, 244, 246),
    ),
    # HELD OUT: US-style: teal blue, a dot under 6 and 9 only, orange two-faced joker, Arial-like
    # digits (a font no training edition uses).
    Edition(
        "us-teal",
        fonts=("LiberationSans-Bold.ttf",),
        stroke=(0.2, 0.9),
        inks=((38, 34, 32), (160, 140, 0), (15, 155, 250), (40, 30, 210)),
        ink_drift=0.6,
        black_sheen=0.3,
        marks=(Mark.DOT,),
        marked=Marked.SIX_NINE,
        jokers=(JokerFace.TWO_FACED,),
        joker_inks=(Colour.ORANGE,),
        body=(226, 238, 245),
        aspect=(0.66, 0.74),
    ),
    # HELD OUT: "Original"-style: a light circle behind each digit, cyan-teal blue, bronze-looking
    # black, yellowed plastic, serif digits in a font no training edition uses.
    Edition(
        "original-circle",
        fonts=("LiberationSerif-Bold.ttf",),
        stroke=(0.0, 0.7),
        inks=((55, 65, 80), (200, 160, 20), (20, 140, 240), (40, 35, 195)),
        ink_drift=0.6,
        black_sheen=0.7,
        marks=(Mark.RING, Mark.DOT),
        marked=Marked.SIX_NINE,
        digit_circle=True,
        jokers=(JokerFace.SMILE,),
        joker_inks=(Colour.RED, Colour.BLACK),
        body=(185, 222, 238),
        aspect=(0.7, 0.78),
    ),
    # SELECTION ONLY (never trained on, never in a test set): the edition checkpoints and
    # settings are chosen on, so that a choice sees tiles no model was trained on without looking
    # at the test editions. Humanist heavy digits in two fonts no model has drawn (neither the
    # training editions' nor the wide pool's weights, nor a look-alike of the test editions'),
    # navy blue, amber orange, grey-sheened black, a bar under 6 and 9, a jester joker, a
    # grey-white body, squarish tiles.
    Edition(
        "selection-heavy",
        fonts=("Lato-Heavy.ttf", "Cabin-SemiBold.otf"),
        stroke=(0.1, 0.8),
        inks=((45, 42, 40), (120, 50, 15), (5, 150, 235), (45, 20, 190)),
        ink_drift=0.6,
        black_sheen=0.5,
        marks=(Mark.BAR,),
        marked=Marked.SIX_NINE,
        jokers=(JokerFace.JESTER,),
        joker_inks=(Colour.BLUE, Colour.RED),
        body=(228, 232, 232),
        aspect=(0.72, 0.8),
    ),
    # SIBLING GAME: Okey tiles: yellow where Rummikub has orange (read as orange, the honest
    # reading), a ring under every number, tall ivory tiles, the "false okey" clover for a joker.
    Edition(
        "okey",
        fonts=("LiberationSansNarrow-Bold.ttf",),
        stroke=(0.3, 1.0),
        inks=((32, 30, 30), (175, 95, 20), (10, 200, 240), (40, 30, 200)),
        ink_drift=0.5,
        marks=(Mark.RING,),
        jokers=(JokerFace.CLOVER,),
        joker_inks=(Colour.BLACK, Colour.RED),
        body=(212, 234, 244),
        aspect=(0.6, 0.68),
    ),
)

#: Editions no training data may contain: the leave-edition-out test sets render only these.
HELD_OUT: frozenset[str] = frozenset({"us-teal", "original-circle"})
#: Tiles of sibling games, never trained on and not a reading target: a photo of them must still
#: be read honestly (what is unsure flagged), never crash.
SIBLING_GAMES: frozenset[str] = frozenset({"okey"})
#: Editions only model selection renders (``training.testsets``' selection sets): never trained
#: on, never reported as a test.
SELECTION_ONLY: frozenset[str] = frozenset({"selection-heavy"})
#: Everything no training data may contain.
NEVER_TRAINED: frozenset[str] = HELD_OUT | SIBLING_GAMES | SELECTION_ONLY

_BY_NAME = {e.name: e for e in CATALOGUE}
TRAINING_EDITIONS: tuple[Edition, ...] = tuple(e for e in CATALOGUE if e.name not in NEVER_TRAINED)
HELD_OUT_EDITIONS: tuple[Edition, ...] = tuple(e for e in CATALOGUE if e.name in HELD_OUT)


def edition(name: str) -> Edition:
    """The catalogue's edition called ``name``."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown edition {name!r}; choose from {', '.join(_BY_NAME)}") from None
