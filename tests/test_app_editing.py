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


def _sample(name: str, probs: dict[str, float], box=(0.0, 0.0, 40.0, 60.0)):
    import numpy as np

    from solver.tiles import NUM_KINDS
    from vision.profiles import TileSample

    row = np.full(NUM_KINDS, 1e-6)
    for tile, p in probs.items():
        row[parse_tile(tile).index] = p
    return TileSample(parse_tile(name), np.zeros((1, 2, 2, 3), np.uint8), np.zeros(4), box, row / row.sum())


def test_a_colour_change_is_followed_by_the_photos_tiles_that_look_as_much_like_the_new_colour():
    """``app.tile_profiles.follow_colour``: the chips of the same photo change, marked; the player's own do not."""
    from app.tile_profiles import follow_colour

    samples = {
        "table": (_sample("k7", {"k7": 0.7, "b7": 0.3}), _sample("k8", {"k8": 0.6, "b8": 0.4}),
                  _sample("k9", {"k9": 0.5, "b9": 0.5}), _sample("k3", {"k3": 0.62, "b3": 0.38})),
        "rack": (_sample("k4", {"k4": 0.5, "b4": 0.5}),),
    }
    melds = (tuple(Chip(s.tile, sample=("table", i)) for i, s in enumerate(samples["table"][:3])),)
    photo = TableAndRack(melds, (Chip(parse_tile("k3"), sample=("table", 3)), Chip(parse_tile("k4"), sample=("rack", 0))))
    set_by_player = change_tile(photo, (0, 2), parse_tile("k9"))  # the player confirmed black 9 earlier
    set_by_player = change_tile(set_by_player, (0, 0), parse_tile("b7"))
    followed, changes = follow_colour(change_tile(photo, (0, 2), parse_tile("k9")), set_by_player, samples)
    assert changes == ((parse_tile("k7"), parse_tile("b7"), 2),)
    assert tuple(c.tile for c in followed.melds[0]) == parse_tiles("b7 b8 k9")
    b8 = followed.melds[0][1]
    assert b8.followed and b8.uncertain and not b8.edited and b8.alternatives == (parse_tile("k8"),) and b8.sample == ("table", 1)
    assert followed.rack[0].tile == parse_tile("b3") and followed.rack[0].followed  # the table photo's tile, in the rack row
    assert followed.rack[1] == set_by_player.rack[1]  # the rack is another photo
    assert followed.melds[0][2].edited and not followed.melds[0][2].followed
    back = change_tile(followed, (0, 1), parse_tile("k8"))  # a follower set back: the other (black odds 1.6 >= 1.5) stays
    assert follow_colour(followed, back, samples) == (back, ())
    # A change of number, a tile without the reader's probabilities, or no change: nothing follows.
    assert follow_colour(photo, change_tile(photo, (0, 0), parse_tile("k6")), samples)[1] == ()
    bare = {"table": tuple(replace_probs(s) for s in samples["table"])}
    assert follow_colour(photo, change_tile(photo, (0, 0), parse_tile("b7")), bare)[1] == ()
    assert follow_colour(photo, photo, samples) == (photo, ())


def replace_probs(sample):
    from dataclasses import replace

    return replace(sample, probs=None)


def photo_table_rack() -> TableAndRack:
    """A table photo's two melds and a rack photo's tiles, each chip knowing its photo tile."""
    melds = tuple(
        tuple(Chip(parse_tile(n), sample=("table", i)) for i, n in positions)
        for positions in (((0, "r4"), (1, "r5"), (2, "r6")), ((3, "k9"), (4, "b9")))
    )
    return TableAndRack(melds, tuple(Chip(parse_tile(n), sample=("rack", i)) for i, n in enumerate(("o1", "o2"))))


def test_a_tile_the_camera_left_out_is_added_where_it_lay_marked_for_a_check():
    from app.editing import Offer, add_offered, not_added

    lay = photo_table_rack()
    after_r6 = Offer("table", 1, parse_tile("r7"), (parse_tile("k7"),), ("table", 2), before=False)
    before_k9 = Offer("table", 2, parse_tile("o9"), (), ("table", 3), before=True)
    on_rack = Offer("rack", 1, parse_tile("o3"), (), ("rack", 1), before=False)
    added = add_offered(add_offered(add_offered(lay, after_r6), before_k9), on_rack)
    assert added.table_tiles == parse_melds("r4 r5 r6 r7 | o9 k9 b9")
    assert added.rack_tiles == parse_tiles("o1 o2 o3")
    chip = added.chip((0, 3))
    assert chip.uncertain and not chip.edited and chip.offered == ("table", 1) and chip.alternatives == (parse_tile("k7"),)
    assert not_added(added, [after_r6, before_k9, on_rack]) == ()
    assert not_added(lay, [after_r6, on_rack]) == (after_r6, on_rack)
    with pytest.raises(EditError, match="added already"):
        add_offered(added, after_r6)
    # changed by the player, it is still the tile added from that box
    assert not_added(change_tile(added, (0, 3), parse_tile("b7")), [after_r6]) == ()


def test_a_left_out_tile_follows_the_tile_it_lay_beside_and_without_one_starts_a_meld_or_ends_the_rack():
    from app.editing import Offer, add_offered

    lay = move_tile(photo_table_rack(), (0, 2), 1)  # the red 6 moved to the second meld
    assert add_offered(lay, Offer("table", 1, parse_tile("r7"), (), ("table", 2))).table_tiles == parse_melds("r4 r5 | k9 b9 r6 r7")
    gone = remove_tile(lay, (1, 2))
    assert add_offered(gone, Offer("table", 1, parse_tile("r7"), (), ("table", 2))).table_tiles == parse_melds("r4 r5 | k9 b9 | r7")
    assert add_offered(lay, Offer("table", 1, parse_tile("j"), ())).table_tiles == parse_melds("r4 r5 | k9 b9 r6 | j")
    assert add_offered(lay, Offer("rack", 1, parse_tile("j"), (), ("rack", 9))).rack_tiles == parse_tiles("o1 o2 j")
