"""The ``rummikub`` command line: solve a position, check a table, score a round.

Thin by design: it parses text into :mod:`solver` values, calls the library, and renders the
answer as human text (through :func:`solver.i18n.tr`) or as JSON. Library errors about the
input (bad notation, impossible tiles, bad rules, unscorable rounds) become one message on
stderr and exit status 2, never a traceback. One module per job:

* :mod:`app.cli.parser` - the command line itself (``build_parser``);
* :mod:`app.cli.commands` - one ``run_<name>(args) -> int`` handler per command;
* :mod:`app.cli.photos` - photos for ``read`` and ``solve`` (through :mod:`app.photo_reading`);
* :mod:`app.cli.profiles` - ``calibrate``, ``tiles`` and ``--tiles NAME``;
* :mod:`app.cli.render` - text and JSON output, and errors in words;
* :mod:`app.cli.errors` - exit statuses and :class:`CliInputError`.

To add a subcommand, write ``_add_<name>`` in the parser (it registers the sub-parser and sets
``handler``) and ``run_<name>`` in the commands, and call ``_add_<name>`` from ``build_parser``.

Commands::

    rummikub solve --table "r4 r5 r6 | k5 b5 o5" --rack "r7 j k13" [--first-turn]
                   [--objective tiles|value] [--json] [--lang en] [rule options]
    rummikub solve --table-photo T.jpg --rack-photo R.jpg [--tiles NAME] ...   (a photo instead of --table / --rack;
                   --max-photo-mb MB: the largest photo file read, default the app's 25 MB)
    rummikub check --table "r4 r5 r6 | k5 j" [--json] [--lang en] [rule options]
    rummikub read PHOTO [--kind table|rack] [--annotated OUT.jpg] [--max-photo-mb MB] [--tiles NAME] [--json]
                  [--lang en] [rule options]
    rummikub calibrate PHOTO [PHOTO ...] --name NAME [--layout NOTATION]   (a tile profile: app/cli/profiles.py)
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

With a photo, ``solve`` adds ``"readings": {"table"|"rack": <read JSON>}`` and
``"relies_on_unsure": [tile, ...]``, the tiles marked uncertain that the move relies on (the text
output ends with a line naming them).

``read`` (see :meth:`vision.reading.Reading.to_json`)::

    {"kind": "table" | "rack", "image_size": [w, h],
     "tiles": [{"tile": tile, "box": [x1, y1, x2, y2], "confidence": float,
                "alternatives": [[tile, float], ...], "corrected": bool, "uncertain": bool}],
     "melds": [[tile, ...], ...], "meld_tiles": [[int, ...], ...],
     "problems": [{"kind": "invalid-meld" | "copy-limit" | "uncertain-tile", "tiles": [int, ...],
                   "read": [tile, ...], "message": text, ...}],
     "doubtful_boxes": [[x1, y1, x2, y2], ...],   # left out as more likely not tiles
     "blur": float,                               # the tiles' blur, a share of their length (vision.sharpness)
     "left_out": [{"tile": tile, "box": [x1, y1, x2, y2], "probability": float, "tile_prob": float,
                   "alternatives": [[tile, float], ...], "beside": int | null, "before": bool}]}
                  # the doubtful boxes likeliest to be tiles, numbered so on the annotated photo (vision.left_out)

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
import os
import sys
from typing import Callable, Sequence

from solver.i18n import tr
from solver.rules import ImpossibleStateError, RulesError
from solver.scoring import ScoringError
from solver.table import InvalidTableError
from solver.tiles import NotationError

from .errors import EXIT_BAD_INPUT, EXIT_BROKEN_PIPE, CliInputError
from .parser import build_parser
from .profiles import CalibrationError, ProfileError
from .render import describe_error

Handler = Callable[[argparse.Namespace], int]


INPUT_ERRORS = (
    NotationError, ImpossibleStateError, InvalidTableError, RulesError, ScoringError, CliInputError,
    ProfileError, CalibrationError,
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

