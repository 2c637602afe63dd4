"""Score sheets on disk: one SQLite file, a versioned schema, safe for several sessions at once.

Every call opens its own short connection (Streamlit runs each browser session in its own
thread), writes inside ``BEGIN IMMEDIATE`` transactions (so a crash mid-write leaves the old
data, never half a round) and waits on a busy timeout when another session is writing. WAL
mode lets readers carry on while one session writes. The schema version lives in
``PRAGMA user_version``; :data:`MIGRATIONS` upgrades older files in place.

The file is marked as this app's with ``PRAGMA application_id`` (:data:`APPLICATION_ID`). An
existing file is first looked at read-only: one marked by another program, or unmarked but
holding other tables, is refused and left exactly as it was; an unmarked one with this app's
tables (made before the mark) is marked and upgraded. When the file exists but cannot be
written (a read-only folder or file), the store opens it read-only: everything can be read,
and every write raises :attr:`ScoreStore.read_only` (a :class:`StorageError` saying why).

The file lives under ``$RUMMIKUB_DATA_DIR`` (default: the per-user data directory). It is
the only place this module touches the file system; nothing a user types or uploads becomes
a path.
"""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator, Sequence

import platformdirs

from solver.i18n import TranslatableError
from solver.players import player_names
from solver.rules import RuleSet
from solver.scoring import PlayerRack, RoundResult, ScoreSheet, check_player_count

from .codec import CodecError, round_from_dict, round_to_dict, rules_from_dict, rules_to_dict

DATA_DIR_ENV = "RUMMIKUB_DATA_DIR"
APP_NAME = "rummikub-assistant"
DATABASE_NAME = "scores.sqlite3"
BUSY_TIMEOUT_S = 15.0

