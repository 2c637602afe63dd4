"""The ``rummikub`` command line: solve a position, check a table, score a round.

Thin by design: it parses text into :mod:`solver` values, calls the library, and renders the
answer as human text (through :func:`solver.i18n.tr`) or as JSON. Library errors about the
input (bad notation, impossible tiles, bad rules, unscorable rounds) become one message on
stderr and exit status 2, never a traceback. To add a subcommand, write ``_add_<name>``
(registers its parser and sets ``handler``) and a ``_run_<name>(args) -> int`` handler, and
call ``_add_<name>`` from :func:`build_parser`.

Commands::

    rummikub solve --table "r4 r5 r6 | k5 b5 o5" --rack "r7 j k13" [--first-turn]
                   [--objective tiles|value] [--json] [--lang en] [rule options]
    rummikub solve --table-photo T.jpg --rack-photo R.jpg [--tiles NAME] ...   (a photo instead of --table / --rack;
                   --max-photo-mb MB: the largest photo file read, default the app's 25 MB)
    rummikub check --table "r4 r5 r6 | k5 j" [--json] [--lang en] [rule options]
    rummikub read PHOTO [--kind table|rack] [--annotated OUT.jpg] [--max-photo-mb MB] [--tiles NAME] [--json]
                  [--lang en] [rule options]
    rummikub calibrate PHOTO [PHOTO ...] --name NAME [--layout NOTATION]   (a tile profile: app/cli_profiles.py)
    rummikub tiles list | rummikub tiles delete NAME
    rummikub score --players Ann Bob Cid (--out Ann | --pool-exhausted)
                   --rack Bob="r5 k3" --rack Cid="j" [--not-melded Cid] [--json] [--lang en]
                   [rule options]
                   (2-4 players; names as solver.players.player_names gives them, and a name in
                   --rack, --out or --not-melded finds its player whatever its case or spacing)

Rule options (every command): ``--rules PRESET`` (a name from :data:`solver.rules.PRESETS`),
then each switch overrides that preset: ``--threshold N`` (initial meld points),
``--jokers N``, ``--starting-tiles N``, ``--joker-penalty N``, ``--joker-in-opening`` /
``--no-joker-in-opening``, ``--distinct-group-colours`` / ``--repeated-group-colours``,
``--pool-out MODE`` (alias ``--pool-scoring``) and ``--unmelded MODE``.

Exit status: 0 success (``check``: every meld valid); 1 ``check`` found an invalid meld, or
stdout was closed before the output was written (``rummikub solve --json | head -c 5``);
2 bad input (usage, tile notation, impossible tiles, rules, round description, photo).

Stdout carries the command's output alone: whatever a library prints while photos are read
goes to stderr.

JSON schema (stable; tiles always in canonical notation, ``"red-7"``, ``"joker"``):

``solve``::

    {"action": "play" | "draw",
     "played": [tile, ...],                  # rack tiles to put on the table
     "table": [{"kind": "run" | "group",      # the complete new table, meld by meld
                "tiles": [tile, ...],         # physical tiles in table order
                "represents": [tile, ...],    # what each position stands for (jokers resolved)
                "sources": ["rack" | int, ...]}],  # per tile: the rack or an old meld index (0-based)
     "steps": [text, ...],                   # instructions in --lang
     "tiles_placed": int, "value_placed": int,
     "melds_untouched": int, "tiles_moved": int,
     "optimal": bool}                        # false if the solver stopped at its time limit

With a photo, ``solve`` adds ``"readings": {"table"|"rack": <read JSON>}``.

``read`` (see :meth:`vision.reading.Reading.to_json`)::

    {"kind": "table" | "rack", "image_size": [w, h],
     "tiles": [{"tile": tile, "box": [x1, y1, x2, y2], "confidence": float,
                "alternatives": [[tile, float], ...], "corrected": bool, "uncertain": bool}],
     "melds": [[tile, ...], ...], "meld_tiles": [[int, ...], ...],
     "problems": [{"kind": "invalid-meld" | "copy-limit" | "uncertain-tile", "tiles": [int, ...],
                   "read": [tile, ...], "message": text, ...}]}

``check``::

    {"valid": bool,                           # every meld valid
     "melds": [{"tiles": [tile, ...], "valid": bool,
                "kinds": ["run" | "group", ...],   # kinds of its legal interpretations
                "problems": [code, ...],           # solver.melds.Problem values, e.g. "run-gap"
                "reasons": [text, ...],            # the problems in --lang
                "jokers": [[tile, ...], ...],      # per joker: every tile it may stand for
                "joker_options": [[tile, ...], ...]}]}  # each legal combination of the jokers' values

``score``::

    {"outcome": "went-out" | "pool-exhausted",
     "went_out": name | null,
     "pool_scoring": "lowest-total-difference" | "fewest-tiles" | "lowest-total-own-rack",
     "unmelded_scoring": "like-others" | "pays-each-player",
     "rules": preset name | "custom",
     "winners": [name, ...],
     "players": [{"name": name, "rack": [tile, ...], "rack_total": int,
                  "score": int, "winner": bool,
                  "made_initial_meld": bool}]}   # in --players order
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from typing import Callable, Iterator, Sequence

from solver.explain import describe_steps, problem_text
from solver.i18n import DEFAULT_LANGUAGE, LANGUAGES, error_text, tile_label, tr
from solver.melds import MeldCheck
from solver.search import solve
from solver.players import name_key, player_name, player_names
from solver.rules import (
    PRESETS,
    ImpossibleStateError,
    PoolOutScoring,
    RuleSet,
    RulesError,
    UnmeldedScoring,
    preset,
)
from solver.scoring import (
    Outcome,
    PlayerRack,
    PoolExhausted,
    RoundResult,
    ScoringError,
    WentOut,
    score_round,
)
from solver.state import Objective, Position
from solver.suggestion import RACK, Action, NewMeld, Suggestion
from solver.table import InvalidTableError, TableCheck, check_table
from solver.tiles import NotationError, Tile, parse_melds, parse_tiles

from . import cli_profiles
from .rules_text import pool_label, preset_label, rules_summary, unmelded_label

EXIT_OK = 0
EXIT_INVALID_TABLE = 1
EXIT_BROKEN_PIPE = 1
EXIT_BAD_INPUT = 2

Handler = Callable[[argparse.Namespace], int]


class CliInputError(ValueError):
    """Arguments that parse but do not describe a usable input (e.g. a rack for nobody)."""


# --- parser ------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: one sub-parser per command, each with its ``handler``."""
    parser = argparse.ArgumentParser(
        prog="rummikub",
        description=tr("Rummikub assistant: suggest the best move, check a table, score a round."),
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    common = _common_options()
    _add_solve(commands, common)
    _add_check(commands, common)
    _add_score(commands, common)
    _add_read(commands, common)
    cli_profiles.add_commands(commands, common)
    _add_app(commands, common)
    return parser


def _add_app(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    cmd = commands.add_parser(
        "app", parents=[common], help=tr("start the app in the browser"),
        description=tr("Serve the Streamlit app; phones on the same network can open the address it prints."),
    )
    cmd.add_argument("--port", type=int, help=tr("port to serve on (default: 8501)"))
    cmd.add_argument("--address", help=tr("address to listen on (default: every interface)"))
    cmd.add_argument(
        "--https", action="store_true",
        help=tr("serve over HTTPS with a certificate made on this computer (phones allow the live camera only then)"),
    )
    cmd.set_defaults(handler=_run_app)


def _run_app(args: argparse.Namespace) -> int:
    from app.launch import serve
    from app.network import CertificateError

    try:
        return serve(args.port, args.address, https=args.https, lang=args.lang)
    except CertificateError as err:
        print(tr("rummikub: error: {detail}", args.lang, detail=error_text(err, args.lang)), file=sys.stderr)
        return EXIT_BAD_INPUT


def _common_options() -> argparse.ArgumentParser:
    """Options every command takes: output format and language."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help=tr("print JSON instead of text"))
    common.add_argument(
        "--lang", choices=LANGUAGES, default=DEFAULT_LANGUAGE, help=tr("language of the text output")
    )
    return common


def _add_rule_options(parser: argparse.ArgumentParser) -> None:
    """``--rules PRESET`` and one switch per setting; a switch given overrides the preset."""
    group = parser.add_argument_group(tr("rules"))
    presets = "; ".join(f"{name}: {preset_label(name)}" for name in PRESETS)
    group.add_argument(
        "--rules", choices=list(PRESETS), default="standard", metavar="PRESET",
        help=tr("rule preset (default: standard): {presets}", presets=presets),
    )
    group.add_argument(
        "--threshold", type=_non_negative, metavar="N", help=tr("points needed for the initial meld")
    )
    group.add_argument("--jokers", type=_non_negative, metavar="N", help=tr("jokers in the game"))
    group.add_argument(
        "--starting-tiles", type=_non_negative, metavar="N", help=tr("tiles each player starts with")
    )
    group.add_argument(
        "--joker-penalty", type=_non_negative, metavar="N", help=tr("points a joker left on a rack costs")
    )
    _add_on_off(
        group, "jokers_in_initial_meld",
        ("--joker-in-opening", tr("jokers may be used in the initial meld")),
        ("--no-joker-in-opening", tr("no jokers in the initial meld")),
    )
    _add_on_off(
        group, "group_colours_distinct",
        ("--distinct-group-colours", tr("every tile of a group has its own colour")),
        ("--repeated-group-colours", tr("a group may repeat a colour")),
    )
    group.add_argument(
        "--pool-out", "--pool-scoring", dest="pool_out", choices=[v.value for v in PoolOutScoring], metavar="MODE",
        help=tr("who wins and who pays when the pool is exhausted: {modes}",
                modes="; ".join(f"{v.value}: {pool_label(v)}" for v in PoolOutScoring)),
    )
    group.add_argument(
        "--unmelded", choices=[v.value for v in UnmeldedScoring], metavar="MODE",
        help=tr("how a player who never made the initial meld is scored: {modes}",
                modes="; ".join(f"{v.value}: {unmelded_label(v)}" for v in UnmeldedScoring)),
    )


def _add_solve(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    cmd = commands.add_parser(
        "solve", parents=[common], help=tr("suggest the best legal move"),
        description=tr("Suggest the best legal move for a rack and a table."),
    )
    cmd.add_argument("--table", default="", help=tr('the table\'s melds, e.g. "r4 r5 r6 | k5 b5 o5"'))
    cmd.add_argument("--rack", help=tr('your rack, e.g. "r7 j k13"'))
    _add_photo_options(cmd)
    cmd.add_argument("--first-turn", action="store_true", help=tr("you have not made the initial meld yet"))
    cmd.add_argument(
        "--objective", choices=[o.value for o in Objective], default=Objective.TILES.value,
        help=tr("maximise tiles placed or their value (default: tiles)"),
    )
    _add_rule_options(cmd)
    cmd.set_defaults(handler=_run_solve)


def _add_check(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    cmd = commands.add_parser(
        "check", parents=[common], help=tr("check that every meld on a table is valid"),
        description=tr("List each invalid meld and why; exit status 1 when one is invalid."),
    )
    cmd.add_argument("--table", required=True, help=tr('the table\'s melds, e.g. "r4 r5 r6 | k5 b5 o5"'))
    _add_rule_options(cmd)
    cmd.set_defaults(handler=_run_check)


def _add_score(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    cmd = commands.add_parser(
        "score", parents=[common], help=tr("score the end of a round"),
        description=tr("Score a round from the tiles left on each rack."),
    )
    cmd.add_argument("--players", nargs="+", required=True, metavar="NAME", help=tr("players in seating order"))
    ending = cmd.add_mutually_exclusive_group(required=True)
    ending.add_argument("--out", metavar="NAME", help=tr("the player who went out"))
    ending.add_argument(
        "--pool-exhausted", action="store_true", help=tr("the pool is empty and nobody can move")
    )
    cmd.add_argument(
        "--rack", action="append", type=_named_rack, default=[], metavar='NAME="TILES"',
        help=tr('tiles left on a player\'s rack; one per player except who went out ("" for none)'),
    )
    cmd.add_argument(
        "--not-melded", nargs="+", default=[], metavar="NAME",
        help=tr("players who never made the initial meld (matters with --unmelded pays-each-player)"),
    )
    cmd.add_argument(
        "--could-have-melded", nargs="+", default=[], metavar="NAME",
        help=tr("of the --not-melded players, those who could have made the initial meld (under --rules mso "
                "they pay 200 instead of 100)"),
    )
    _add_rule_options(cmd)
    cmd.set_defaults(handler=_run_score)


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(tr("not a whole number: {text!r}", text=text)) from None
    if value < 0:
        raise argparse.ArgumentTypeError(tr("must not be negative: {text}", text=text))
    return value


def _named_rack(text: str) -> tuple[str, str]:
    name, sep, tiles = text.partition("=")
    if not sep or not player_name(name):
        raise argparse.ArgumentTypeError(tr('expected NAME="TILES", got {text!r}', text=text))
    return name, tiles


def _megabytes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(tr("not a number: {text!r}", text=text)) from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(tr("must be a positive number: {text}", text=text))
    return value


def _add_on_off(
    group: argparse._ArgumentGroup, dest: str, on: tuple[str, str], off: tuple[str, str]
) -> None:
    """A rule switch given as a pair of exclusive flags (``on`` sets ``dest`` True, ``off``
    False, neither leaves the preset's value): each is a (flag, help) pair."""
    pair = group.add_mutually_exclusive_group()
    for (flag, help_text), value in ((on, True), (off, False)):
        pair.add_argument(flag, dest=dest, action="store_const", const=value, help=help_text)


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


# --- main --------------------------------------------------------------------------------

INPUT_ERRORS = (
    NotationError, ImpossibleStateError, InvalidTableError, RulesError, ScoringError, CliInputError,
    cli_profiles.ProfileError, cli_profiles.CalibrationError,
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return the exit status (usage errors and bad input: 2)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # argparse exits on --help (0) and usage errors (2)
        return stop.code if isinstance(stop.code, int) else EXIT_BAD_INPUT
    handler: Handler = args.handler
    try:
        try:
            code = handler(args)
        except INPUT_ERRORS as err:
            print(tr("rummikub: error: {detail}", args.lang, detail=describe_error(err, args.lang)), file=sys.stderr)
            code = EXIT_BAD_INPUT
        sys.stdout.flush()  # here, so a closed pipe is seen while it can still be handled
    except BrokenPipeError:  # the reader went away (``| head``): nothing more to say to it
        _discard_stdout()
        return EXIT_BROKEN_PIPE
    return code


def _discard_stdout() -> None:
    """Point stdout at the null device, so Python's last flush at exit finds no closed pipe
    (the recipe in the docs of :mod:`signal`, "Note on SIGPIPE")."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def describe_error(err: Exception, lang: str = DEFAULT_LANGUAGE) -> str:
    """One line for the user about what is wrong with the input."""
    if isinstance(err, NotationError):
        return tr("cannot read tile {token!r} ({reason})", lang, token=err.token, reason=tr(err.reason, lang))
    if isinstance(err, ImpossibleStateError):
        return _impossible(err, lang)
    if isinstance(err, ScoringError) and isinstance(err.__cause__, ImpossibleStateError):
        return _impossible(err.__cause__, lang)
    if isinstance(err, InvalidTableError):
        return _invalid_table(err.check, lang)
    if isinstance(err, RulesError):
        return tr("invalid rules: {reason}", lang, reason=error_text(err, lang))
    if isinstance(err, ScoringError):
        return tr("cannot score this round: {reason}", lang, reason=error_text(err, lang))
    return error_text(err, lang)


def _impossible(err: ImpossibleStateError, lang: str) -> str:
    tiles = ", ".join(tile_label(t, lang) for t in err.tiles)
    return tr("impossible tiles: more copies of {tiles} than the game has", lang, tiles=tiles)


def _invalid_table(check: TableCheck, lang: str) -> str:
    melds = "; ".join(
        tr(
            "meld {index} [{tiles}]: {reasons}", lang,
            index=i + 1, tiles=_label_list(check.melds[i].tiles, lang),
            reasons=", ".join(problem_text(p, lang) for p in check.melds[i].problems),
        )
        for i in check.invalid
    )
    return tr("the table has invalid melds (see rummikub check): {melds}", lang, melds=melds)


def _emit(text: str) -> None:
    print(text)


def _emit_json(data: object) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def _label_list(tiles: Sequence[Tile], lang: str) -> str:
    return ", ".join(tile_label(t, lang) for t in tiles)


# --- solve -------------------------------------------------------------------------------


def _run_solve(args: argparse.Namespace) -> int:
    position, readings = _photo_position(args, rules_from(args))
    suggestion = solve(position, Objective(args.objective))
    steps = describe_steps(suggestion, args.lang)
    if args.json:
        data = solve_json(suggestion, steps)
        if readings:
            data["readings"] = {name: r.to_json(args.lang) for name, r in readings.items()}
        _emit_json(data)
    else:
        _emit(solve_text(suggestion, steps, args.lang))
    return EXIT_OK


def solve_json(suggestion: Suggestion, steps: Sequence[str]) -> dict[str, object]:
    return {
        "action": suggestion.action.value,
        "played": [t.name for t in suggestion.played],
        "table": [_new_meld_json(m) for m in suggestion.new_table],
        "steps": list(steps),
        "tiles_placed": suggestion.tiles_placed,
        "value_placed": suggestion.value_placed,
        "melds_untouched": suggestion.melds_untouched,
        "tiles_moved": suggestion.tiles_moved,
        "optimal": suggestion.optimal,
    }


def _new_meld_json(new: NewMeld) -> dict[str, object]:
    return {
        "kind": new.meld.kind.value,
        "tiles": [t.name for t in new.meld.tiles],
        "represents": [t.name for t in new.meld.represented],
        "sources": ["rack" if s == RACK else s for s in new.sources],
    }


def solve_text(suggestion: Suggestion, steps: Sequence[str], lang: str) -> str:
    rules = rules_summary(suggestion.position.rules, lang)
    if suggestion.action is Action.DRAW:
        return "\n".join([tr("No legal move: draw a tile.", lang), rules])
    lines = [
        tr(
            "Play {count} tile(s) worth {value} points: {tiles}",
            lang,
            count=suggestion.tiles_placed,
            value=suggestion.value_placed,
            tiles=_label_list(suggestion.played, lang),
        ),
        "",
        tr("Steps:", lang),
    ]
    lines += [f"  {i}. {step}" for i, step in enumerate(steps, 1)]
    lines += ["", tr("New table (* = from your rack):", lang)]
    lines += [f"  {i}. {_meld_text(m, lang)}" for i, m in enumerate(suggestion.new_table, 1)]
    lines += [
        "",
        tr(
            "{untouched} meld(s) left untouched, {moved} table tile(s) moved.",
            lang,
            untouched=suggestion.melds_untouched,
            moved=suggestion.tiles_moved,
        ),
    ]
    if not suggestion.optimal:
        lines.append(tr("The solver hit its time limit: this move may not be the best.", lang))
    lines.append(rules)
    return "\n".join(lines)


def _meld_text(new: NewMeld, lang: str) -> str:
    parts = []
    for tile, stands_for, is_joker, source in zip(
        new.meld.tiles, new.meld.represented, new.meld.joker_mask, new.sources
    ):
        label = tr("joker ({tile})", lang, tile=tile_label(stands_for, lang)) if is_joker else tile_label(tile, lang)
        parts.append(label + ("*" if source == RACK else ""))
    return "[" + ", ".join(parts) + "]"


# --- check -------------------------------------------------------------------------------


def _run_check(args: argparse.Namespace) -> int:
    table = check_table(parse_melds(args.table), rules_from(args))
    if table.over_limit:
        raise ImpossibleStateError("more copies than the game has", table.over_limit)
    checks = table.melds
    if args.json:
        _emit_json(check_json(checks, args.lang))
    else:
        _emit(check_text(checks, args.lang))
    return EXIT_OK if all(c.valid for c in checks) else EXIT_INVALID_TABLE


def check_json(checks: Sequence[MeldCheck], lang: str) -> dict[str, object]:
    return {
        "valid": all(c.valid for c in checks),
        "melds": [
            {
                "tiles": [t.name for t in c.tiles],
                "valid": c.valid,
                "kinds": list(dict.fromkeys(m.kind.value for m in c.interpretations)),
                "problems": [p.value for p in c.problems],
                "reasons": [problem_text(p, lang) for p in c.problems],
                "jokers": [[t.name for t in _sorted(choices)] for choices in c.joker_choices()],
                "joker_options": [[t.name for t in combo] for combo in _joker_options(c)],
            }
            for c in checks
        ],
    }


def check_text(checks: Sequence[MeldCheck], lang: str) -> str:
    if not checks:
        return tr("The table is empty.", lang)
    lines = []
    for i, check in enumerate(checks, 1):
        tiles = "[" + _label_list(check.tiles, lang) + "]"
        if check.valid:
            line = tr("{index}. {tiles}: valid", lang, index=i, tiles=tiles)
            options = tr(" or ", lang).join(
                _label_list(combo, lang) if len(combo) == 1 else "(" + _label_list(combo, lang) + ")"
                for combo in _joker_options(check)
            )
            if options:
                line += "; " + tr("the joker(s) stand for {options}", lang, options=options)
        else:
            reasons = "; ".join(problem_text(p, lang) for p in check.problems)
            line = tr("{index}. {tiles}: INVALID - {reasons}", lang, index=i, tiles=tiles, reasons=reasons)
        lines.append(line)
    invalid = sum(not c.valid for c in checks)
    lines.append("")
    if invalid:
        lines.append(tr("{invalid} of {total} meld(s) invalid.", lang, invalid=invalid, total=len(checks)))
    else:
        lines.append(tr("All {total} meld(s) valid.", lang, total=len(checks)))
    return "\n".join(lines)


def _joker_options(check: MeldCheck) -> list[tuple[Tile, ...]]:
    """Each legal combination of what the meld's jokers stand for (none without jokers)."""
    combos = {tuple(sorted(m.jokers, key=lambda t: t.index)) for m in check.interpretations if m.jokers}
    return sorted(combos, key=lambda combo: [t.index for t in combo])


def _sorted(tiles: frozenset[Tile]) -> list[Tile]:
    return sorted(tiles, key=lambda t: t.index)




# --- score -------------------------------------------------------------------------------


def _run_score(args: argparse.Namespace) -> int:
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
        _emit_json(score_json(result, racks))
    else:
        _emit(score_text(result, args.lang, racks))
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


def score_json(result: RoundResult, racks: Sequence[PlayerRack] = ()) -> dict[str, object]:
    outcome = result.outcome
    melded = {r.name: r.made_initial_meld for r in racks}
    return {
        "outcome": "went-out" if isinstance(outcome, WentOut) else "pool-exhausted",
        "went_out": outcome.player if isinstance(outcome, WentOut) else None,
        "pool_scoring": result.rules.pool_out_scoring.value,
        "unmelded_scoring": result.rules.unmelded_scoring.value,
        "rules": result.rules.name,
        "winners": list(result.winners),
        "players": [
            {
                "name": s.name,
                "rack": [t.name for t in s.tiles],
                "rack_total": s.rack_total,
                "score": s.score,
                "winner": s.winner,
                "made_initial_meld": melded.get(s.name, True),
            }
            for s in result.scores
        ],
    }


def score_text(result: RoundResult, lang: str, racks: Sequence[PlayerRack] = ()) -> str:
    outcome = result.outcome
    if isinstance(outcome, WentOut):
        header = tr("{name} went out.", lang, name=outcome.player)
    else:
        header = tr("Pool exhausted ({variant}).", lang, variant=pool_label(result.rules.pool_out_scoring, lang))
    titles = (tr("Player", lang), tr("Rack", lang), tr("Total", lang), tr("Score", lang))
    rows = [
        (s.name, _label_list(s.tiles, lang) or "-", str(s.rack_total), f"{s.score:+d}")
        for s in result.scores
    ]
    widths = [max(len(r[c]) for r in (titles, *rows)) for c in range(4)]
    lines = [header, ""]
    for row in (titles, *rows):
        lines.append(
            "  ".join(
                cell.rjust(width) if col >= 2 else cell.ljust(width)
                for col, (cell, width) in enumerate(zip(row, widths))
            ).rstrip()
        )
    lines += [""]
    if result.rules.unmelded_scoring is UnmeldedScoring.PAYS_EACH_PLAYER:
        lines += [
            tr("{name} never made the initial meld: pays {points} to each other player.", lang,
               name=r.name, points=result.by_name[r.name].rack_total)
            for r in racks
            if not r.made_initial_meld and r.name not in result.winners
        ]
    winners = ", ".join(result.winners) if result.winners else tr("nobody", lang)
    lines += [tr("Winner(s): {names}", lang, names=winners), rules_summary(result.rules, lang)]
    return "\n".join(lines)


# --- photos: read, and solve --table-photo/--rack-photo -------------------------------------


def _add_read(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    cmd = commands.add_parser(
        "read", parents=[common], help=tr("read the tiles in a photo"),
        description=tr("Read every tile in a photo of the table or of a rack; doubtful tiles are flagged."),
    )
    cmd.add_argument("photo", metavar="PHOTO", help=tr("the photo (JPEG, PNG, HEIC, ...)"))
    cmd.add_argument(
        "--kind", choices=("table", "rack"), default="table", help=tr("what the photo shows (default: table)")
    )
    cmd.add_argument("--annotated", metavar="OUT.jpg", help=tr("also write the photo with each tile's box and name"))
    _add_photo_size_option(cmd)
    cli_profiles.add_tiles_option(cmd)
    _add_rule_options(cmd)
    cmd.set_defaults(handler=_run_read)


def _add_photo_options(cmd: argparse.ArgumentParser) -> None:
    """``solve`` takes the table and the rack from photos too (each instead of its text option)."""
    cmd.add_argument("--table-photo", metavar="PHOTO", help=tr("read the table from a photo instead of --table"))
    cmd.add_argument("--rack-photo", metavar="PHOTO", help=tr("read your rack from a photo instead of --rack"))
    _add_photo_size_option(cmd)
    cli_profiles.add_tiles_option(cmd)


def _add_photo_size_option(cmd: argparse.ArgumentParser) -> None:
    """``--max-photo-mb``; its default, ``vision.images.MAX_PHOTO_MB``, is looked up only when
    a photo is read (importing vision would slow down every other command)."""
    cmd.add_argument(
        "--max-photo-mb", type=_megabytes, metavar="MB",
        help=tr("largest photo file to read, in MB (default: the app's upload limit, 25 MB)"),
    )


@contextlib.contextmanager
def _library_output_to_stderr() -> Iterator[None]:
    """Send whatever is printed meanwhile to stderr: ``print`` (``sys.stdout``) and writes to
    file descriptor 1 alike, so a library's banner or warning while a photo is read never
    lands in the output a script parses."""
    stdout = sys.stdout
    stdout.flush()
    try:
        saved = os.dup(1)
        os.dup2(2, 1)
    except OSError:  # no descriptor 1 (a daemon); sys.stdout is still redirected
        saved = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            stdout.flush()  # what libraries wrote through the original object, to stderr too
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)


def _read_photo(path: str, kind: str, rules: RuleSet, args: argparse.Namespace, profile=None):
    """The photo at ``path`` and its reading (adapted by a tile ``profile``); bad photos and
    missing models become one clear message."""
    with _library_output_to_stderr():
        import vision
        from vision.images import MAX_PHOTO_MB, FileTooLargeError, ImageError, load_image
        from vision.model_files import ModelFileError

        megabytes = MAX_PHOTO_MB if args.max_photo_mb is None else args.max_photo_mb
        try:
            image = load_image(path, max_bytes=max(1, int(megabytes * 1024 * 1024)))
        except ImageError as err:
            reason = error_text(err, args.lang)
            if isinstance(err, FileTooLargeError):
                reason += " " + tr("(--max-photo-mb raises the limit)", args.lang)
            raise CliInputError(tr("cannot read the photo {path}: {reason}", args.lang, path=path, reason=reason)) from err
        try:
            return image, vision.read(image, kind=kind, rules=rules, profile=profile)
        except ModelFileError as err:
            raise CliInputError(tr("photo reading is not available: {reason}", args.lang, reason=error_text(err, args.lang))) from err


def _profile(args: argparse.Namespace):
    """The tile profile ``--tiles`` names (None without it); missing models become one clear message."""
    from vision.model_files import ModelFileError

    try:
        return cli_profiles.profile_from(args)
    except ModelFileError as err:
        raise CliInputError(tr("photo reading is not available: {reason}", args.lang, reason=error_text(err, args.lang))) from err


def _reading_text(reading, lang: str) -> str:
    """Melds (table) or tiles (rack) in words; ``?`` marks a tile to check, ``*`` one the rules corrected."""

    def label(i: int) -> str:
        read = reading.tiles[i]
        return tile_label(read.tile, lang) + ("?" if read.uncertain else "*" if read.corrected else "")

    if reading.melds:
        lines = [tr("{count} tile(s) in {melds} meld(s):", lang, count=len(reading.tiles), melds=len(reading.melds))]
        lines += [f"  {n}. [" + ", ".join(label(i) for i in meld) + "]" for n, meld in enumerate(reading.melds, 1)]
    else:
        lines = [tr("{count} tile(s):", lang, count=len(reading.tiles)), "  " + ", ".join(label(i) for i in range(len(reading.tiles)))]
    lines += ["  - " + message for message in reading.messages(lang)]
    return "\n".join(lines)


def _run_read(args: argparse.Namespace) -> int:
    image, reading = _read_photo(args.photo, args.kind, rules_from(args), args, _profile(args))
    if not reading.tiles:
        raise CliInputError(tr("no tiles found in the photo {path}", args.lang, path=args.photo))
    if args.annotated:
        with _library_output_to_stderr():
            import cv2
            from vision import annotate

            try:
                written = cv2.imwrite(args.annotated, annotate(image, reading))
            except cv2.error:
                written = False
        if not written:
            raise CliInputError(tr("cannot write the annotated photo to {path}", args.lang, path=args.annotated))
    if args.json:
        _emit_json(reading.to_json(args.lang))
    else:
        _emit(_reading_text(reading, args.lang))
    return EXIT_OK


def _photo_position(args: argparse.Namespace, rules: RuleSet) -> tuple[Position, dict[str, object]]:
    """The position from ``--table``/``--table-photo`` and ``--rack``/``--rack-photo``, and the readings."""
    if args.table_photo and args.table:
        raise CliInputError(tr("give the table as --table or --table-photo, not both", args.lang))
    if args.rack_photo and args.rack is not None:
        raise CliInputError(tr("give your rack as --rack or --rack-photo, not both", args.lang))
    if not args.rack_photo and args.rack is None:
        raise CliInputError(tr("the following arguments are required: --rack (or --rack-photo)", args.lang))
    if args.tiles is not None and not (args.table_photo or args.rack_photo):
        raise CliInputError(tr("--tiles applies to photos: give --table-photo or --rack-photo", args.lang))
    profile = _profile(args)
    readings: dict[str, object] = {}
    table = parse_melds(args.table)
    if args.table_photo:
        _, reading = _read_photo(args.table_photo, "table", rules, args, profile)
        readings["table"] = reading
        table = reading.table_melds()
    if args.rack_photo:
        _, reading = _read_photo(args.rack_photo, "rack", rules, args, profile)
        if not reading.tiles:
            raise CliInputError(tr("no tiles found in the photo {path}", args.lang, path=args.rack_photo))
        readings["rack"] = reading
        rack = reading.rack()
    else:
        rack = parse_tiles(args.rack)
    for name, reading in readings.items():
        for message in reading.messages(args.lang):  # type: ignore[attr-defined]
            print(tr("{photo} photo: {message}", args.lang, photo=tr(name, args.lang), message=message), file=sys.stderr)
    position = Position(table=table, rack=rack, initial_meld_done=not args.first_turn, rules=rules)
    return position, readings


if __name__ == "__main__":
    sys.exit(main())
