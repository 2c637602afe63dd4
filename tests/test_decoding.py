"""Rule-aware decoding on hand-made probability arrays: repairs, copy limits, doubt, and restraint."""

from __future__ import annotations

import numpy as np
import pytest

from solver.rules import STANDARD, RuleSet
from solver.tiles import NUM_KINDS, parse_tile
from vision.decoding import DecodingError, DecodingSettings, argmax_decoding, decode


def probs_for(*rows: dict[str, float]) -> np.ndarray:
    """One row per tile: the named tiles get their probability, the rest share what is left."""
    out = np.zeros((len(rows), NUM_KINDS))
    for r, row in enumerate(rows):
        rest = 1.0 - sum(row.values())
        out[r, :] = rest / (NUM_KINDS - len(row))
        for name, p in row.items():
            out[r, parse_tile(name).index] = p
    return out


def sure(name: str, p: float = 0.98) -> dict[str, float]:
    return {name: p}


def names(decoding) -> list[str]:
    return [t.name for t in decoding.tiles]


def test_confident_valid_meld_is_left_alone():
    probs = probs_for(sure("red-7"), sure("red-8"), sure("red-9"))
    result = decode(probs, [[0, 1, 2]])
    assert names(result) == ["red-7", "red-8", "red-9"]
    assert result.corrected == (False, False, False)
    assert result.uncertain == (False, False, False)
    assert result.invalid_melds == ()
    assert min(result.confidence) > 0.95


def test_invalid_meld_repaired_to_nearly_as_probable_valid_reading():
    # The classifier slightly prefers orange for the middle tile; only red makes a run.
    probs = probs_for(sure("red-7"), {"orange-8": 0.55, "red-8": 0.40}, sure("red-9"))
    result = decode(probs, [[0, 1, 2]])
    assert names(result) == ["red-7", "red-8", "red-9"]
    assert result.corrected == (False, True, False)
    assert result.invalid_melds == ()
    # Under the rules the repaired tile is now well supported.
    assert result.confidence[1] > 0.95 and not result.uncertain[1]


def test_group_repaired_by_colour_a_group_can_still_use():
    probs = probs_for(sure("black-5"), {"black-5": 0.5, "blue-5": 0.45}, sure("red-5"))
    result = decode(probs, [[0, 1, 2]])
    assert names(result) == ["black-5", "blue-5", "red-5"]
    assert result.corrected == (False, True, False)


def test_strong_reading_is_not_overruled_even_if_the_meld_is_invalid():
    # orange-8 at 0.97 against red-8 at 0.02: ratio 0.02 < repair_ratio, keep what was seen.
    probs = probs_for(sure("red-7"), {"orange-8": 0.97, "red-8": 0.02}, sure("red-9"))
    result = decode(probs, [[0, 1, 2]])
    assert names(result) == ["red-7", "orange-8", "red-9"]
    assert result.corrected == (False, False, False)
    assert result.invalid_melds == (0,)
    assert not any(result.uncertain)


def test_rack_tiles_are_not_forced_into_melds():
    probs = probs_for(sure("red-7"), {"orange-8": 0.6, "red-8": 0.4}, sure("red-9"))
    result = decode(probs, [[0, 1, 2]], require_valid_melds=False)
    assert names(result) == ["red-7", "orange-8", "red-9"]
    assert result.corrected == (False, False, False)
    assert result.uncertain == (False, True, False)


def test_unrepairable_meld_keeps_classifier_confidence():
    # Two tiles can never be a meld: nothing to repair, confidences are the classifier's.
    probs = probs_for(sure("orange-7", 0.9), sure("red-7", 0.9))
    result = decode(probs, [[0, 1]])
    assert names(result) == ["orange-7", "red-7"]
    assert result.invalid_melds == (0,)
    assert result.confidence == pytest.approx((0.9, 0.9))


def test_copy_limit_resolved_by_least_costly_change():
    probs = probs_for(
        sure("blue-3", 0.99), sure("blue-3", 0.99), {"blue-3": 0.6, "blue-8": 0.35}
    )
    result = decode(probs, [], require_valid_melds=False)
    assert names(result) == ["blue-3", "blue-3", "blue-8"]
    assert result.corrected == (False, False, True)
    assert result.excess_copies == ()


