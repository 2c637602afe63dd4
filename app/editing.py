"""The reading the player confirms before solving: melds and rack as chips, and the fixes.

A :class:`TableAndRack` is what the app shows and edits: the table's melds and the rack, each tile
a :class:`Chip` that remembers how sure the reader was and what else it might be. Every fix a
player makes at the table (change a tile, add a missed one, add one the camera left out, remove a
false one, move a tile to another meld or the rack) is one pure function returning a new table and rack, so the page only
wires buttons to these functions. No game rules live here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable, Protocol, Sequence

from solver.tiles import Tile
from vision.profiles import TileSample

#: A place in the table and rack: ``(meld index, position)``, meld index :data:`RACK_ROW` for the rack.
RACK_ROW = -1
#: A destination that starts a new meld at the end of the table.
NEW_MELD = -2

Place = tuple[int, int]


class EditError(ValueError):
    """A fix that does not apply to the table and rack as it is now (e.g. the tile was just removed)."""


@dataclass(frozen=True)
class Chip:
    """One tile as read: the tile, whether the reader was unsure, and what else it could be."""

    tile: Tile
    uncertain: bool = False
    corrected: bool = False
    alternatives: tuple[Tile, ...] = ()
    edited: bool = False
    confidence: float | None = None
    #: Which photo tile this is, ``(photo kind, index in its reading)``; None when typed.
    sample: tuple[str, int] | None = None
    #: Read as the player set a tile it looks like earlier in the session (:attr:`vision.reading.ReadTile.remembered`).
    remembered: bool = False
    #: Looks like a box the player removed earlier in the session (:attr:`vision.reading.ReadTile.like_removed`).
    like_removed: bool = False
    #: Changed by the app with a tile of the same photo whose colour the player changed
    #: (:func:`app.tile_profiles.follow_colour`): shown as unsure, for the player to check.
    followed: bool = False
    #: Its colour was read by the set's inks, which alone changed it or made it sure
    #: (:attr:`vision.reading.ReadTile.ink_doubt`): shown as unsure, for the player to check.
    ink_doubt: bool = False
    #: Its own digits are smeared in the photo (:attr:`vision.reading.ReadTile.blurred`): shown as
    #: unsure, for the player to check.
    blurred: bool = False
    #: Added by the player from a box the camera left out (:attr:`Offer.key`); None otherwise.
    offered: tuple[str, int] | None = None

    def fixed_to(self, tile: Tile) -> "Chip":
        """The chip after the player set it: certain now, marked as edited (still the same photo tile,
        or the same box the camera left out)."""
        return Chip(tile, edited=True, alternatives=self.alternatives, sample=self.sample, offered=self.offered)


@dataclass(frozen=True)
class TableAndRack:
    """The table's melds and the rack as the player sees and fixes them, one chip per tile."""

    melds: tuple[tuple[Chip, ...], ...] = ()
    rack: tuple[Chip, ...] = ()

    @staticmethod
    def typed(melds: Iterable[Iterable[Tile]] = (), rack: Iterable[Tile] = ()) -> "TableAndRack":
        return TableAndRack(tuple(tuple(Chip(t) for t in m) for m in melds), tuple(Chip(t) for t in rack))

    @property
    def table_tiles(self) -> tuple[tuple[Tile, ...], ...]:
        return tuple(tuple(c.tile for c in m) for m in self.melds)

    @property
    def rack_tiles(self) -> tuple[Tile, ...]:
        return tuple(c.tile for c in self.rack)

    @property
    def chips(self) -> tuple[Chip, ...]:
        """Every chip, in the order of :meth:`places`."""
        return tuple(c for meld in self.melds for c in meld) + self.rack

    @property
    def sure_table_tiles(self) -> tuple[Tile, ...]:
        """The table's tiles the player left unmarked (read surely, or set by them): no tile ever
        leaves the table, so a later photo of it shows them all."""
        return tuple(c.tile for meld in self.melds for c in meld if not c.uncertain)

    @property
    def uncertain_places(self) -> tuple[Place, ...]:
        return tuple(p for p in self.places() if self.chip(p).uncertain)

    def places(self) -> tuple[Place, ...]:
        """Every tile's place: table melds in order, then the rack."""
        table = tuple((m, i) for m, meld in enumerate(self.melds) for i in range(len(meld)))
        return table + tuple((RACK_ROW, i) for i in range(len(self.rack)))

    def row(self, row: int) -> tuple[Chip, ...]:
        if row == RACK_ROW:
            return self.rack
        if not 0 <= row < len(self.melds):
            raise EditError("there is no such meld")
        return self.melds[row]

    def chip(self, place: Place) -> Chip:
        row, index = place
        chips = self.row(row)
        if not 0 <= index < len(chips):
            raise EditError("that tile is no longer there")
        return chips[index]

    def with_table(self, melds: Iterable[Iterable[Chip]]) -> "TableAndRack":
        return replace(self, melds=tuple(tuple(m) for m in melds))

    def with_rack(self, rack: Iterable[Chip]) -> "TableAndRack":
        return replace(self, rack=tuple(rack))

    def _with_row(self, row: int, chips: Sequence[Chip]) -> "TableAndRack":
        if row == RACK_ROW:
            return replace(self, rack=tuple(chips))
        melds = list(self.melds)
        melds[row] = tuple(chips)
        return replace(self, melds=tuple(melds))

    def _drop_empty_melds(self) -> "TableAndRack":
        return replace(self, melds=tuple(m for m in self.melds if m))


