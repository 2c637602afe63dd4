"""The score database: round trips, schema versions, bad files, and concurrent writers."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from app.codec import CodecError, rules_from_dict, rules_to_dict, score_sheet_csv
from app.storage import (
    APPLICATION_ID,
    DATA_DIR_ENV,
    MIGRATIONS,
    SCHEMA_VERSION,
    NotFoundError,
    ScoreStore,
    StorageError,
    default_database_path,
)
from solver.rules import PRESETS, STANDARD, PoolOutScoring
from solver.scoring import PlayerRack, PoolExhausted, ScoringError, WentOut, score_round
from solver.tiles import parse_tiles

PLAYERS = ("Ann", "Bob", "Cy")


def went_out_round(rules=STANDARD):
    racks = (
        PlayerRack("Ann", ()),
        PlayerRack("Bob", parse_tiles("r7 k13 j")),
        PlayerRack("Cy", parse_tiles("b1 b2"), made_initial_meld=False),
    )
    return racks, score_round(racks, WentOut("Ann"), rules)


def pool_round():
    racks = tuple(PlayerRack(n, parse_tiles(t)) for n, t in zip(PLAYERS, ("o5", "o6 o7", "k1")))
    return racks, score_round(racks, PoolExhausted(), STANDARD)


@pytest.fixture
def store(tmp_path: Path) -> ScoreStore:
    return ScoreStore(tmp_path / "scores.sqlite3")


def test_default_path_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "club"))
    assert default_database_path() == tmp_path / "club" / "scores.sqlite3"
    store = ScoreStore()
    assert store.path.is_file()
    monkeypatch.delenv(DATA_DIR_ENV)
    assert default_database_path().name == "scores.sqlite3"
    assert "rummikub-assistant" in str(default_database_path())


def test_new_file_gets_the_current_schema_and_wal(store):
    assert store.schema_version() == SCHEMA_VERSION >= 1
    with sqlite3.connect(store.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_game_and_rounds_round_trip_exactly(store, tmp_path):
    rules = PRESETS["opening-50"]
    game = store.create_game([" Ann", "Bob ", "Cy"], rules)
    assert game.players == PLAYERS
    racks, result = went_out_round(rules)
    round_id = store.add_round(game.id, racks, result)
    racks2, result2 = pool_round()
    store.add_round(game.id, racks2, result2)

    reopened = ScoreStore(tmp_path / "scores.sqlite3")  # a restart: a new object on the same file
    assert reopened.game(game.id).rules == rules
    assert reopened.game(game.id).players == PLAYERS
    saved = reopened.rounds(game.id)
    assert [r.number for r in saved] == [1, 2]
    assert saved[0].id == round_id
    assert saved[0].racks == racks
    assert saved[0].racks[2].made_initial_meld is False
    assert saved[0].result.scores == result.scores
    assert saved[0].result.outcome == WentOut("Ann")
    assert saved[1].result.outcome == PoolExhausted()
    assert reopened.sheet(game.id).totals() == {
        p: result.by_name[p].score + result2.by_name[p].score for p in PLAYERS
    }


def test_games_are_listed_newest_first(store):
    first = store.create_game(["A", "B"], STANDARD)
    second = store.create_game(["C", "D", "E", "F"], STANDARD)
    assert [g.id for g in store.games()] == [second.id, first.id]


def test_replace_and_delete_recompute_totals(store):
    game = store.create_game(PLAYERS, STANDARD)
    racks, result = went_out_round()
    first = store.add_round(game.id, racks, result)
    racks2, result2 = pool_round()
    second = store.add_round(game.id, racks2, result2)

    store.replace_round(first, racks2, result2)
    assert store.sheet(game.id).totals() == {p: 2 * result2.by_name[p].score for p in PLAYERS}
    assert [r.id for r in store.rounds(game.id)] == [first, second]  # keeps its place

    store.delete_round(first)
    saved = store.rounds(game.id)
    assert [(r.id, r.number) for r in saved] == [(second, 1)]
    assert store.sheet(game.id).totals() == {p: result2.by_name[p].score for p in PLAYERS}


def test_missing_game_and_round_are_reported(store):
    racks, result = went_out_round()
    with pytest.raises(NotFoundError):
        store.game(99)
    with pytest.raises(NotFoundError):
        store.add_round(99, racks, result)
    with pytest.raises(NotFoundError):
        store.replace_round(99, racks, result)
    with pytest.raises(NotFoundError):
        store.delete_round(99)


def test_bad_players_and_foreign_rounds_are_refused_and_nothing_is_written(store):
    with pytest.raises(ScoringError):
        store.create_game(["Ann"], STANDARD)
    with pytest.raises(ScoringError):
        store.create_game(["Ann", " Ann "], STANDARD)
    assert store.games() == ()
    game = store.create_game(["X", "Y"], STANDARD)
    racks, result = went_out_round()
    with pytest.raises(ScoringError):
        store.add_round(game.id, racks, result)
    assert store.rounds(game.id) == ()


def test_a_failed_replace_rolls_back(store):
    game = store.create_game(PLAYERS, STANDARD)
    racks, result = went_out_round()
    round_id = store.add_round(game.id, racks, result)
    other = ScoreStore(store.path)
    foreign_racks = (PlayerRack("Q", ()), PlayerRack("Z", parse_tiles("r1")))
    foreign = score_round(foreign_racks, WentOut("Q"))
    with pytest.raises(ScoringError):
        other.replace_round(round_id, foreign_racks, foreign)
    assert store.rounds(game.id)[0].result == result


def test_file_from_a_newer_app_is_refused(tmp_path):
    path = tmp_path / "scores.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StorageError, match="newer version"):
        ScoreStore(path)


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    path = tmp_path / "scores.sqlite3"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StorageError):
        ScoreStore(path)


def test_an_unwritable_data_dir_is_reported(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StorageError, match="data directory"):
        ScoreStore(blocker / "sub" / "scores.sqlite3")


def test_a_damaged_round_row_is_reported(store):
    game = store.create_game(PLAYERS, STANDARD)
    with sqlite3.connect(store.path) as conn:
        conn.execute(
            "INSERT INTO rounds (game_id, created, updated, data) VALUES (?, '', '', ?)",
            (game.id, '{"outcome": {"kind": "teleported"}, "players": []}'),
        )
    with pytest.raises(StorageError, match="damaged"):
        store.rounds(game.id)


def test_concurrent_writers_lose_no_round(tmp_path):
    """Four sessions (own store objects, own threads) add rounds at once; all land."""
    path = tmp_path / "scores.sqlite3"
    game = ScoreStore(path).create_game(PLAYERS, STANDARD)
    racks, result = went_out_round()
    per_writer, writers = 15, 4
    errors: list[BaseException] = []
    start = threading.Barrier(writers)

    def write() -> None:
        try:
            store = ScoreStore(path)
            start.wait()
            for _ in range(per_writer):
                store.add_round(game.id, racks, result)
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=write) for _ in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    saved = ScoreStore(path).rounds(game.id)
    assert len(saved) == per_writer * writers
    assert ScoreStore(path).sheet(game.id).totals()["Ann"] == per_writer * writers * result.by_name["Ann"].score


def test_rules_codec_round_trips_and_tolerates_unknown_and_missing_fields():
    rules = STANDARD.with_(jokers=4, pool_out_scoring=PoolOutScoring.FEWEST_TILES)
    data = rules_to_dict(rules)
    assert data["pool_out_scoring"] == "fewest-tiles"
    assert rules_from_dict(data) == rules
    assert rules_from_dict({"jokers": 4, "a_future_rule": True}) == STANDARD.with_(jokers=4)
    with pytest.raises(CodecError):
        rules_from_dict({"pool_out_scoring": "coin-toss"})
    with pytest.raises(CodecError):
        rules_from_dict({"copies": 0})


def test_csv_has_round_scores_and_running_totals(store):
    game = store.create_game(PLAYERS, STANDARD)
    racks, result = went_out_round()
    store.add_round(game.id, racks, result)
    racks2, result2 = pool_round()
    store.add_round(game.id, racks2, result2)
    lines = score_sheet_csv(store.sheet(game.id)).splitlines()
    assert lines[0] == "Round,Outcome,Ann score,Bob score,Cy score,Ann total,Bob total,Cy total"
    # Ann went out: Bob pays 7+13+30, Cy pays 3.
    assert lines[1] == "1,Ann went out,53,-50,-3,53,-50,-3"
    # Pool exhausted: Cy's 1 is lowest; Ann pays 5-1, Bob pays 13-1.
    assert lines[2] == "2,pool exhausted,-4,-12,16,49,-62,13"
    assert len(lines) == 3


def test_csv_cells_never_start_a_formula(store):
    game = store.create_game(["=HYPERLINK(\"x\")", "Bob"], STANDARD)
    racks = (PlayerRack('=HYPERLINK("x")', ()), PlayerRack("Bob", parse_tiles("r2")))
    store.add_round(game.id, racks, score_round(racks, WentOut('=HYPERLINK("x")')))
    header, row = score_sheet_csv(store.sheet(game.id)).splitlines()
    assert header.startswith("Round,Outcome,\"'=HYPERLINK(\"\"x\"\") score\",Bob score")
    assert row == "1,\"'=HYPERLINK(\"\"x\"\") went out\",2,-2,2,-2"


def test_a_crash_in_the_middle_of_a_write_loses_nothing_saved(store):
    """A process killed inside a write transaction leaves the database as it was."""
    import os
    import subprocess
    import sys
    import textwrap

    game = store.create_game(PLAYERS, STANDARD)
    racks, result = went_out_round()
    store.add_round(game.id, racks, result)
    script = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from app.storage import ScoreStore
        store = ScoreStore(Path({str(store.path)!r}))
        with store._write() as conn:
            conn.execute("DELETE FROM rounds")
            conn.execute("INSERT INTO rounds (game_id, created, updated, data) VALUES (1, '', '', 'half')")
            os._exit(9)  # the app dies before COMMIT
        """
    )
    root = Path(__file__).resolve().parents[1]
    crashed = subprocess.run([sys.executable, "-c", script], cwd=root, env=os.environ | {"PYTHONPATH": str(root)}, timeout=60)
    assert crashed.returncode == 9
    reopened = ScoreStore(store.path)
    saved = reopened.rounds(game.id)
    assert len(saved) == 1 and saved[0].result == result
    reopened.add_round(game.id, racks, result)  # and it is writable again
    assert len(reopened.rounds(game.id)) == 2