#: Schema upgrades: entry ``i`` takes a file from version ``i`` to ``i + 1``.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE games (
            id INTEGER PRIMARY KEY,
            created TEXT NOT NULL,
            players TEXT NOT NULL,
            rules TEXT NOT NULL
        )""",
        """CREATE TABLE rounds (
            id INTEGER PRIMARY KEY,
            game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            created TEXT NOT NULL,
            updated TEXT NOT NULL,
            data TEXT NOT NULL
        )""",
        "CREATE INDEX rounds_by_game ON rounds(game_id, id)",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)
#: ``PRAGMA application_id`` of this app's score databases: "RmKb" as a big-endian integer.
APPLICATION_ID = int.from_bytes(b"RmKb", "big")
#: The tables every version of the schema has (how an unmarked file of this app is known).
OUR_TABLES = frozenset({"games", "rounds"})
#: SQLite errors that mean "this file cannot be written here", not "this file is bad".
_CANNOT_WRITE = ("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM")


class StorageError(TranslatableError, RuntimeError):
    """The score database cannot be used (unreadable, from a newer app, or busy too long)."""


class NotFoundError(TranslatableError, LookupError):
    """No game or round with that id (it may have been deleted in another session)."""


@dataclass(frozen=True)
class Game:
    id: int
    created: str
    players: tuple[str, ...]
    rules: RuleSet


@dataclass(frozen=True)
class SavedRound:
    """A stored round: its id, its number in the game (1-based), the racks and the result."""

    id: int
    number: int
    racks: tuple[PlayerRack, ...]
    result: RoundResult


def data_dir() -> Path:
    """``$RUMMIKUB_DATA_DIR``, or the per-user data directory: where the app keeps its files."""
    return Path(os.environ.get(DATA_DIR_ENV) or platformdirs.user_data_dir(APP_NAME))


def default_database_path() -> Path:
    """``$RUMMIKUB_DATA_DIR/scores.sqlite3``, or the same name in the per-user data dir."""
    return data_dir() / DATABASE_NAME


def _cannot_write(err: StorageError) -> bool:
    """Whether ``err`` says the file cannot be written here (rather than that it is bad)."""
    cause = err.__cause__
    name = getattr(cause, "sqlite_errorname", "") or ""
    return isinstance(cause, sqlite3.Error) and name.startswith(_CANNOT_WRITE)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class ScoreStore:
    """Games and their rounds in one SQLite file (created, and upgraded, on first use).

    ``read_only`` is ``None`` when the file can be written, else the :class:`StorageError`
    every write raises (the app shows it next to the sheet)."""

    def __init__(self, path: Path | None = None, busy_timeout_s: float = BUSY_TIMEOUT_S) -> None:
        self.path = Path(path) if path is not None else default_database_path()
        self.busy_timeout_s = busy_timeout_s
        self.read_only: StorageError | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StorageError(
                "cannot create the data directory {path}: {reason}", path=str(self.path.parent), reason=str(err)
            ) from err
        if self.path.exists():
            self._check_ours()
        try:
            self._migrate()
        except StorageError as err:
            if not (self.path.is_file() and _cannot_write(err)):
                raise
            self.read_only = StorageError(
                "the score database {path} cannot be written ({reason}): it can be read, but nothing can be saved",
                path=str(self.path), reason=str(err.__cause__),
            )
            self._check_readable()

    # -- connections -------------------------------------------------------------------

    def _open(self, read_only: bool) -> sqlite3.Connection:
        """A connection; ``read_only`` never writes the file (nor switches it to WAL)."""
        if not read_only:
            return sqlite3.connect(self.path, timeout=self.busy_timeout_s, isolation_level=None)
        uri = self.path.resolve().as_uri()
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=self.busy_timeout_s, isolation_level=None)
        try:
            conn.execute("PRAGMA schema_version").fetchone()  # connecting is lazy: this opens the file
            return conn
        except sqlite3.OperationalError as err:
            conn.close()
            if not (err.sqlite_errorname or "").startswith(_CANNOT_WRITE):
                raise
        # A WAL file in a folder this process cannot write: its shared-memory file cannot be
        # made, so SQLite reads it only as an unchanging file (a snapshot of the sheet).
        return sqlite3.connect(f"{uri}?immutable=1", uri=True, timeout=self.busy_timeout_s, isolation_level=None)

    @contextmanager
    def _connect(self, read_only: bool = False) -> Iterator[sqlite3.Connection]:
        read_only = read_only or self.read_only is not None
        try:
            conn = self._open(read_only)
        except sqlite3.Error as err:
            raise StorageError(
                "cannot open the score database {path}: {reason}", path=str(self.path), reason=str(err)
            ) from err
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")
            if not read_only:
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            yield conn
        except sqlite3.Error as err:
            raise StorageError("score database error ({path}): {reason}", path=str(self.path), reason=str(err)) from err
        finally:
            conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: all of it lands, or none of it."""
        if self.read_only is not None:
            raise StorageError(self.read_only.message, **self.read_only.params)
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _check_ours(self) -> None:
        """Refuse, without changing a byte of it, a file that is not this app's score database."""
        with self._connect(read_only=True) as conn:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        new = app_id == 0 and version == 0 and not tables
        unmarked = app_id == 0 and version > 0 and OUR_TABLES <= tables  # made before the mark
        if app_id != APPLICATION_ID and not new and not unmarked:
            raise StorageError(
                "{path} is not a score database of this app; it was left untouched",
                path=str(self.path),
            )

    def _check_readable(self) -> None:
        """A file opened read-only must already have this app's schema (it cannot be upgraded)."""
        version = self.schema_version()
        if version != SCHEMA_VERSION:
            raise StorageError(
                "the score database {path} needs an upgrade (schema {version} to {known}) but cannot be written",
                path=str(self.path), version=version, known=SCHEMA_VERSION,
            )

    def _migrate(self) -> None:
        with self._write() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StorageError(
                    "the score database {path} is from a newer version of the app "
                    "(schema {version}, this app knows {known})",
                    path=str(self.path), version=version, known=SCHEMA_VERSION,
                )
            if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            for target in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[target]:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {target + 1}")

    def schema_version(self) -> int:
        with self._connect() as conn:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])

    # -- games -------------------------------------------------------------------------

    def create_game(self, players: Sequence[str], rules: RuleSet) -> Game:
        """A new, empty game; raises :class:`solver.scoring.ScoringError` for bad names, a player
        count the game does not have (the rule: :func:`solver.players.player_names`), or one the
        rules are not for (:func:`solver.scoring.check_player_count`)."""
        players = player_names(players)
        check_player_count(len(players), rules)
        created = _now()
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO games (created, players, rules) VALUES (?, ?, ?)",
                (created, json.dumps(players), json.dumps(rules_to_dict(rules))),
            )
            game_id = int(cursor.lastrowid or 0)
        return Game(game_id, created, players, rules)

    def games(self) -> tuple[Game, ...]:
        """Every game, newest first."""
        with self._connect() as conn:
            rows = conn.execute("SELECT id, created, players, rules FROM games ORDER BY id DESC").fetchall()
        return tuple(self._game(row) for row in rows)

    def game(self, game_id: int) -> Game:
        with self._connect() as conn:
            row = conn.execute(
                "SELECT id, created, players, rules FROM games WHERE id = ?", (game_id,)
            ).fetchone()
        if row is None:
            raise NotFoundError("no game {id}", id=game_id)
        return self._game(row)

    @staticmethod
    def _game(row: tuple) -> Game:
        try:
            return Game(int(row[0]), row[1], tuple(json.loads(row[2])), rules_from_dict(json.loads(row[3])))
        except (ValueError, CodecError) as err:
            raise StorageError("game {id} is damaged in the database: {reason}", id=row[0], reason=err) from err

    # -- rounds ------------------------------------------------------------------------

    def rounds(self, game_id: int) -> tuple[SavedRound, ...]:
        """The game's rounds in the order they were played."""
        game = self.game(game_id)
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT id, data FROM rounds WHERE game_id = ? ORDER BY id", (game_id,)
            ).fetchall()
        saved = []
        for number, (round_id, data) in enumerate(rows, start=1):
            try:
                racks, result = round_from_dict(json.loads(data), game.rules)
            except (ValueError, CodecError) as err:
                raise StorageError(
                    "round {id} is damaged in the database: {reason}", id=round_id, reason=err
                ) from err
            saved.append(SavedRound(int(round_id), number, racks, result))
        return tuple(saved)

    def sheet(self, game_id: int) -> ScoreSheet:
        """The game's score sheet, totals recomputed from the stored rounds."""
        game = self.game(game_id)
        return ScoreSheet(game.players, tuple(r.result for r in self.rounds(game_id)))

    def add_round(self, game_id: int, racks: Sequence[PlayerRack], result: RoundResult) -> int:
        """Store a scored round at the end of the game; returns its id."""
        game = self.game(game_id)
        ScoreSheet(game.players).add(result)  # same players as the game, or ScoringError
        stamp = _now()
        payload = json.dumps(round_to_dict(tuple(racks), result))
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
                raise NotFoundError("no game {id}", id=game_id)
            cursor = conn.execute(
                "INSERT INTO rounds (game_id, created, updated, data) VALUES (?, ?, ?, ?)",
                (game_id, stamp, stamp, payload),
            )
            return int(cursor.lastrowid or 0)

    def replace_round(self, round_id: int, racks: Sequence[PlayerRack], result: RoundResult) -> None:
        """Overwrite a round with a corrected one (same place in the game)."""
        payload = json.dumps(round_to_dict(tuple(racks), result))
        with self._write() as conn:
            row = conn.execute("SELECT game_id FROM rounds WHERE id = ?", (round_id,)).fetchone()
            if row is None:
                raise NotFoundError("no round {id}", id=round_id)
            players = json.loads(
                conn.execute("SELECT players FROM games WHERE id = ?", (row[0],)).fetchone()[0]
            )
            ScoreSheet(tuple(players)).add(result)
            conn.execute(
                "UPDATE rounds SET data = ?, updated = ? WHERE id = ?", (payload, _now(), round_id)
            )

    def delete_round(self, round_id: int) -> None:
        with self._write() as conn:
            cursor = conn.execute("DELETE FROM rounds WHERE id = ?", (round_id,))
            if cursor.rowcount == 0:
                raise NotFoundError("no round {id}", id=round_id)
