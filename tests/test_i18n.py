"""Every message in every language, read as players say it: catalogs, tiles, move steps, CLI, app."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from app.cli import main as cli_main
from solver import Position, describe_steps, solve
from solver.i18n import LANGUAGES, colour_name, tile_label, tr, tr_in
from solver.i18n_catalog import (
    TRANSLATED_LANGUAGES,
    check,
    check_translations,
    compiled_messages,
    extract_messages,
    mo_path,
    placeholders,
    po_path,
    scan_source,
)
from solver.tiles import parse_melds, parse_tiles

# --- the catalogs against the code ------------------------------------------------------------


def test_every_language_but_english_has_a_catalog() -> None:
    assert set(TRANSLATED_LANGUAGES) == set(LANGUAGES) - {"en"} == {"uk", "ru", "ro"}
    for lang in TRANSLATED_LANGUAGES:
        assert po_path(lang).is_file() and mo_path(lang).is_file()


def test_the_code_has_messages_to_translate() -> None:
    msgids = extract_messages()
    assert len(msgids) > 200
    # One from each kind of source: tr(...) in the solver, the app, the CLI and vision; an exception's
    # message shown through tr(str(err)); a NotationError reason and its default; a context message.
    for msgid in (
        "Add your {tiles} to {old}: {new}.", "Find my best move", "rummikub: error: {detail}",
        "Please check this tile: read as {tile}.", "choose a tile first", "number must be 1-13",
        "unknown tile", "several tiles\x04red",
    ):
        assert msgid in msgids


@pytest.mark.parametrize("lang", TRANSLATED_LANGUAGES)
def test_every_message_is_translated_with_the_same_placeholders(lang: str) -> None:
    problems = check_translations(extract_messages(), compiled_messages(lang), lang)
    assert problems == [], "\n".join(map(str, problems))


def test_compiled_catalogs_match_their_po_files() -> None:
    pytest.importorskip("babel")
    assert check() == []


def test_a_new_message_without_translation_is_reported() -> None:
    problems = check_translations(["A message nobody translated yet"], compiled_messages("uk"), "uk")
    assert [(p.lang, p.msgid, p.what) for p in problems] == [("uk", "A message nobody translated yet", "untranslated")]


def test_a_translation_that_changes_placeholders_is_reported() -> None:
    translations = {
        "Meld {n}": "Комбінація {m}",
        "cannot read tile {token!r} ({reason})": "фішка {token} ({reason})",
        "Round {n}: {outcome}": "Раунд {n}: {outcome}",
        "{a} and {a}": "{a}",
        "Broken {n}": "Зламано {n",
    }
    problems = check_translations(translations, translations, "uk")
    assert sorted(p.msgid for p in problems) == [
        "Broken {n}", "Meld {n}", "cannot read tile {token!r} ({reason})", "{a} and {a}",
    ]
    assert all("placeholders differ" in p.what for p in problems)


def test_placeholders_keep_conversions_and_repeats() -> None:
    assert placeholders("{token!r} ({reason}) {n:>3} {n}") == ("{n:>3}", "{n}", "{reason}", "{token!r}")
    assert placeholders("no fields") == ()
    with pytest.raises(ValueError):
        placeholders("{open")


# --- extraction -----------------------------------------------------------------------------


def test_scan_finds_literals_forwarded_to_tr_and_reports_what_it_cannot_read() -> None:
    source = textwrap.dedent('''
        class NotationError(ValueError):
            def __init__(self, token, reason="unknown tile"):
                super().__init__(reason)

        def f(lang, name, err):
            tr("Hello {name}", lang, name=name)
            tr_in("several tiles", "red", lang)
            ui.tr(message="Keyword message")
            raise NotationError("x9", "unknown colour")
            raise NotationError("x9", reason="number must be 1-13")
            raise EditError("choose a tile first")
            raise ScoringError(f"{name} went out twice")
            tr(name, lang)
            tr_in(name, "blue", lang)
            print("not a message")
            other("not a message either")
    ''')
    found, unreadable = scan_source(source, "pkg/mod.py")
    assert sorted(o.msgid for o in found) == sorted([
        "unknown tile", "Hello {name}", "several tiles\x04red", "Keyword message", "unknown colour",
        "number must be 1-13", "choose a tile first",
    ])
    assert all(o.path == "pkg/mod.py" and o.line > 0 for o in found)
    assert [u.why for u in unreadable] == [
        "built at run time, stays English", "message chosen at run time", "context chosen at run time",
    ]


def test_extract_and_compile_round_trip(tmp_path: Path) -> None:
    """New messages arrive untranslated, translations survive a re-extract, unused ones go."""
    pytest.importorskip("babel")
    from babel.messages.pofile import read_po, write_po

    from solver import i18n_catalog as cat

    root, locales = tmp_path / "repo", tmp_path / "locales"
    (root / "solver").mkdir(parents=True)
    for package in ("app", "vision"):
        (root / package).mkdir()
    module = root / "solver" / "m.py"
    module.write_text('tr("Old message")\ntr("Kept {n}", n=1)\n', encoding="utf-8")
    cat.extract(root, locales, ["uk"])
    po = read_po(po_path("uk", locales).open("rb"), locale="uk")
    assert {m.id: m.string for m in po if m.id} == {"Old message": "", "Kept {n}": ""}
    assert cat.check(root, locales, ["uk"]) == [f"[uk] no compiled catalog {mo_path('uk', locales)}"]

    po["Kept {n}"].string = "Залишено {n}"
    with po_path("uk", locales).open("wb") as handle:
        write_po(handle, po)
    cat.compile_catalogs(locales, ["uk"])
    assert compiled_messages("uk", locales) == {"Kept {n}": "Залишено {n}"}
    assert cat.check(root, locales, ["uk"]) == ["[uk] untranslated: 'Old message'"]

    module.write_text('tr("Kept {n}", n=1)\ntr("New message")\n', encoding="utf-8")
    cat.extract(root, locales, ["uk"])
    po = read_po(po_path("uk", locales).open("rb"), locale="uk")
    assert {m.id: m.string for m in po if m.id} == {"Kept {n}": "Залишено {n}", "New message": ""}
    assert cat.check(root, locales, ["uk"]) == ["[uk] untranslated: 'New message'"]

    po["Kept {n}"].string = "Лишилося {n}"  # a translation edited but not compiled
    with po_path("uk", locales).open("wb") as handle:
        write_po(handle, po)
    assert cat.check(root, locales, ["uk"])[-1] == "[uk] rummikub.mo is older than its .po: run compile"


# --- tiles and colours as players say them ----------------------------------------------------

TILES = "r7 k13 b1 o5 j"
LABELS = {
    "en": ["red 7", "black 13", "blue 1", "orange 5", "joker"],
    "uk": ["червона 7", "чорна 13", "синя 1", "помаранчева 5", "джокер"],
    "ru": ["красная 7", "чёрная 13", "синяя 1", "оранжевая 5", "джокер"],
    "ro": ["7 roșu", "13 negru", "1 albastru", "5 portocaliu", "joker"],
}
RUN_COLOURS = {  # black, blue, orange, red said of several tiles at once
    "en": ["black", "blue", "orange", "red"],
    "uk": ["чорні", "сині", "помаранчеві", "червоні"],
    "ru": ["чёрные", "синие", "оранжевые", "красные"],
    "ro": ["negru", "albastru", "portocaliu", "roșu"],
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_tile_labels(lang: str) -> None:
    assert [tile_label(t, lang) for t in parse_tiles(TILES)] == LABELS[lang]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_colours_of_several_tiles(lang: str) -> None:
    assert [colour_name(t, lang, plural=True) for t in parse_tiles("k1 b1 o1 r1")] == RUN_COLOURS[lang]


def test_an_unknown_language_falls_back_to_english() -> None:
    assert tile_label(parse_tiles("r7")[0], "xx") == "red 7"
    assert tr("Meld {n}", "de", n=2) == "Meld 2"
    assert tr_in("several tiles", "red", "xx") == "red"


def test_a_template_may_name_its_parameters_message_and_lang() -> None:
    """``tr``'s own arguments are positional-only: ``{message}`` used to raise "multiple values
    for argument 'message'" (the CLI's "table photo: {message}" on every doubtful reading)."""
    assert tr("table photo: {message}", "en", message="check it") == "table photo: check it"
    assert tr("table photo: {message}", "uk", message="x") == "Фото (стіл): x"
    assert tr("{lang}: {message}", lang="uk", message="m") == "uk: m"  # a parameter, not the language
    assert tr_in("several tiles", "red", "uk", message="unused") == tr_in("several tiles", "red", "uk")