# --- the file is marked as ours; a foreign SQLite file is refused untouched ---------------------


def _pragmas(path: Path) -> tuple[int, int]:
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as conn:
        return conn.execute("PRAGMA application_id").fetchone()[0], conn.execute("PRAGMA user_version").fetchone()[0]


def test_a_new_database_is_marked_as_this_apps(store):
    assert _pragmas(store.path) == (APPLICATION_ID, SCHEMA_VERSION)
    assert APPLICATION_ID == 0x526D4B62  # "RmKb": never change it, old files carry it


def test_an_empty_file_becomes_a_score_database(tmp_path):
    path = tmp_path / "scores.sqlite3"
    path.touch()
    ScoreStore(path).create_game(PLAYERS, STANDARD)
    assert _pragmas(path) == (APPLICATION_ID, SCHEMA_VERSION)


@pytest.mark.parametrize("kind", ["unmarked-other-tables", "other-application", "other-app-with-our-tables"])
def test_a_foreign_sqlite_file_is_refused_and_left_untouched(tmp_path, kind):
    path = tmp_path / "scores.sqlite3"
    with sqlite3.connect(path) as conn:
        if kind == "unmarked-other-tables":
            conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
            conn.execute("INSERT INTO notes (text) VALUES ('my shopping list')")
        else:
            conn.execute("PRAGMA application_id = 1234")
            tables = ("games", "rounds") if kind == "other-app-with-our-tables" else ("photos",)
            for table in tables:
                conn.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY)")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StorageError, match="not a score database of this app"):
        ScoreStore(path)
    assert path.read_bytes() == before  # not switched to WAL, no tables added, not marked
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith("-shm")) == ["scores.sqlite3"]
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_a_database_made_before_the_mark_still_opens_and_is_marked(tmp_path):
    """Files of earlier versions have this app's tables and user_version but no application_id."""
    path = tmp_path / "scores.sqlite3"
    with sqlite3.connect(path) as conn:
        for statement in MIGRATIONS[0]:
            conn.execute(statement)
        conn.execute("PRAGMA user_version = 1")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute(
            "INSERT INTO games (created, players, rules) VALUES ('2025-01-01T00:00:00+00:00', ?, ?)",
            ('["Ann", "Bob", "Cy"]', '{"name": "standard"}'),
        )
    conn.close()
    assert _pragmas(path) == (0, 1)
    store = ScoreStore(path)
    assert [g.players for g in store.games()] == [PLAYERS]
    racks, result = went_out_round()
    store.add_round(1, racks, result)
    assert store.sheet(1).totals()["Ann"] == result.by_name["Ann"].score
    assert _pragmas(path) == (APPLICATION_ID, SCHEMA_VERSION)


