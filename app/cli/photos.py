"""Photos on the command line: ``read PHOTO`` and ``solve --table-photo/--rack-photo``.

Every photo is read through :func:`app.photo_reading.read_photo`; what a library prints
meanwhile goes to stderr, so stdout carries the command's output alone.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import TYPE_CHECKING, Iterator

from solver.i18n import error_text, tr
from solver.rules import RuleSet
from solver.position import Position
from solver.tiles import Tile, parse_melds, parse_tiles
from vision.reading import Reading, ReadingKind

from ..photo_reading import InputSource, PhotoError, PhotoFailure, PhotoRead, choose_input
from . import profiles
from .errors import CliInputError

if TYPE_CHECKING:
    from vision.profiles import TileProfile


@contextlib.contextmanager
def library_output_to_stderr() -> Iterator[None]:
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


def read_photo_file(path: str, kind: ReadingKind, rules: RuleSet, args: argparse.Namespace, profile: TileProfile | None = None) -> PhotoRead:
    """The photo at ``path`` read (adapted by a tile ``profile``); a photo that cannot be read
    is one clear message."""
    with library_output_to_stderr():
        from vision.images import MAX_PHOTO_MB

        from ..photo_reading import read_photo

        megabytes = MAX_PHOTO_MB if args.max_photo_mb is None else args.max_photo_mb
        try:
            return read_photo(path, kind, rules, profile, max_bytes=max(1, int(megabytes * 1024 * 1024)))
        except PhotoError as err:
            raise _photo_input_error(err, path, args.lang) from err


def _photo_input_error(err: PhotoError, path: str, lang: str) -> CliInputError:
    """``err`` in the CLI's words: which file, and how to raise the size limit."""
    reason = error_text(err, lang)
    if err.failure is PhotoFailure.UNAVAILABLE:
        return CliInputError(reason)
    if err.failure is PhotoFailure.TOO_LARGE:
        reason += " " + tr("(--max-photo-mb raises the limit)", lang)
    return CliInputError(tr("cannot read the photo {path}: {reason}", lang, path=path, reason=reason))


def tile_profile(args: argparse.Namespace) -> TileProfile | None:
    """The tile profile ``--tiles`` names (None without it); missing models become one clear message."""
    from vision.model_files import ModelFileError

    try:
        return profiles.profile_from(args)
    except ModelFileError as err:
        raise CliInputError(tr("photo reading is not available: {reason}", args.lang, reason=error_text(err, args.lang))) from err


def photo_position(args: argparse.Namespace, rules: RuleSet) -> tuple[Position, dict[ReadingKind, Reading]]:
    """The position from ``--table``/``--table-photo`` and ``--rack``/``--rack-photo``, and the readings."""
    table_from = choose_input(bool(args.table_photo), args.table)
    rack_from = choose_input(bool(args.rack_photo), args.rack)
    if table_from.text_ignored:
        raise CliInputError(tr("give the table as --table or --table-photo, not both", args.lang))
    if rack_from.text_ignored:
        raise CliInputError(tr("give your rack as --rack or --rack-photo, not both", args.lang))
    if not args.rack_photo and args.rack is None:
        raise CliInputError(tr("the following arguments are required: --rack (or --rack-photo)", args.lang))
    if args.tiles is not None and not (args.table_photo or args.rack_photo):
        raise CliInputError(tr("--tiles applies to photos: give --table-photo or --rack-photo", args.lang))
    profile = tile_profile(args)
    readings: dict[ReadingKind, Reading] = {}
    if table_from.source is InputSource.PHOTO:
        readings[ReadingKind.TABLE] = read_photo_file(args.table_photo, ReadingKind.TABLE, rules, args, profile).reading
    if rack_from.source is InputSource.PHOTO:
        reading = read_photo_file(args.rack_photo, ReadingKind.RACK, rules, args, profile).reading
        if not reading.tiles:
            raise CliInputError(tr("no tiles found in the photo {path}", args.lang, path=args.rack_photo))
        readings[ReadingKind.RACK] = reading
    typed_table = () if ReadingKind.TABLE in readings else parse_melds(args.table)
    typed_rack = () if ReadingKind.RACK in readings else parse_tiles(args.rack)
    readings = _read_as_one_turn(readings, rules, [*typed_rack, *(t for meld in typed_table for t in meld)])
    table = readings[ReadingKind.TABLE].table_melds() if ReadingKind.TABLE in readings else typed_table
    rack = readings[ReadingKind.RACK].rack() if ReadingKind.RACK in readings else typed_rack
    for kind, reading in readings.items():
        for message in reading.messages(args.lang):
            print(_photo_note(kind, message, args.lang), file=sys.stderr)
    position = Position(table=table, rack=rack, initial_meld_done=not args.first_turn, rules=rules)
    return position, readings


def _read_as_one_turn(readings: dict[ReadingKind, Reading], rules: RuleSet, typed: list[Tile]) -> dict[ReadingKind, Reading]:
    """The photos of one turn decoded again together with its typed tiles, so that the copy limits
    hold over all of them (:func:`vision.pipeline.decode_together`)."""
    if not readings:
        return readings
    from vision.pipeline import decode_together

    return dict(zip(readings, decode_together(list(readings.values()), rules, known=typed)))


def _photo_note(kind: ReadingKind, message: str, lang: str) -> str:
    """A reading problem, saying which photo it is about (a whole sentence per photo, so that
    languages translate "table photo" and "rack photo" each in its own way)."""
    if kind is ReadingKind.TABLE:
        return tr("table photo: {message}", lang, message=message)
    return tr("rack photo: {message}", lang, message=message)



def write_annotated(photo: PhotoRead, path: str, lang: str) -> None:
    """Write the photo with each tile's box and name to ``path`` (``read --annotated``)."""
    with library_output_to_stderr():
        import cv2

        from ..photo_reading import annotate

        try:
            written = cv2.imwrite(path, annotate(photo))
        except (cv2.error, PhotoError):
            written = False
    if not written:
        raise CliInputError(tr("cannot write the annotated photo to {path}", lang, path=path))
