"""The ``rummikub`` command line: one sub-parser per command, each with its ``handler``.

Rule options (every command but ``app``): ``--rules PRESET`` and one switch per setting, which
:func:`app.cli.commands.rules_from` applies over the preset.
"""

from __future__ import annotations

import argparse

from solver.i18n import DEFAULT_LANGUAGE, LANGUAGES, tr
from solver.players import player_name
from solver.rules import PRESETS, PoolOutScoring, UnmeldedScoring
from solver.position import Objective

from ..rules_text import pool_label, preset_label, unmelded_label
from . import profiles
from .commands import run_app, run_check, run_read, run_score, run_solve


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
    profiles.add_commands(commands, common)
    _add_app(commands, common)
    return parser


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
    cmd.set_defaults(handler=run_solve)


def _add_check(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    cmd = commands.add_parser(
        "check", parents=[common], help=tr("check that every meld on a table is valid"),
        description=tr("List each invalid meld and why; exit status 1 when one is invalid."),
    )
    cmd.add_argument("--table", required=True, help=tr('the table\'s melds, e.g. "r4 r5 r6 | k5 b5 o5"'))
    _add_rule_options(cmd)
    cmd.set_defaults(handler=run_check)


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
    cmd.set_defaults(handler=run_score)


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
    profiles.add_tiles_option(cmd)
    _add_rule_options(cmd)
    cmd.set_defaults(handler=run_read)


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
    cmd.set_defaults(handler=run_app)


def _add_photo_options(cmd: argparse.ArgumentParser) -> None:
    """``solve`` takes the table and the rack from photos too (each instead of its text option)."""
    cmd.add_argument("--table-photo", metavar="PHOTO", help=tr("read the table from a photo instead of --table"))
    cmd.add_argument("--rack-photo", metavar="PHOTO", help=tr("read your rack from a photo instead of --rack"))
    _add_photo_size_option(cmd)
    profiles.add_tiles_option(cmd)


def _add_photo_size_option(cmd: argparse.ArgumentParser) -> None:
    """``--max-photo-mb``; its default, ``vision.images.MAX_PHOTO_MB``, is looked up only when
    a photo is read (importing vision would slow down every other command)."""
    cmd.add_argument(
        "--max-photo-mb", type=_megabytes, metavar="MB",
        help=tr("largest photo file to read, in MB (default: the app's upload limit, 25 MB)"),
    )


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