# --- a database that cannot be written is shown read-only --------------------------------------

READ_ONLY_SCRIPT = """
import json, sys
from pathlib import Path
from app.storage import ScoreStore, StorageError
from solver.rules import STANDARD
from solver.scoring import PlayerRack, WentOut, score_round

store = ScoreStore(Path(sys.argv[1]))
report = {"read_only": str(store.read_only), "games": [list(g.players) for g in store.games()],
          "totals": store.sheet(1).totals(), "rounds": len(store.rounds(1))}
racks = (PlayerRack("Ann", ()), PlayerRack("Bob", ()), PlayerRack("Cy", ()))
for name, write in [("create_game", lambda: store.create_game(["X", "Y"], STANDARD)),
                    ("add_round", lambda: store.add_round(1, racks, score_round(racks, WentOut("Ann")))),
                    ("delete_round", lambda: store.delete_round(1))]:
    try:
        write()
        report[name] = "written"
    except StorageError as err:
        report[name] = str(err)
print(json.dumps(report))
"""


def _as_unprivileged(argv: list[str]) -> list[str]:
    """``argv`` run so that file permissions bind: as is, or for root without the capabilities
    that let root write anywhere (``setpriv``, util-linux)."""
    import os
    import shutil

    if os.geteuid() != 0:
        return argv
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: a read-only folder cannot be made")
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", *argv]