@dataclass(frozen=True)
class Offer:
    """A box a photo's reading left out as more likely no tile that may be one
    (:class:`vision.reading.LeftOutTile`), as the page offers it to add with one tap."""

    #: The photo it is on ("table" or "rack") and its number there (as drawn on the photo, from 1).
    kind: str
    number: int
    #: The reader's likeliest tile for it, and the next likeliest.
    tile: Tile
    alternatives: tuple[Tile, ...] = ()
    #: The photo tile it lies next to (a chip's :attr:`Chip.sample`), and whether it comes before it.
    beside: tuple[str, int] | None = None
    before: bool = False
    #: Its crops and embedding (:attr:`vision.reading.LeftOutTile.sample`): what the session remembers
    #: when it is added; None where not kept.
    sample: TileSample | None = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> tuple[str, int]:
        return (self.kind, self.number)


def not_added(table_rack: TableAndRack, offers: Sequence[Offer]) -> tuple[Offer, ...]:
    """The ``offers`` no chip of ``table_rack`` was added from (what is still worth offering)."""
    added = {c.offered for c in table_rack.chips}
    return tuple(o for o in offers if o.key not in added)


def add_offered(table_rack: TableAndRack, offer: Offer) -> TableAndRack:
    """Add the tile the camera left out where it lay: beside the photo tile it lay next to, before
    or after it, wherever the player has put that tile since; with no such tile, as a new meld (a
    table photo) or at the end of the rack. Shown as unsure, with the reader's other guesses, for
    the player to check."""
    if not not_added(table_rack, [offer]):
        raise EditError("that tile was added already")
    chip = Chip(offer.tile, uncertain=True, alternatives=offer.alternatives, offered=offer.key)
    beside = next((p for p in table_rack.places() if offer.beside is not None and table_rack.chip(p).sample == offer.beside), None)
    if beside is None:
        if offer.kind == "table":
            return replace(table_rack, melds=table_rack.melds + ((chip,),))
        return table_rack.with_rack(table_rack.rack + (chip,))
    row, index = beside
    chips = list(table_rack.row(row))
    chips.insert(index if offer.before else index + 1, chip)
    return table_rack._with_row(row, chips)


def change_tile(table_rack: TableAndRack, place: Place, tile: Tile) -> TableAndRack:
    """Set the tile at ``place`` (the player read it better than the camera)."""
    chip = table_rack.chip(place)
    chips = list(table_rack.row(place[0]))
    chips[place[1]] = chip.fixed_to(tile)
    return table_rack._with_row(place[0], chips)


