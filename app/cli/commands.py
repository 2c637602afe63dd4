"""One handler per command: arguments in, the library called, the answer printed; each returns
the exit status. Input errors are raised (:data:`app.cli.INPUT_ERRORS`) and worded by ``main``."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from solver.explain import describe_steps, unsure_move_text, unsure_tiles_in_move
from solver.i18n import DEFAULT_LANGUAGE, error_text, tr
from solver.players import name_key, player_name, player_names
from solver.rules import ImpossibleStateError, PoolOutScoring, RuleSet, UnmeldedScoring, preset
from solver.scoring import Outcome, PlayerRack, PoolExhausted, WentOut, score_round
from solver.position import Objective
from solver.suggestion import Suggestion
from solver.table import check_table
from solver.tiles import Tile, parse_melds, parse_tiles
from vision.reading import Reading, ReadingKind

from .errors import EXIT_BAD_INPUT, EXIT_INVALID_TABLE, EXIT_OK, CliInputError
from .photos import photo_position, read_photo_file, tile_profile, write_annotated
from .render import check_json, check_text, emit, emit_json, reading_text, score_json, score_text, solve_json, solve_text


def rules_from(args: argparse.Namespace) -> RuleSet:
    """The preset named by ``--rules`` with the individual switches applied on top; named
    after the preset they then match ("custom" when none)."""
    overrides = {
        "initial_meld_threshold": args.threshold,
        "jokers": args.jokers,
        "starting_tiles": args.starting_tiles,
        "joker_penalty": args.joker_penalty,
        "jokers_in_initial_meld": args.jokers_in_initial_meld,
        "group_colours_distinct": args.group_colours_distinct,
        "pool_out_scoring": None if args.pool_out is None else PoolOutScoring(args.pool_out),
        "unmelded_scoring": None if args.unmelded is None else UnmeldedScoring(args.unmelded),
    }
    return preset(args.rules).with_(**{k: v for k, v in overrides.items() if v is not None})


def run_solve(args: argparse.Namespace) -> int:
    from solver.search import solve  # OR-Tools and SciPy: only the commands that solve pay for them

    position, readings = photo_position(args, rules_from(args))
    suggestion = solve(position, Objective(args.objective))
    steps = describe_steps(suggestion, args.lang)
    unsure = _unsure_tiles(readings, suggestion)
    if args.json:
        data = solve_json(suggestion, steps)
        if readings:
            data["readings"] = {kind.value: r.to_json(args.lang) for kind, r in readings.items()}
            data["relies_on_unsure"] = [t.name for t in unsure]
        emit_json(data)
    else:
        emit(solve_text(suggestion, steps, args.lang))
        if unsure:
            emit(unsure_move_text(unsure, args.lang))
    return EXIT_OK


def _unsure_tiles(readings: dict[ReadingKind, Reading], suggestion: Suggestion) -> tuple[Tile, ...]:
    """The tiles read as unsure from the photos that the move relies on (typed tiles are sure)."""
    table = readings.get(ReadingKind.TABLE)
    rack = readings.get(ReadingKind.RACK)
    melds = [[table.tiles[i] for i in meld] for meld in table.melds] if table is not None else [[] for _ in suggestion.old_melds]
    return unsure_tiles_in_move(melds, rack.tiles if rack is not None else (), suggestion)


def run_check(args: argparse.Namespace) -> int:
    table = check_table(parse_melds(args.table), rules_from(args))
    if table.over_limit:
        raise ImpossibleStateError("more copies than the game has", table.over_limit)
    checks = table.melds
    if args.json:
        emit_json(check_json(checks, args.lang))
    else:
        emit(check_text(checks, args.lang))
    return EXIT_OK if all(c.valid for c in checks) else EXIT_INVALID_TABLE


def run_score(args: argparse.Namespace) -> int:
    rules = rules_from(args)
    players = player_names(args.players)
    seats = {name_key(p): p for p in players}

    def seat(name: str) -> str:
        """The player ``name`` means, spelled as in --players (any case or spacing)."""
        return seats.get(name_key(name), player_name(name))

    outcome: Outcome = PoolExhausted() if args.pool_exhausted else WentOut(seat(args.out))
    named = [(seat(name), tiles) for name, tiles in args.rack]
    racks = racks_from(
        players, named, outcome, args.lang, not_melded=[seat(n) for n in args.not_melded],
        could_have_melded=[seat(n) for n in args.could_have_melded],
    )
    result = score_round(racks, outcome, rules)
    if args.json:
        emit_json(score_json(result, racks))
    else:
        emit(score_text(result, args.lang, racks))
    return EXIT_OK


def racks_from(
    players: Sequence[str], named: Sequence[tuple[str, str]], outcome: Outcome, lang: str = DEFAULT_LANGUAGE,
    not_melded: Sequence[str] = (),
    could_have_melded: Sequence[str] = (),
) -> list[PlayerRack]:
    """One rack per player from ``--rack NAME=TILES``; only who went out may omit theirs.
    ``not_melded``: the players who never made the initial meld (not who went out);
    ``could_have_melded``: those of them who held an initial meld. Names are as
    :func:`solver.players.player_names` gives them."""
    out = outcome.player if isinstance(outcome, WentOut) else None
    for name in not_melded:
        if name not in players:
            raise CliInputError(tr("--not-melded {name}, who is not in --players", lang, name=name))
        if name == out:
            raise CliInputError(tr("{name} went out, so they made the initial meld", lang, name=name))
    for name in could_have_melded:
        if name not in not_melded:
            raise CliInputError(tr("--could-have-melded {name}, who is not in --not-melded", lang, name=name))
    given: dict[str, tuple[Tile, ...]] = {}
    for name, text in named:
        if name not in players:
            raise CliInputError(tr("--rack for {name}, who is not in --players", lang, name=name))
        if name in given:
            raise CliInputError(tr("two --rack options for {name}", lang, name=name))
        given[name] = parse_tiles(text)
    missing = [p for p in players if p not in given and p != out]
    if missing:
        raise CliInputError(
            tr('no --rack for {names} (use --rack NAME="" for an empty rack)', lang, names=", ".join(missing))
        )
    return [PlayerRack(p, given.get(p, ()), p not in not_melded, p in could_have_melded) for p in players]


def run_read(args: argparse.Namespace) -> int:
    photo = read_photo_file(args.photo, ReadingKind(args.kind), rules_from(args), args, tile_profile(args))
    reading = photo.reading
    if not reading.tiles:
        raise CliInputError(tr("no tiles found in the photo {path}", args.lang, path=args.photo))
    if args.annotated:
        write_annotated(photo, args.annotated, args.lang)
    if args.json:
        emit_json(reading.to_json(args.lang))
    else:
        emit(reading_text(reading, args.lang))
    return EXIT_OK


def run_app(args: argparse.Namespace) -> int:
    from app.launch import serve
    from app.network import CertificateError

    try:
        return serve(args.port, args.address, https=args.https, lang=args.lang)
    except CertificateError as err:
        print(tr("rummikub: error: {detail}", args.lang, detail=error_text(err, args.lang)), file=sys.stderr)
        return EXIT_BAD_INPUT