def test_copy_limit_beyond_the_window_is_reported_not_guessed():
    probs = probs_for(sure("blue-3"), sure("blue-3"), sure("blue-3"))
    result = decode(probs, [], require_valid_melds=False)
    assert names(result) == ["blue-3"] * 3
    assert result.excess_copies == ((parse_tile("blue-3").index, 3),)
    assert result.corrected == (False, False, False)


def test_joker_limit_follows_the_rule_set():
    probs = probs_for(sure("joker", 0.7), sure("joker", 0.7), {"joker": 0.6, "red-1": 0.3})
    two = decode(probs, [], require_valid_melds=False)
    assert names(two) == ["joker", "joker", "red-1"]
    four = decode(probs, [], rules=STANDARD.with_(jokers=4), require_valid_melds=False)
    assert names(four) == ["joker"] * 3


def test_copy_limits_and_meld_validity_together():
    # Meld 1 is certain (two red-5 already elsewhere would make a third); meld 0's doubtful
    # tile must take the other reading that still keeps its run valid... here a joker.
    probs = probs_for(
        sure("red-4"), {"red-5": 0.5, "joker": 0.45}, sure("red-6"),
        sure("red-5"), sure("blue-5"), sure("black-5"),
        sure("red-5"), sure("red-6"), sure("red-7"),
    )
    result = decode(probs, [[0, 1, 2], [3, 4, 5], [6, 7, 8]])
    assert names(result)[:3] == ["red-4", "joker", "red-6"]
    assert result.corrected[1]
    assert result.excess_copies == ()


def test_uncertain_tile_without_rules_to_help():
    probs = probs_for({"black-6": 0.5, "black-9": 0.45})
    result = decode(probs, [], require_valid_melds=False)
    assert result.uncertain == (True,)
    assert result.confidence[0] == pytest.approx(0.5)


def test_ambiguous_repair_stays_uncertain():
    # Both blue-5 and orange-5 complete the group equally well: corrected, but ask the user.
    probs = probs_for(sure("black-5"), {"black-5": 0.5, "blue-5": 0.24, "orange-5": 0.24}, sure("red-5"))
    result = decode(probs, [[0, 1, 2]])
    assert result.corrected[1]
    assert names(result)[1] in ("blue-5", "orange-5")
    assert result.uncertain[1]
    assert 0.4 < result.confidence[1] < 0.6


def test_repair_ratio_setting_controls_what_counts_as_nearly_as_probable():
    probs = probs_for(sure("red-7"), {"orange-8": 0.8, "red-8": 0.15}, sure("red-9"))
    assert names(decode(probs, [[0, 1, 2]]))[1] == "red-8"  # 0.15/0.8 = 0.19 >= 0.1
    strict = DecodingSettings(repair_ratio=0.5)
    assert names(decode(probs, [[0, 1, 2]], settings=strict))[1] == "orange-8"


def test_long_meld_search_stays_bounded_and_exact_on_the_doubtful_tile():
    rows = [sure(f"black-{n}", 0.9) for n in range(1, 14)]
    rows[6] = {"blue-7": 0.5, "black-7": 0.45}
    result = decode(probs_for(*rows), [list(range(13))])
    assert names(result) == [f"black-{n}" for n in range(1, 14)]
    assert result.corrected[6] and sum(result.corrected) == 1


def test_rows_need_not_be_normalised():
    probs = probs_for(sure("red-7"), sure("red-8"), sure("red-9")) * 3.0
    assert names(decode(probs, [[0, 1, 2]])) == ["red-7", "red-8", "red-9"]


def test_empty_input():
    result = decode(np.zeros((0, NUM_KINDS)))
    assert result.labels == () and result.excess_copies == ()


@pytest.mark.parametrize(
    "probs, melds, message",
    [
        (np.ones((2, 10)), [], "probability array"),
        (np.full((1, NUM_KINDS), np.nan), [], "finite"),
        (-np.ones((1, NUM_KINDS)), [], "non-negative"),
        (np.zeros((1, NUM_KINDS)), [], "probability mass"),
        (np.ones((2, NUM_KINDS)), [[0, 2]], "outside"),
        (np.ones((3, NUM_KINDS)), [[0, 1], [1, 2]], "more than one meld"),
    ],
)
def test_bad_input_is_refused(probs, melds, message):
    with pytest.raises(DecodingError, match=message):
        decode(probs, melds)


