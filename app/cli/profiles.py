"""The command line's tile profiles: ``rummikub calibrate``, ``rummikub tiles``, and ``--tiles NAME``.

    rummikub calibrate PHOTO [PHOTO ...] --name NAME [--layout NOTATION]
    rummikub tiles list | rummikub tiles delete NAME
    rummikub read PHOTO --tiles NAME ...;  rummikub solve --table-photo T.jpg --rack-photo R.jpg --tiles NAME

``calibrate`` reads every photo first and saves only when all of them match the layout, so a
bad photo saves nothing; a profile that exists already gets the new tiles added. Errors are
:class:`app.profile_store.ProfileError` or :class:`vision.calibration.CalibrationError`, shown by
:func:`app.cli.main` as one message with exit status 2.

JSON (``--json``)::

    calibrate:   {"name": str, "tiles": int, "kinds": int, "added": int, "photos": int, "layout": notation,
                  "put_back": int, "left_out": int, "notes": [{"photo": path, "message": text}]}
                  (tiles the gate had dropped taken where the layout has one; boxes left out as no tile of
                  the layout: :func:`vision.calibration.samples_from`; a photo's tiles too small or too
                  blurred to teach the reader well: :meth:`vision.calibration.PairedPhoto.notes`)
    tiles list:  {"profiles": [{"name", "tiles", "kinds", "corrections", "updated", "not_tiles", "inks"}], "skipped": [text, ...]}
                 ("inks": whether it holds enough tiles of every colour to learn the set's inks)
    tiles delete: {"deleted": name}
"""

from __future__ import annotations

import argparse
import sys

from solver.i18n import error_text, tile_label, tr
from vision.calibration import CalibrationError, parse_layout

from ..profile_store import ProfileError, ProfileStore, safe_name
from .render import emit_json


def add_tiles_option(cmd: argparse.ArgumentParser) -> None:
    """``--tiles NAME``: read the photos with a tile profile made by ``rummikub calibrate``."""
    cmd.add_argument("--tiles", metavar="NAME", help=tr("read the photos with this tile profile (see rummikub calibrate)"))


def profile_from(args: argparse.Namespace):
    """The :class:`vision.profiles.TileProfile` named by ``--tiles`` (None without it)."""
    if getattr(args, "tiles", None) is None:
        return None
    return ProfileStore().load(args.tiles).tile_profile()