# --- a move's steps in each language ---------------------------------------------------------


def steps(table: str, rack: str, lang: str) -> list[str]:
    return describe_steps(solve(Position(parse_melds(table), parse_tiles(rack))), lang)


ADD_STEP = {
    "en": ["Add your red 7 to [red 4 5 6]: [red 4 5 6 7]."],
    "uk": ["Додайте з підставки до [червоні 4 5 6]: червона 7. Вийде [червоні 4 5 6 7]."],
    "ru": ["Добавьте с подставки к [красные 4 5 6]: красная 7. Получится [красные 4 5 6 7]."],
    "ro": ["Adăugați de pe suport la [roșu 4 5 6]: 7 roșu. Rezultă [roșu 4 5 6 7]."],
}

JOKER_STEPS = {
    "en": [
        ("Replace the joker in [black 5, joker (blue 5), orange 5] with blue 5 from your rack: "
         "[black 5, blue 5, orange 5]. Play the freed joker as shown in the other steps."),
        ("Make [red 9, red 10, joker (red 11)] from joker from [black 5, joker (blue 5), orange 5]; "
         "red 9, red 10 from your rack."),
    ],
    "uk": [
        ("Замініть джокер у [чорна 5, джокер (синя 5), помаранчева 5], поклавши замість нього: "
         "синя 5 з вашої підставки. Вийде [чорна 5, синя 5, помаранчева 5]. "
         "Звільнений джокер зіграйте, як показано в інших кроках."),
        ("Складіть [червона 9, червона 10, джокер (червона 11)] з таких фішок: "
         "джокер з [чорна 5, джокер (синя 5), помаранчева 5]; червона 9, червона 10 з вашої підставки."),
    ],
    "ru": [
        ("Замените джокер в [чёрная 5, джокер (синяя 5), оранжевая 5], положив вместо него: "
         "синяя 5 из ваших фишек. Получится [чёрная 5, синяя 5, оранжевая 5]. "
         "Освободившийся джокер сыграйте, как показано в других шагах."),
        ("Составьте [красная 9, красная 10, джокер (красная 11)] из таких фишек: "
         "джокер из [чёрная 5, джокер (синяя 5), оранжевая 5]; красная 9, красная 10 из ваших фишек."),
    ],
    "ro": [
        ("Înlocuiți jokerul din [5 negru, joker (5 albastru), 5 portocaliu] cu: "
         "5 albastru din suportul dumneavoastră. Rezultă [5 negru, 5 albastru, 5 portocaliu]. "
         "Jucați jokerul eliberat așa cum arată ceilalți pași."),
        ("Formați [9 roșu, 10 roșu, joker (11 roșu)] din: "
         "joker din [5 negru, joker (5 albastru), 5 portocaliu]; 9 roșu, 10 roșu din suportul dumneavoastră."),
    ],
}