@pytest.mark.parametrize("locked", ["folder", "folder-and-file"])
def test_a_read_only_database_is_shown_and_says_why_nothing_can_be_saved(tmp_path, locked):
    import json
    import os
    import subprocess
    import sys

    folder = tmp_path / "data"
    store = ScoreStore(folder / "scores.sqlite3")
    game = store.create_game(PLAYERS, STANDARD)
    racks, result = went_out_round()
    store.add_round(game.id, racks, result)
    before = store.path.read_bytes()
    os.chmod(tmp_path, 0o755)  # let the unprivileged run reach the folder
    if locked == "folder-and-file":
        os.chmod(store.path, 0o444)
    os.chmod(folder, 0o555)
    root = Path(__file__).resolve().parents[1]
    try:
        run = subprocess.run(
            _as_unprivileged([sys.executable, "-c", READ_ONLY_SCRIPT, str(store.path)]),
            cwd=root, env=os.environ | {"PYTHONPATH": str(root)}, capture_output=True, text=True, timeout=120,
        )
    finally:
        os.chmod(folder, 0o755)
        os.chmod(store.path, 0o644)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["games"] == [list(PLAYERS)] and report["rounds"] == 1
    assert report["totals"] == store.sheet(game.id).totals()
    assert "cannot be written" in report["read_only"] and "nothing can be saved" in report["read_only"]
    for write in ("create_game", "add_round", "delete_round"):
        assert report[write] == report["read_only"], write
    assert store.path.read_bytes() == before
    assert ScoreStore(store.path).read_only is None  # writable again: an ordinary store


def test_a_missing_database_in_a_read_only_folder_is_an_error_not_an_empty_sheet(tmp_path):
    import os
    import subprocess
    import sys

    folder = tmp_path / "data"
    folder.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(folder, 0o555)
    root = Path(__file__).resolve().parents[1]
    script = "import sys\nfrom pathlib import Path\nfrom app.storage import ScoreStore\nScoreStore(Path(sys.argv[1]))"
    try:
        run = subprocess.run(
            _as_unprivileged([sys.executable, "-c", script, str(folder / "scores.sqlite3")]),
            cwd=root, env=os.environ | {"PYTHONPATH": str(root)}, capture_output=True, text=True, timeout=120,
        )
    finally:
        os.chmod(folder, 0o755)
    assert run.returncode == 1 and "StorageError: cannot open the score database" in run.stderr