def remove_tile(table_rack: TableAndRack, place: Place) -> TableAndRack:
    """Drop a false tile; a meld left empty disappears."""
    table_rack.chip(place)
    chips = list(table_rack.row(place[0]))
    del chips[place[1]]
    return table_rack._with_row(place[0], chips)._drop_empty_melds()


def add_tiles(table_rack: TableAndRack, destination: int, tiles: Sequence[Tile]) -> TableAndRack:
    """Add missed tiles at the end of a meld, of the rack, or as a new meld."""
    if not tiles:
        raise EditError("no tile to add")
    chips = tuple(Chip(t, edited=True) for t in tiles)
    if destination == NEW_MELD:
        return replace(table_rack, melds=table_rack.melds + (chips,))
    return table_rack._with_row(destination, table_rack.row(destination) + chips)


def move_tile(table_rack: TableAndRack, place: Place, destination: int) -> TableAndRack:
    """Move a tile to the end of another meld, the rack, or a new meld of its own."""
    chip = table_rack.chip(place)
    if destination not in (NEW_MELD, RACK_ROW):
        table_rack.row(destination)  # exists?
    if destination == place[0]:
        return table_rack
    chips = list(table_rack.row(place[0]))
    del chips[place[1]]
    # Append first, then drop emptied melds, so meld indices stay valid while we work.
    moved = replace(chip, edited=True)
    out = table_rack._with_row(place[0], chips)
    if destination == NEW_MELD:
        out = replace(out, melds=out.melds + ((moved,),))
    else:
        out = out._with_row(destination, out.row(destination) + (moved,))
    return out._drop_empty_melds()


@dataclass(frozen=True)
class Reading:
    """One reading of the inputs (photos and typed tiles) and the player's fixes to it.

    Fixes belong to the reading they were made on: reading other inputs starts a new
    :class:`Reading` (and says so when fixes are left behind); reading the very same inputs
    again keeps the fixes (see :func:`keeps_fixes`), and :meth:`undone` goes back to the
    reading as it came. ``revision`` counts new readings and fixes in a session; the
    editor's widgets are keyed by it, so every selector always shows the table and rack as it is.
    """

    source: object
    original: TableAndRack
    table_rack: TableAndRack
    revision: int = 0
    photos: tuple[tuple[str, bytes], ...] = ()
    notes: tuple[str, ...] = ()
    #: The boxes the photos' readings left out that may be tiles, offered to add (:func:`add_offered`).
    offers: tuple[Offer, ...] = ()

    @property
    def fixed(self) -> bool:
        return self.table_rack != self.original

    def fixed_to(self, table_rack: TableAndRack) -> "Reading":
        return replace(self, table_rack=table_rack, revision=self.revision + 1)

    def undone(self) -> "Reading":
        return self.fixed_to(self.original)


class Fixable(Protocol):
    """A reading the player fixes: what it was read from, and whether it was fixed since
    (:class:`Reading`; the Check-a-turn page's :class:`app.turn_reading.TableReading`)."""

    @property
    def source(self) -> object: ...

    @property
    def fixed(self) -> bool: ...


def keeps_fixes(current: Fixable | None, source: object) -> bool:
    """Whether reading ``source`` must keep ``current`` as it is: the same inputs, already
    read and fixed (reading them again would only bring back what the player fixed)."""
    return current is not None and current.source == source and current.fixed


def new_reading(current: Reading | None, source: object, table_rack: TableAndRack,
                photos: tuple[tuple[str, bytes], ...] = (), notes: tuple[str, ...] = (),
                offers: tuple[Offer, ...] = ()) -> Reading:
    """A fresh reading of ``source``, a later revision than ``current`` (so no widget of the
    last reading is reused for it)."""
    revision = current.revision + 1 if current is not None else 0
    return Reading(source, table_rack, table_rack, revision, photos, notes, offers)
