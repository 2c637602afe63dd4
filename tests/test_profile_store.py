"""Tile profiles on disk: the versioned file, safe names, damaged files, rebuilding for another reader."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.profile_store import CALIBRATION, CORRECTION, FORMAT, REMOVAL, SUFFIX, VERSION, ProfileError, ProfileStore, safe_name
from solver.i18n import error_text
from solver.tiles import Tile
from vision.profiles import NoTileSample, TileSample


def _samples(count: int = 5, seed: int = 0, dim: int = 8) -> list[TileSample]:
    rng = np.random.default_rng(seed)
    return [
        TileSample(Tile.from_index(i), rng.integers(0, 255, (4, 6, 6, 3), dtype=np.uint8), rng.normal(0, 1, dim), (1.0, 2.0, 3.0, 4.0))
        for i in range(count)
    ]


def test_a_saved_profile_reads_back_exactly(tmp_path):
    store = ProfileStore(tmp_path / "profiles")
    samples = _samples()
    saved = store.save("Grandma set", samples, reader="abc")
    loaded = store.load("grandma SET")  # names are matched without case
    assert loaded.name == "Grandma set" and loaded.readers == ("abc",) * 5 and loaded.origins == ("calibration",) * 5
    for a, b in zip(loaded.samples, samples):
        assert a.tile == b.tile and a.box == b.box
        assert np.array_equal(a.crops, b.crops) and np.allclose(a.embedding, b.embedding, atol=1e-6)
    assert saved.created == loaded.created
    assert store.path("Grandma set").parent == tmp_path / "profiles"
    assert [p.name for p in store.listing().profiles] == ["Grandma set"]


def test_saving_to_an_existing_profile_adds_the_tiles(tmp_path):
    store = ProfileStore(tmp_path)
    store.save("set", _samples(3), reader="r1")
    stored = store.save("set", _samples(2, seed=1), reader="r2", origin=CORRECTION)
    assert len(stored.samples) == 5 and stored.origins[-2:] == (CORRECTION, CORRECTION)
    assert stored.readers == ("r1",) * 3 + ("r2",) * 2
    summary = store.listing().profiles[0]
    assert (summary.tiles, summary.kinds, summary.corrections) == (5, 3, 2)
    assert not summary.inks  # too few tiles of every colour to learn the set's inks


@pytest.mark.parametrize(
    "name", ["", "   ", "../evil", "a/b", "a\\b", "x" * 41, "CON", "nul", ".hidden", "-flag", "tab\tname", "név:2"]
)
def test_unsafe_names_are_refused_and_reach_no_file(tmp_path, name):
    store = ProfileStore(tmp_path / "profiles")
    with pytest.raises(ProfileError):
        store.save(name, _samples(), reader="r")
    assert not (tmp_path / "profiles").exists() and list(tmp_path.iterdir()) == []


def test_safe_names_keep_letters_of_any_alphabet():
    assert safe_name("  Бабусин набір 2 ") == "Бабусин набір 2"
    assert safe_name("my_set-1") == "my_set-1"
    with pytest.raises(ProfileError) as caught:
        safe_name("a/b")
    assert "a/b" in error_text(caught.value, "ru")


def test_a_damaged_file_is_skipped_with_a_message_and_the_others_listed(tmp_path):
    store = ProfileStore(tmp_path)
    store.save("good", _samples(), reader="r")
    (tmp_path / ("broken" + SUFFIX)).write_bytes(b"PK\x03\x04 not really a zip")
    (tmp_path / ("empty" + SUFFIX)).write_bytes(b"")
    np.savez(tmp_path / ("other" + SUFFIX), format=np.array("something else"))
    listing = store.listing()
    assert [p.name for p in listing.profiles] == ["good"]
    messages = sorted(str(e) for e in listing.skipped)
    assert len(messages) == 3 and all("is damaged or not a tile profile; it was skipped" in m for m in messages)
    assert any("broken" + SUFFIX in m for m in messages)
    with pytest.raises(ProfileError, match="damaged"):
        store.load("broken")


def test_a_file_from_a_newer_version_is_skipped_not_misread(tmp_path):
    store = ProfileStore(tmp_path)
    store.save("new", _samples(), reader="r")
    path = store.path("new")
    with np.load(path) as data:
        arrays = dict(data)
    arrays["version"] = np.array(VERSION + 1)
    np.savez_compressed(path, **arrays)
    listing = store.listing()
    assert listing.profiles == () and "newer version" in str(listing.skipped[0])


def test_a_file_whose_parts_disagree_is_damaged(tmp_path):
    store = ProfileStore(tmp_path)
    store.save("set", _samples(), reader="r")
    path = store.path("set")
    with np.load(path) as data:
        arrays = dict(data)
    meta = json.loads(str(arrays["meta"]))
    meta["origins"] = meta["origins"][:2]
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(path, **arrays)
    assert store.listing().profiles == () and len(store.listing().skipped) == 1
    assert str(arrays["format"]) == FORMAT


def test_delete_and_missing_profiles(tmp_path):
    store = ProfileStore(tmp_path)
    store.save("set", _samples(), reader="r")
    store.delete("SET")
    assert store.listing().profiles == ()
    with pytest.raises(ProfileError, match="no tile profile named 'set'"):
        store.delete("set")
    with pytest.raises(ProfileError, match="no tile profile named"):
        store.load("never made")
    with pytest.raises(ProfileError, match="no tiles"):
        store.save("set", [], reader="r")
    assert ProfileStore(tmp_path / "nowhere").listing().profiles == ()


def test_a_profile_rebuilds_the_embeddings_another_reader_made_from_the_kept_crops(tmp_path, monkeypatch):
    import vision.reader
    from vision.reader import CropReading

    store = ProfileStore(tmp_path)
    store.save("set", _samples(3), reader="current")
    stored = store.save("set", _samples(2, seed=1), reader="old", origin=CORRECTION)
    calls = []

    def read_views(views, reader):
        calls.append(views.shape)
        n = views.shape[1]
        return CropReading(np.full((n, 53), 1 / 53), np.ones(n), np.full((n, 8), 7.0))

    monkeypatch.setattr(vision.reader, "load_reader", lambda weights=None: object())
    monkeypatch.setattr(vision.reader, "reader_fingerprint", lambda reader: "current")
    monkeypatch.setattr(vision.reader, "read_views", read_views)
    profile = stored.tile_profile()
    assert calls == [(4, 2, 6, 6, 3)]  # only the two tiles the old reader embedded
    assert profile.size == 5 and profile.seen.sum() == 3
    old_tiles = [s.tile.index for s in stored.samples[3:]]
    assert np.allclose(profile.centre, np.mean(
        [np.mean([s.embedding for s in stored.samples[:3] if s.tile.index == c] + ([np.full(8, 7.0)] * old_tiles.count(c)), axis=0)
         for c in range(3)], axis=0,
    ))


def test_a_loaded_profile_remembers_its_corrections_one_by_one(tmp_path, monkeypatch):
    import vision.reader

    store = ProfileStore(tmp_path)
    store.save("set", _samples(4), reader="current")
    corrections = _samples(2, seed=2)
    stored = store.save("set", corrections, reader="current", origin=CORRECTION)
    monkeypatch.setattr(vision.reader, "load_reader", lambda weights=None: object())
    monkeypatch.setattr(vision.reader, "reader_fingerprint", lambda reader: "current")
    profile = stored.tile_profile()
    assert profile.size == 6 and profile.exemplar_labels.tolist() == [s.tile.index for s in corrections]
    centred = np.stack([s.embedding for s in corrections]) - profile.centre
    assert np.allclose(profile.exemplars, centred / np.linalg.norm(centred, axis=1, keepdims=True))
    calibration_only = store.save("other", _samples(4), reader="current").tile_profile()
    assert calibration_only.exemplar_labels.size == 0


# --- boxes that are no tiles (format version 2) ---------------------------------------------------------


def _no_tiles(count: int = 2, seed: int = 3, dim: int = 8) -> list[NoTileSample]:
    rng = np.random.default_rng(seed)
    return [NoTileSample(rng.integers(0, 255, (4, 6, 6, 3), dtype=np.uint8), rng.normal(0, 1, dim), rng.normal(0, 1, dim),
                         (5.0, 6.0, 7.0, 9.0)) for _ in range(count)]


def test_boxes_that_are_no_tiles_are_saved_with_their_origin_and_read_back(tmp_path):
    store = ProfileStore(tmp_path)
    left_out = _no_tiles()
    store.save("rack set", _samples(3), reader="r1", not_tiles=left_out)
    stored = store.save("rack set", (), reader="r2", origin=REMOVAL, not_tiles=_no_tiles(1, seed=4))
    loaded = store.load("rack set")
    assert len(loaded.samples) == 3 and len(loaded.not_tiles) == 3
    assert loaded.not_tile_origins == (CALIBRATION, CALIBRATION, REMOVAL) and loaded.not_tile_readers == ("r1", "r1", "r2")
    for a, b in zip(loaded.not_tiles, left_out):
        assert np.array_equal(a.crops, b.crops) and np.allclose(a.embedding, b.embedding, atol=1e-6) and a.box == b.box
        assert np.allclose(a.photo_mean, b.photo_mean, atol=1e-6)
    assert store.listing().profiles[0].not_tiles == 3 == stored.summary.not_tiles
    with pytest.raises(ProfileError, match="no tiles"):  # a profile is made of tiles first
        store.save("new set", (), reader="r", not_tiles=_no_tiles())
    assert store.names() == ("rack set",)


def test_a_version_1_file_reads_with_no_boxes_that_are_no_tiles_and_is_written_as_version_2(tmp_path):
    store = ProfileStore(tmp_path)
    store.save("old", _samples(3), reader="r")
    path = store.path("old")
    with np.load(path) as data:
        arrays = {k: v for k, v in dict(data).items() if not k.startswith("not_tile")}
    meta = json.loads(str(arrays["meta"]))
    del meta["not_tiles"]
    arrays.update(version=np.array(1), meta=np.array(json.dumps(meta)))
    np.savez_compressed(path, **arrays)
    loaded = store.load("old")
    assert len(loaded.samples) == 3 and loaded.not_tiles == () and loaded.summary.not_tiles == 0
    store.save("old", (), reader="r", origin=REMOVAL, not_tiles=_no_tiles(1))
    with np.load(path) as data:
        assert int(data["version"]) == VERSION == 2 and data["not_tile_crops"].shape == (1, 4, 6, 6, 3)
    assert len(store.load("old").samples) == 3


def test_boxes_that_are_no_tiles_whose_parts_disagree_make_the_file_damaged(tmp_path):
    store = ProfileStore(tmp_path)
    store.save("set", _samples(3), reader="r", not_tiles=_no_tiles(2))
    path = store.path("set")
    with np.load(path) as data:
        arrays = dict(data)
    arrays["not_tile_embeddings"] = arrays["not_tile_embeddings"][:1]
    np.savez_compressed(path, **arrays)
    listing = store.listing()
    assert listing.profiles == () and "damaged" in str(listing.skipped[0])


def test_a_loaded_profile_holds_the_boxes_that_are_no_tiles_the_current_reader_embedded(tmp_path, monkeypatch):
    """Each less its photo's mean; one another reader embedded is left out (its photo's other boxes,
    its centre, are not kept to embed again)."""
    import vision.reader

    store = ProfileStore(tmp_path)
    current = _no_tiles(1)
    store.save("set", _samples(4), reader="current", not_tiles=current)
    stored = store.save("set", (), reader="old", origin=REMOVAL, not_tiles=_no_tiles(1, seed=5))
    monkeypatch.setattr(vision.reader, "load_reader", lambda weights=None: object())
    monkeypatch.setattr(vision.reader, "reader_fingerprint", lambda reader: "current")
    profile = stored.tile_profile()
    expected = (current[0].embedding - current[0].photo_mean)[None]
    assert np.allclose(profile.not_tiles, expected / np.linalg.norm(expected), atol=1e-6)


def test_the_boxes_a_profile_holds_as_no_tile_can_be_forgotten_and_its_tiles_stay(tmp_path):
    store = ProfileStore(tmp_path)
    samples = _samples(3)
    store.save("set", samples, reader="r", not_tiles=_no_tiles(2))
    stored = store.forget_not_tiles("SET")
    loaded = store.load("set")
    assert stored.not_tiles == () == loaded.not_tiles and loaded.summary.not_tiles == 0
    assert [s.tile for s in loaded.samples] == [s.tile for s in samples] and loaded.created == stored.created
    with pytest.raises(ProfileError, match="no tile profile named 'other'"):
        store.forget_not_tiles("other")