def test_argmax_baseline_ignores_rules():
    probs = probs_for(sure("red-7"), {"orange-8": 0.55, "red-8": 0.40}, sure("red-9"))
    result = argmax_decoding(probs)
    assert names(result) == ["red-7", "orange-8", "red-9"]
    assert result.uncertain == (False, True, False)


def test_group_colours_rule_variant_is_respected():
    rules = RuleSet(group_colours_distinct=False)
    probs = probs_for(sure("black-5"), {"black-5": 0.5, "blue-5": 0.45}, sure("red-5"))
    assert names(decode(probs, [[0, 1, 2]], rules=rules))[1] == "black-5"


def test_default_uncertainty_threshold_is_the_calibrated_one():
    """A loose tile read at 87 % is flagged: the calibration sets and the unseen edition need 0.88 to
    flag 90 % of wrong tiles."""
    probs = np.full((1, NUM_KINDS), 0.13 / (NUM_KINDS - 1))
    probs[0, 5] = 0.87
    assert DecodingSettings().uncertain_below == pytest.approx(0.88)
    assert decode(probs).uncertain == (True,)
    assert argmax_decoding(probs).uncertain == (True,)
    sure = np.full((1, NUM_KINDS), 0.08 / (NUM_KINDS - 1))
    sure[0, 5] = 0.92
    assert decode(sure).uncertain == (False,)


def test_a_joker_the_rules_chose_is_no_surer_than_the_classifier_says():
    # A misread middle tile (red-3 where red-8 belongs): only a joker makes the run valid; the
    # rules choose it, but the tile hardly looks like a joker, so it goes to the player to confirm.
    probs = probs_for(sure("red-7"), {"red-3": 0.7, "joker": 0.2}, sure("red-9"))
    result = decode(probs, [[0, 1, 2]])
    assert names(result) == ["red-7", "joker", "red-9"]
    assert result.confidence[1] == pytest.approx(0.2) and result.uncertain[1]
    assert not result.uncertain[0] and not result.uncertain[2]


def test_a_joker_the_classifier_is_sure_of_stays_sure():
    probs = probs_for(sure("red-7"), sure("joker", 0.985), sure("red-9"))
    result = decode(probs, [[0, 1, 2]])
    assert names(result) == ["red-7", "joker", "red-9"]
    assert result.confidence[1] > 0.95 and not result.uncertain[1]


def test_a_box_that_may_not_be_a_tile_is_no_surer_than_that():
    # The reader is sure the crop would be a joker if it were a tile, but 40 % sure it is no tile
    # (wood grain): the joker must go to the player, not into the game as sure.
    probs = probs_for(sure("joker", 0.99), sure("red-5"))
    plain = decode(probs)
    weighed = decode(probs, tile_prob=np.array([0.6, 1.0]))
    assert weighed.labels == plain.labels  # the labels do not change
    assert weighed.confidence[0] == pytest.approx(0.6 * plain.confidence[0])
    assert weighed.uncertain == (True, False)
    assert weighed.confidence[1] == pytest.approx(plain.confidence[1])


@pytest.mark.parametrize(
    "tile_prob, message",
    [(np.ones(3), "2 tile probabilities"), (np.array([0.5, np.nan]), "0..1"), (np.array([1.2, 0.5]), "0..1"),
     (np.array([-0.1, 0.5]), "0..1")],
)
def test_bad_tile_probabilities_are_refused(tile_prob, message):
    with pytest.raises(DecodingError, match=message):
        decode(probs_for(sure("red-5"), sure("red-6")), tile_prob=tile_prob)