def add_commands(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """Register ``calibrate`` and ``tiles`` (``tiles list``, ``tiles delete NAME``)."""
    cmd = commands.add_parser(
        "calibrate", parents=[common], help=tr("teach the reader your own tiles from photos of a known layout"),
        description=tr(
            "Photograph your tiles laid out in rows - by default black, blue, orange and red, each 1 to 13, "
            "and the jokers in a fifth row - and save them as a tile profile."
        ),
    )
    cmd.add_argument("photos", nargs="+", metavar="PHOTO", help=tr("calibration photos of the layout"))
    cmd.add_argument("--name", required=True, help=tr("the profile's name"))
    cmd.add_argument(
        "--layout", metavar="NOTATION",
        help=tr('the rows as laid out, top row first, separated by |, e.g. "r1 r2 r3 | o1 o2 o3" (default: the four colours 1-13, then two jokers)'),
    )
    cmd.set_defaults(handler=_run_calibrate)
    tiles = commands.add_parser(
        "tiles", help=tr("list or delete tile profiles"),
        description=tr("The tile profiles saved by rummikub calibrate."),
    )
    actions = tiles.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("list", parents=[common], help=tr("list the tile profiles")).set_defaults(handler=_run_list)
    delete = actions.add_parser("delete", parents=[common], help=tr("delete a tile profile"))
    delete.add_argument("name", metavar="NAME")
    delete.set_defaults(handler=_run_delete)


def _run_calibrate(args: argparse.Namespace) -> int:
    from vision.calibration import collect_samples
    from vision.images import ImageError, load_image
    from vision.model_files import ModelFileError
    from vision.reader import load_reader, reader_fingerprint

    name = safe_name(args.name)
    layout = parse_layout(args.layout)
    store = ProfileStore()
    samples, put_back, left_out, notes = [], 0, [], []
    for path in args.photos:
        try:
            image = load_image(path)
        except ImageError as err:
            raise CalibrationError(
                "cannot read the photo {path}: {reason}; nothing was saved", path=path, reason=err
            ) from err
        try:
            paired = collect_samples(image, layout)
        except CalibrationError as err:
            raise CalibrationError("photo {path}: {reason}; nothing was saved", path=path, reason=err) from err
        except ModelFileError as err:
            raise CalibrationError("photo reading is not available: {reason}", reason=err) from err
        if paired.put_back and not args.json:
            print(tr(
                "Photo {path}: {count} tile(s) the reader doubted were taken where the layout has one: {tiles}.",
                args.lang, path=path, count=len(paired.put_back),
                tiles=", ".join(tile_label(paired.samples[k].tile, args.lang) for k in paired.put_back),
            ))
        if paired.left_out and not args.json:
            print(tr(
                "Photo {path}: {count} box(es) that are no tile of the layout were left out.",
                args.lang, path=path, count=len(paired.left_out),
            ))
        for note in paired.notes(args.lang):
            notes.append({"photo": path, "message": note})
            if not args.json:
                print(tr("Photo {path}: {note}", args.lang, path=path, note=note))
        samples.extend(paired.samples)
        put_back += len(paired.put_back)
        left_out.extend(paired.left_out)
    stored = store.save(name, samples, reader_fingerprint(load_reader()), not_tiles=left_out)
    summary = stored.summary
    if args.json:
        emit_json({
            "name": summary.name, "tiles": summary.tiles, "kinds": summary.kinds, "added": len(samples),
            "photos": len(args.photos), "layout": layout.notation, "put_back": put_back, "left_out": len(left_out),
            "notes": notes,
        })
    else:
        print(tr(
            "Tile profile {name!r}: {added} tile(s) from {photos} photo(s) added; it now holds {tiles} tile(s) of {kinds} kind(s).",
            args.lang, name=summary.name, added=len(samples), photos=len(args.photos), tiles=summary.tiles, kinds=summary.kinds,
        ))
    return 0


def _run_list(args: argparse.Namespace) -> int:
    listing = ProfileStore().listing()
    for err in listing.skipped:
        print(tr("rummikub: warning: {detail}", args.lang, detail=error_text(err, args.lang)), file=sys.stderr)
    if args.json:
        emit_json({
            "profiles": [
                {"name": p.name, "tiles": p.tiles, "kinds": p.kinds, "corrections": p.corrections, "updated": p.updated,
                 "not_tiles": p.not_tiles, "inks": p.inks}
                for p in listing.profiles
            ],
            "skipped": [error_text(err, args.lang) for err in listing.skipped],
        })
    elif not listing.profiles:
        print(tr("No tile profiles yet: make one with rummikub calibrate.", args.lang))
    else:
        for p in listing.profiles:
            print(tr(
                "{name}: {tiles} tile(s) of {kinds} kind(s), {corrections} from corrections; changed {updated}",
                args.lang, name=p.name, tiles=p.tiles, kinds=p.kinds, corrections=p.corrections, updated=p.updated,
            ) + p.notes(args.lang))
    return 0


def _run_delete(args: argparse.Namespace) -> int:
    store = ProfileStore()
    name = store.load(args.name).name
    store.delete(args.name)
    if args.json:
        emit_json({"deleted": name})
    else:
        print(tr("Deleted the tile profile {name!r}.", args.lang, name=name))
    return 0


__all__ = ["add_commands", "add_tiles_option", "profile_from", "ProfileError", "CalibrationError"]
