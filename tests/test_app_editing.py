"""Fixing a reading: each edit is a pure function from table_rack to table_rack."""

from __future__ import annotations

import pytest

from app.editing import NEW_MELD, RACK_ROW, Chip, EditError, TableAndRack, add_tiles, change_tile, move_tile, remove_tile
from solver.tiles import parse_melds, parse_tile, parse_tiles


def table_rack(table: str, rack: str) -> TableAndRack:
    return TableAndRack.typed(parse_melds(table), parse_tiles(rack))


def test_typed_layout_round_trips_tiles_and_lists_places_in_reading_order():
    lay = table_rack("r4 r5 r6 | k5 b5", "j")
    assert lay.table_tiles == parse_melds("r4 r5 r6 | k5 b5")
    assert lay.rack_tiles == parse_tiles("j")
    assert lay.places() == ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (RACK_ROW, 0))
    assert lay.uncertain_places == ()


def test_change_marks_the_chip_as_set_and_certain():
    doubtful = TableAndRack(((Chip(parse_tile("r4")), Chip(parse_tile("k6"), uncertain=True, alternatives=(parse_tile("r6"),))),))
    assert doubtful.uncertain_places == ((0, 1),)
    fixed = change_tile(doubtful, (0, 1), parse_tile("r6"))
    chip = fixed.chip((0, 1))
    assert chip.tile == parse_tile("r6") and chip.edited and not chip.uncertain
    assert chip.alternatives == (parse_tile("r6"),)
    assert fixed.uncertain_places == ()
    assert doubtful.chip((0, 1)).tile == parse_tile("k6")  # the old table_rack is untouched


def test_remove_drops_a_meld_left_empty():
    lay = table_rack("r4 r5 r6 | o9", "r7")
    assert remove_tile(lay, (0, 0)).table_tiles == parse_melds("r5 r6 | o9")
    assert remove_tile(lay, (1, 0)).table_tiles == parse_melds("r4 r5 r6")
    assert remove_tile(lay, (RACK_ROW, 0)).rack_tiles == ()


def test_add_to_a_meld_the_rack_or_a_new_meld():
    lay = table_rack("k5 b5", "r7")
    assert add_tiles(lay, 0, parse_tiles("o5")).table_tiles == parse_melds("k5 b5 o5")
    assert add_tiles(lay, RACK_ROW, parse_tiles("j k1")).rack_tiles == parse_tiles("r7 j k1")
    grown = add_tiles(lay, NEW_MELD, parse_tiles("r1 r2 r3"))
    assert grown.table_tiles == parse_melds("k5 b5 | r1 r2 r3")
    assert all(c.edited for c in grown.melds[1])
    with pytest.raises(EditError):
        add_tiles(lay, 0, ())
    with pytest.raises(EditError):
        add_tiles(lay, 5, parse_tiles("r1"))


def test_move_between_melds_rack_and_new_meld():
    lay = table_rack("r4 r5 r6 r7 | o9", "k1")
    assert move_tile(lay, (0, 3), 1).table_tiles == parse_melds("r4 r5 r6 | o9 r7")
    to_rack = move_tile(lay, (1, 0), RACK_ROW)
    assert to_rack.table_tiles == parse_melds("r4 r5 r6 r7")  # meld 2 emptied and dropped
    assert to_rack.rack_tiles == parse_tiles("k1 o9")
    assert move_tile(lay, (RACK_ROW, 0), NEW_MELD).table_tiles == parse_melds("r4 r5 r6 r7 | o9 | k1")
    assert move_tile(lay, (0, 0), 0) == lay
    assert move_tile(lay, (1, 0), 0).table_tiles == parse_melds("r4 r5 r6 r7 o9")


def test_edits_of_places_that_are_gone_are_refused():
    lay = table_rack("r4 r5 r6", "")
    for edit in (
        lambda: change_tile(lay, (0, 9), parse_tile("r1")),
        lambda: remove_tile(lay, (3, 0)),
        lambda: move_tile(lay, (RACK_ROW, 0), 0),
        lambda: move_tile(lay, (0, 0), 7),
    ):
        with pytest.raises(EditError):
            edit()



def test_what_the_player_changed_and_removed_is_found_by_photo_tile_and_a_move_is_neither():
    """``app.tile_profiles.corrections`` and ``removals``: what the session remembers of a fix."""
    from app.tile_profiles import corrections, removals

    chips = [Chip(parse_tile(n), sample=("table", i)) for i, n in enumerate(("r4", "r5", "r6"))]
    photo = TableAndRack((tuple(chips),), (Chip(parse_tile("k7"), sample=("rack", 0)), Chip(parse_tile("j"))))
    changed = change_tile(photo, (0, 1), parse_tile("b5"))
    assert corrections(photo, changed) == ((("table", 1), parse_tile("b5")),) and removals(photo, changed) == ()
    moved = move_tile(photo, (0, 2), RACK_ROW)
    assert corrections(photo, moved) == () and removals(photo, moved) == ()
    removed = remove_tile(remove_tile(photo, (RACK_ROW, 1)), (RACK_ROW, 0))  # the typed joker has no photo tile
    assert removals(photo, removed) == (("rack", 0),) and corrections(photo, removed) == ()
    gone = remove_tile(remove_tile(remove_tile(photo, (0, 0)), (0, 0)), (0, 0))  # the meld disappears
    assert removals(photo, gone) == (("table", 0), ("table", 1), ("table", 2))


def test_a_tile_is_taken_out_of_a_racks_typed_line_only_when_that_is_sure():
    """``app.tile_profiles.taken_out`` (the Score page): a read tile deleted from the line is taken
    out; a tile changed in the line, or one of two copies deleted, is not known to be."""
    from app.tile_profiles import taken_out

    read = [Chip(parse_tile(n), sample=("rack", i)) for i, n in enumerate(("r7", "r7", "b2", "j", "k9"))]
    typed = parse_tiles
    assert taken_out(read, typed("r7 r7 b2 k9")) == (("rack", 3),)  # the phantom joker deleted
    assert taken_out(read, typed("r7 r7 b2 j k9")) == ()  # nothing deleted
    assert taken_out(read, typed("r7 b2 k9")) == (("rack", 3),)  # which red 7 went is not known
    assert taken_out(read, typed("r7 r7 b2 k9 o4")) == ()  # a tile typed that was not read: changed, maybe
    assert taken_out(read, typed("r7 r7 b3 k9")) == ()  # the b2 changed to b3 and the joker gone: unclear
    assert taken_out(read, typed("")) == ()  # a line emptied: another rack's photo, say
    assert taken_out([Chip(parse_tile("j")), Chip(parse_tile("k1"), sample=("rack", 1))], typed("k1")) == ()  # a typed tile has no photo tile