def test_a_joker_needs_more_confidence_than_a_number_to_be_shown_as_sure():
    """A phantom joker costs 30 points: at 93 % a number tile is sure, a joker goes to the player."""
    probs = probs_for(sure("joker", 0.93), sure("red-5", 0.93))
    assert DecodingSettings().joker_uncertain_below == pytest.approx(0.98)
    for result in (decode(probs, require_valid_melds=False), argmax_decoding(probs)):
        assert names(result) == ["joker", "red-5"] and result.uncertain == (True, False)
    assert decode(probs_for(sure("joker", 0.97))).uncertain == (True,)
    assert decode(probs_for(sure("joker", 0.99))).uncertain == (False,)
    # never laxer than the general threshold, whatever the jokers' own says
    lax = DecodingSettings(uncertain_below=0.95, joker_uncertain_below=0.5)
    assert decode(probs, require_valid_melds=False, settings=lax).uncertain == (True, True)


# --- floors: tiles the table held at the last turn -------------------------------------------------


def _floors(*names_: str) -> np.ndarray:
    floors = np.zeros(NUM_KINDS, dtype=int)
    for name in names_:
        floors[parse_tile(name).index] += 1
    return floors


def test_a_tile_the_table_held_last_turn_is_read_so_when_that_reading_is_near():
    # k7 b7 and a tile read red 7 first, orange 7 next: both groups are valid, so only the last
    # turn's table (which held an orange 7, and no tile ever leaves the table) tells them apart.
    probs = probs_for(sure("black-7"), sure("blue-7"), {"red-7": 0.55, "orange-7": 0.4})
    alone = decode(probs, [[0, 1, 2]])
    held = decode(probs, [[0, 1, 2]], floors=_floors("orange-7"), floor_rows=np.ones(3, bool))

    assert names(alone)[2] == "red-7"
    assert names(held)[2] == "orange-7" and held.corrected[2] and held.uncertain[2]


def test_floors_only_count_the_rows_they_name_and_never_reach_beyond_the_repair_ratio():
    probs = probs_for(sure("black-7"), sure("blue-7"), {"red-7": 0.55, "orange-7": 0.4}, sure("orange-7"))
    rows = np.array([True, True, True, False])  # the last tile is on the rack: it cannot be the table's
    held = decode(probs, [[0, 1, 2]], floors=_floors("orange-7"), floor_rows=rows)
    assert names(held)[2:] == ["orange-7", "orange-7"]
    far = probs_for(sure("black-7"), sure("blue-7"), {"red-7": 0.95, "orange-7": 0.03})
    assert names(decode(far, [[0, 1, 2]], floors=_floors("orange-7"), floor_rows=np.ones(3, bool)))[2] == "red-7"
    missing = decode(far, [[0, 1, 2]], floors=_floors("orange-7", "red-1"), floor_rows=np.ones(3, bool))
    assert names(missing) == ["black-7", "blue-7", "red-7"]  # a tile the photo does not show: nothing forced


def test_bad_floors_are_refused():
    probs = probs_for(sure("red-7"), sure("red-8"), sure("red-9"))
    with pytest.raises(DecodingError, match="floors"):
        decode(probs, [[0, 1, 2]], floors=np.ones(5, int), floor_rows=np.ones(3, bool))
    with pytest.raises(DecodingError, match="floors"):
        decode(probs, [[0, 1, 2]], floors=-np.ones(NUM_KINDS, int), floor_rows=np.ones(3, bool))
    with pytest.raises(DecodingError, match="all counted"):
        decode(probs, [[0, 1, 2]], floors=_floors("red-7"), floor_rows=np.array([True, False, True]))


def test_a_floor_moves_a_tile_only_where_its_reading_is_near_enough():
    # orange 7 at a third of red 7's probability: within the repair ratio, but under the floors'
    # default (half as probable): a kind short of its floor may be a tile the detector missed.
    probs = probs_for(sure("black-7"), sure("blue-7"), {"red-7": 0.7, "orange-7": 0.25})
    rows = np.ones(3, bool)
    assert names(decode(probs, [[0, 1, 2]], floors=_floors("orange-7"), floor_rows=rows))[2] == "red-7"
    eager = DecodingSettings(floor_penalty=float("inf"))
    assert names(decode(probs, [[0, 1, 2]], settings=eager, floors=_floors("orange-7"), floor_rows=rows))[2] == "orange-7"
