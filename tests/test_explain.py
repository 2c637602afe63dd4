"""Table checks and the steps of a move as a player reads them."""

import pytest

from solver import (
    RACK, Action, InvalidTableError, Position, Problem, StepKind, check_table, describe_steps, solve,
)
from solver.tiles import parse_melds, parse_tiles


def suggest(table: str, rack: str, opened: bool = True):
    return solve(Position(parse_melds(table), parse_tiles(rack), opened))


def test_check_table_lists_each_invalid_meld_and_why() -> None:
    result = check_table(parse_melds("r4 r5 r6 | k5 k5 b5 | r1 r2"))
    assert result.invalid == (1, 2)
    assert Problem.GROUP_REPEATED_COLOUR in result.melds[1].problems
    assert Problem.TOO_FEW_TILES in result.melds[2].problems


def test_solver_refuses_an_invalid_table() -> None:
    with pytest.raises(InvalidTableError) as err:
        suggest("r4 r5 r6 | r1 r2", "r7")
    assert err.value.check.invalid == (1,)


def test_adding_to_the_end_of_a_run_is_one_add_step() -> None:
    s = suggest("r4 r5 r6 | k9 b9 o9", "r7")
    assert [st.kind for st in s.steps] == [StepKind.ADD]
    assert describe_steps(s) == ["Add your red 7 to [red 4 5 6]: [red 4 5 6 7]."]


def test_splitting_a_run_to_insert_a_tile() -> None:
    s = suggest("b6 b7 b8 b9 b10", "b8")
    assert [st.kind for st in s.steps] == [StepKind.SPLIT, StepKind.REARRANGE]
    texts = describe_steps(s)
    assert texts[0] == "Split [blue 6 7 8 9 10]: leave [blue 6 7 8] in place; its other tiles go to the melds below."
    assert texts[1] == "Make [blue 8 9 10] from blue 9, blue 10 from [blue 6 7 8 9 10]; blue 8 from your rack."
    assert s.tiles_moved == 2


def test_replacing_a_joker_and_playing_it() -> None:
    s = suggest("k5 j o5", "b5 r9 r10")
    kinds = [st.kind for st in s.steps]
    assert StepKind.REPLACE_JOKER in kinds
    joker_step = s.steps[kinds.index(StepKind.REPLACE_JOKER)]
    assert (RACK, parse_tiles("b5")) in joker_step.parts
    text = describe_steps(s)[kinds.index(StepKind.REPLACE_JOKER)]
    assert text.startswith("Replace the joker in [black 5, joker (blue 5), orange 5] with blue 5 from your rack")


def test_initial_meld_is_laid_down_from_the_rack() -> None:
    s = suggest("k1 k2 k3", "r9 r10 r11 o2", opened=False)
    assert describe_steps(s) == ["Lay down [red 9 10 11] from your rack."]
    assert s.new_table[0].unchanged  # the table is untouched


def test_no_move_says_draw() -> None:
    s = suggest("r1 r2 r3", "k9")
    assert s.action is Action.DRAW
    assert describe_steps(s) == ["No legal move: draw a tile."]


# --- the sentences both front ends show, each written once (solver.explain) ---------------------


def test_a_new_meld_is_rendered_once_for_both_front_ends() -> None:
    from dataclasses import replace

    from app.cli.render import solve_text
    from solver.explain import meld_label, new_meld_label, play_summary, time_limit_note

    s = suggest("k5 j o5", "b5 r9 r10")
    labels = [new_meld_label(m) for m in s.new_table]
    assert labels == ["[black 5, blue 5*, orange 5]", "[red 9*, red 10*, joker (red 11)]"]
    assert meld_label(s.new_table[1].meld) == "[red 9, red 10, joker (red 11)]"  # the same tiles, unmarked
    assert meld_label(s.new_table[0].meld, "uk") == "[чорна 5, синя 5, помаранчева 5]"
    text = solve_text(s, describe_steps(s), "en")
    head, _, placed = play_summary(s).partition(": ")
    assert text.startswith(play_summary(s) + "\n") and head == "Play 3 tile(s) worth 24 points"
    assert sorted(placed.split(", ")) == ["blue 5", "red 10", "red 9"]  # in the order the move lists them
    assert all(f"  {i}. {label}" in text for i, label in enumerate(labels, 1))
    assert time_limit_note() not in text
    assert time_limit_note() in solve_text(replace(s, optimal=False), describe_steps(s), "en")


def test_the_shared_sentences_are_translated() -> None:
    from solver.explain import impossible_tiles_text, no_move_text, play_summary, time_limit_note

    s = suggest("r4 r5 r6", "r7")
    for lang in ("uk", "ru", "ro"):
        for english, text in (
            (play_summary(s), play_summary(s, lang)),
            (no_move_text(), no_move_text(lang)),
            (time_limit_note(), time_limit_note(lang)),
            (impossible_tiles_text(parse_tiles("r7")), impossible_tiles_text(parse_tiles("r7"), lang)),
        ):
            assert text and text != english


class _Read:
    """A tile as read, for unsure_tiles_in_move (any value with ``tile`` and ``uncertain`` will do)."""

    def __init__(self, name: str, uncertain: bool = False) -> None:
        from solver.tiles import parse_tile

        self.tile, self.uncertain = parse_tile(name), uncertain


def test_a_move_relies_on_the_unsure_tiles_of_the_melds_it_changes_and_of_the_rack_it_plays() -> None:
    from solver.explain import unsure_tiles_in_move, unsure_move_text

    melds = [[_Read("r4"), _Read("r5", True), _Read("r6")], [_Read("k9", True), _Read("b9"), _Read("o9")]]
    rack = [_Read("joker", True), _Read("r7"), _Read("b2", True)]
    move = suggest("r4 r5 r6 | k9 b9 o9", "joker r7 b2")  # the joker and r7 join the run; the 9s stay
    assert 1 not in move.touched_melds and set(move.played) >= set(parse_tiles("joker r7"))
    assert unsure_tiles_in_move(melds, rack, move) == parse_tiles("r5 joker")
    assert unsure_move_text(parse_tiles("r5 joker"), "en") == (
        "This move relies on tiles marked unsure: red 5, joker. Check them on the table before you play."
    )
    nothing_unsure = suggest("r4 r5 r6 | k9 b9 o9", "r7")
    assert unsure_tiles_in_move([[_Read("r4"), _Read("r5"), _Read("r6")], melds[1]], [_Read("r7")], nothing_unsure) == ()


def test_an_unsure_rack_copy_counts_only_beyond_the_sure_copies() -> None:
    from collections import Counter

    from solver.explain import unsure_tiles_in_move

    rack = [_Read("r5"), _Read("r5", True), _Read("b5", True), _Read("k5")]
    group = suggest("", "r5 r5 b5 k5")  # one group of 5s: a single red 5 is played, the sure one will do
    assert Counter(group.played) == Counter(parse_tiles("r5 b5 k5"))
    assert unsure_tiles_in_move([], rack, group) == parse_tiles("b5")
    both = suggest("r6 r7 r8 | o5 b5 k5", "r5 r5")  # one red 5 to the run, one to the group
    assert Counter(both.played) == Counter(parse_tiles("r5 r5"))
    table = [[_Read("r6"), _Read("r7"), _Read("r8")], [_Read("o5"), _Read("b5"), _Read("k5")]]
    assert unsure_tiles_in_move(table, [_Read("r5"), _Read("r5", True)], both) == parse_tiles("r5")
    assert unsure_tiles_in_move(table, [_Read("r5"), _Read("r5")], both) == ()