OTHER_STEPS = {  # laying down from the rack; no move at all
    "en": ["Lay down [red 1 2 3] from your rack.", "No legal move: draw a tile."],
    "uk": ["Викладіть [червоні 1 2 3] зі своєї підставки.", "Немає допустимого ходу: візьміть фішку."],
    "ru": ["Выложите [красные 1 2 3] со своей подставки.", "Нет допустимого хода: возьмите фишку."],
    "ro": ["Puneți pe masă [roșu 1 2 3] de pe suport.", "Nicio mutare permisă: trageți o piesă."],
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_adding_a_tile_reads_correctly(lang: str) -> None:
    assert steps("r4 r5 r6", "r7", lang) == ADD_STEP[lang]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_replacing_and_reusing_a_joker_reads_correctly(lang: str) -> None:
    assert steps("k5 j o5", "b5 r9 r10", lang) == JOKER_STEPS[lang]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_laying_down_and_drawing_read_correctly(lang: str) -> None:
    assert steps("", "r1 r2 r3", lang) + steps("r4 r5 r6", "k1", lang) == OTHER_STEPS[lang]


# --- the CLI ----------------------------------------------------------------------------------


def test_cli_speaks_ukrainian(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_main(["solve", "--lang", "uk", "--table", "r4 r5 r6 | k5 b5 o5", "--rack", "r7 k13"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[0] == "Викладіть фішки: червона 7 (кількість: 1, очки: 7)"
    assert "Кроки:\n  1. Додайте з підставки до [червоні 4 5 6]: червона 7." in out
    assert "  2. [чорна 5, синя 5, помаранчева 5]" in out
    assert "Комбінацій без змін: 1; переміщено фішок на столі: 0." in out


def test_cli_errors_and_score_sheet_in_the_chosen_language(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["solve", "--lang", "uk", "--rack", "x9"]) == 2
    assert capsys.readouterr().err.strip() == "rummikub: помилка: не вдається прочитати фішку 'x9' (невідомий колір)"
    assert cli_main(["score", "--lang", "ru", "--players", "Ann", "Bob", "--out", "Ann", "--rack", "Bob=r7 j"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Ann: все фишки выложены.")
    assert "Bob    красная 7, джокер" in out and "Победители: Ann" in out
    assert cli_main(["check", "--lang", "ro", "--table", "r1 r2"]) == 1
    assert "1. [1 roșu, 2 roșu]: INVALIDĂ - o combinație are nevoie de cel puțin 3 piese" in capsys.readouterr().out


# --- the app ----------------------------------------------------------------------------------


def test_switching_the_app_to_ukrainian(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.app_helpers import start_app

    monkeypatch.setenv("RUMMIKUB_DATA_DIR", str(tmp_path))
    at = start_app()
    assert at.sidebar.selectbox[0].label == "Language"
    at.sidebar.selectbox[0].select("uk").run()
    assert not at.exception, at.exception
    assert at.sidebar.selectbox[0].label == "Мова"
    assert at.sidebar.selectbox[1].label == "Правила"
    assert "Ваша підставка" in [s.value for s in at.subheader]


# --- library errors: one mechanism, every message extractable ---------------------------------


def _subclasses(cls: type) -> set[type]:
    found = set()
    for sub in cls.__subclasses__():
        found |= {sub} | _subclasses(sub)
    return found


def test_every_translatable_error_class_is_scanned_for_messages() -> None:
    import app.cli  # noqa: F401 - import every module that defines such an error
    import app.codec  # noqa: F401
    import app.storage  # noqa: F401
    import solver.scoring  # noqa: F401
    from solver.i18n import TranslatableError
    from solver.i18n_catalog import FORWARDERS

    names = {cls.__name__ for cls in _subclasses(TranslatableError)}
    assert {"ScoringError", "RulesError", "ImpossibleStateError", "StorageError", "NotFoundError", "CodecError"} <= names
    assert names <= {f.name for f in FORWARDERS}


def test_no_error_message_in_the_solver_or_app_is_built_at_run_time() -> None:
    from solver.i18n_catalog import scan_tree

    built = [u for u in scan_tree()[1] if u.why.startswith("built at run time") and not u.path.startswith("vision")]
    assert built == []


def test_error_text_translates_messages_nested_parameters_and_tiles() -> None:
    from solver.i18n import Message, TranslatableError, error_text
    from solver.rules import RulesError

    class Sample(TranslatableError, ValueError):
        pass

    cause = RulesError("jokers cannot be negative")
    err = Sample("invalid rules: {reason}", reason=cause)
    assert str(err) == "invalid rules: jokers cannot be negative"
    assert error_text(err, "uk") == tr("invalid rules: {reason}", "uk", reason=tr("jokers cannot be negative", "uk"))
    tiles = Message("{count}x {tile} (max {max})", {"count": 3, "tile": parse_tiles("r7")[0], "max": 2})
    assert tiles.text() == "3x red-7 (max 2)" and tiles.text("ru") == "3× красная 7 (макс. 2)"
    assert error_text(ValueError("from elsewhere"), "uk") == "from elsewhere"
