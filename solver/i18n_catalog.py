"""Keep the translation catalogs in step with the code: extract, compile, check.

Run as ``python -m solver.i18n_catalog extract|compile|check``:

* ``extract`` finds every literal message the code translates and merges it into
  ``solver/locales/rummikub.pot`` and each language's ``.po`` (new messages arrive
  untranslated, translations of messages the code no longer uses are dropped);
* ``compile`` writes each ``.po`` as the ``.mo`` that :mod:`solver.i18n` loads at run time;
* ``check`` exits with status 1 when a message is missing or untranslated in a language,
  when a translation's ``{placeholders}`` differ from the English, or when a ``.mo`` is stale.

A message is translated when it is the literal first argument of ``tr(...)``, or the literal
message of an exception whose text the CLI and app pass through ``tr`` (see :data:`FORWARDERS`).
Babel is needed by this tool only; the app reads the compiled ``.mo`` with the stdlib.
"""

from __future__ import annotations

import argparse
import ast
import gettext
import io
import string
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .i18n import DEFAULT_LANGUAGE, DOMAIN, LANGUAGES, LOCALE_DIR

REPO_ROOT = Path(__file__).resolve().parents[1]
SOURCE_PACKAGES = ("solver", "app", "vision")
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
TRANSLATED_LANGUAGES = tuple(lang for lang in LANGUAGES if lang != DEFAULT_LANGUAGE)


@dataclass(frozen=True)
class Forwarder:
    """A callable whose argument ends up in ``tr``: its literal there is a message too.
    ``context_position`` is where a ``tr_in``-style call takes its gettext context."""

    name: str
    position: int
    keyword: str
    context_position: int | None = None


#: ``tr`` itself, and the exceptions whose message the CLI and app show through ``tr``
#: (``tr(err.reason, lang)``, ``tr(str(err), lang)``, ``PhotoError(str(image_error))``).
FORWARDERS = (
    Forwarder("tr", 0, "message"),
    Forwarder("tr_in", 1, "message", context_position=0),
    Forwarder("NotationError", 1, "reason"),
    Forwarder("EditError", 0, "message"),
    Forwarder("PhotoError", 0, "message"),
    Forwarder("ImageError", 0, "message"),
    Forwarder("FileTooLargeError", 0, "message"),
    Forwarder("Message", 0, "template"),
    # Every subclass of solver.i18n.TranslatableError (tests/test_i18n.py checks the list).
    Forwarder("ScoringError", 0, "message"),
    Forwarder("RulesError", 0, "message"),
    Forwarder("ImpossibleStateError", 0, "message"),
    Forwarder("StorageError", 0, "message"),
    Forwarder("NotFoundError", 0, "message"),
    Forwarder("CodecError", 0, "message"),
    Forwarder("ModelFileError", 0, "message"),
    Forwarder("ClockError", 0, "message"),
    Forwarder("TurnCheckError", 0, "message"),
    Forwarder("CertificateError", 0, "message"),
    Forwarder("CalibrationError", 0, "message"),
    Forwarder("ProfileError", 0, "message"),
)


#: How gettext keys a message with a context: ``context + CONTEXT_SEPARATOR + msgid``.
CONTEXT_SEPARATOR = "\x04"


@dataclass(frozen=True)
class Occurrence:
    """One use of a message; ``msgid`` is the catalog key (``context\\x04message`` in a context)."""

    msgid: str
    path: str
    line: int


def split_key(key: str) -> tuple[str | None, str]:
    """(context, message) of a catalog key."""
    context, _, message = key.rpartition(CONTEXT_SEPARATOR)
    return (context if _ else None), message


#: Messages that reach ``tr`` through a variable, which the scan cannot follow: (path, msgid).
#: None now: write whole sentences instead (a ``{photo} photo`` built from ``tr(name)`` was one).
RUNTIME_MESSAGES: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Untranslatable:
    """A message the scan cannot read: an f-string (stays English) or a variable (its values
    must be literal messages elsewhere, or listed in :data:`RUNTIME_MESSAGES`)."""

    call: str
    path: str
    line: int
    why: str


@dataclass(frozen=True)
class Problem:
    lang: str
    msgid: str
    what: str

    def __str__(self) -> str:
        return f"[{self.lang}] {self.what}: {self.msgid!r}"


# --- extraction ---------------------------------------------------------------------------------


def _callee(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _message_argument(call: ast.Call, forwarder: Forwarder) -> ast.expr | None:
    if len(call.args) > forwarder.position and not any(isinstance(a, ast.Starred) for a in call.args):
        return call.args[forwarder.position]
    for keyword in call.keywords:
        if keyword.arg == forwarder.keyword:
            return keyword.value
    return None


def _default_messages(cls: ast.ClassDef, forwarder: Forwarder) -> Iterator[ast.expr]:
    """The literal default of a forwarding exception's message parameter."""
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            params = node.args.posonlyargs + node.args.args
            defaults = dict(zip((p.arg for p in params[len(params) - len(node.args.defaults):]), node.args.defaults))
            default = defaults.get(forwarder.keyword)
            if default is not None:
                yield default


def _context_prefix(call: ast.Call, forwarder: Forwarder) -> str | None:
    """``context + separator`` for a call with a literal context, "" without one, None if not literal."""
    if forwarder.context_position is None:
        return ""
    if len(call.args) > forwarder.context_position:
        context = call.args[forwarder.context_position]
        if isinstance(context, ast.Constant) and isinstance(context.value, str):
            return context.value + CONTEXT_SEPARATOR
    return None


def scan_source(source: str, path: str) -> tuple[list[Occurrence], list[Untranslatable]]:
    """Messages in one module's source (pure: no file access)."""
    by_name = {f.name: f for f in FORWARDERS}
    found: list[Occurrence] = []
    dynamic: list[Untranslatable] = []
    for node in ast.walk(ast.parse(source, filename=path)):
        if isinstance(node, ast.ClassDef) and node.name in by_name:
            arguments = list(_default_messages(node, by_name[node.name]))
            prefix, forwarder = "", by_name[node.name]
        elif isinstance(node, ast.Call) and _callee(node) in by_name:
            forwarder = by_name[_callee(node)]  # type: ignore[index]
            argument = _message_argument(node, forwarder)
            arguments = [argument] if argument is not None else []
            prefix = _context_prefix(node, forwarder)
            if prefix is None:
                dynamic.append(Untranslatable(ast.unparse(node)[:120], path, node.lineno, "context chosen at run time"))
                continue
        else:
            continue
        for argument in arguments:
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                found.append(Occurrence(prefix + argument.value, path, argument.lineno))
            elif isinstance(argument, ast.JoinedStr):
                dynamic.append(Untranslatable(ast.unparse(node)[:120], path, node.lineno, "built at run time, stays English"))
            elif forwarder.context_position is not None or forwarder.name == "tr":
                dynamic.append(Untranslatable(ast.unparse(node)[:120], path, node.lineno, "message chosen at run time"))
    return found, dynamic


def source_files(root: Path = REPO_ROOT, packages: Sequence[str] = SOURCE_PACKAGES) -> list[Path]:
    return sorted(p for package in packages for p in (root / package).rglob("*.py") if "__pycache__" not in p.parts)


def scan_tree(root: Path = REPO_ROOT) -> tuple[dict[str, list[Occurrence]], list[Untranslatable]]:
    """Every message of the code, with where it occurs, and the messages built at run time."""
    messages: dict[str, list[Occurrence]] = {}
    dynamic: list[Untranslatable] = []
    for path in source_files(root):
        found, built = scan_source(path.read_text(encoding="utf-8"), str(path.relative_to(root)))
        for occurrence in found:
            messages.setdefault(occurrence.msgid, []).append(occurrence)
        dynamic += built
    for path, msgid in RUNTIME_MESSAGES:
        if (root / path).is_file():
            messages.setdefault(msgid, []).append(Occurrence(msgid, path, 0))
    return dict(sorted(messages.items())), dynamic


def extract_messages(root: Path = REPO_ROOT) -> tuple[str, ...]:
    """The message ids the code translates, sorted."""
    return tuple(scan_tree(root)[0])


# --- placeholders -------------------------------------------------------------------------------


def placeholders(text: str) -> tuple[str, ...]:
    """The ``{name!conv:spec}`` fields of a format string, sorted (a bad string raises ValueError)."""
    fields = []
    for _, name, spec, conversion in string.Formatter().parse(text):
        if name is not None:
            fields.append("{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}")
    return tuple(sorted(fields))


# --- catalogs -----------------------------------------------------------------------------------


def po_path(lang: str, locale_dir: Path = LOCALE_DIR) -> Path:
    return locale_dir / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(lang: str, locale_dir: Path = LOCALE_DIR) -> Path:
    return po_path(lang, locale_dir).with_suffix(".mo")


HEADER = (
    "# Messages of the Rummikub assistant ({what}).\n"
    "# Refresh with `python -m solver.i18n_catalog extract`; after translating, run `compile`.\n#"
)


def _new_catalog(lang: str | None = None):  # -> babel Catalog
    from babel.messages.catalog import Catalog

    what = f"{lang} translation" if lang else "English template"
    return Catalog(
        locale=lang, domain=DOMAIN, project="rummikub-assistant", version="0.1.0",
        header_comment=HEADER.format(what=what), fuzzy=False,
    )


def _template(messages: Mapping[str, list[Occurrence]]):  # -> babel Catalog
    catalog = _new_catalog()
    for key, occurrences in messages.items():
        context, msgid = split_key(key)
        flags = ("python-brace-format",) if placeholders(msgid) else ()
        catalog.add(msgid, locations=[(o.path, o.line) for o in occurrences], flags=flags, context=context)
    return catalog


def _entries(catalog) -> list[tuple[str | None, str, list[str]]]:
    """What the template says of each message (files only: line numbers are not written)."""
    return [(m.context, m.id, sorted({path for path, _ in m.locations})) for m in catalog if m.id]


def _read_po(path: Path, lang: str | None):
    from babel.messages.pofile import read_po

    with path.open("rb") as handle:
        return read_po(handle, locale=lang, domain=DOMAIN)


def _write(path: Path, catalog, writer, **options) -> None:
    buffer = io.BytesIO()
    writer(buffer, catalog, **options)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_bytes() != buffer.getvalue():
        path.write_bytes(buffer.getvalue())


def extract(root: Path = REPO_ROOT, locale_dir: Path = LOCALE_DIR, languages: Iterable[str] = TRANSLATED_LANGUAGES) -> None:
    """Write the template and bring every language's ``.po`` up to date with the code."""
    from babel.messages.pofile import write_po

    template = _template(scan_tree(root)[0])
    pot = locale_dir / f"{DOMAIN}.pot"
    po_options = {"width": 100, "omit_header": False, "ignore_obsolete": True, "include_lineno": False}
    if not pot.exists() or _entries(_read_po(pot, None)) != _entries(template):
        _write(pot, template, write_po, **po_options)  # a new date only when the messages changed
    for lang in languages:
        path = po_path(lang, locale_dir)
        catalog = _read_po(path, lang) if path.exists() else _new_catalog(lang)
        catalog.update(template, no_fuzzy_matching=True, update_creation_date=False)
        _write(path, catalog, write_po, **po_options)


def compile_catalogs(locale_dir: Path = LOCALE_DIR, languages: Iterable[str] = TRANSLATED_LANGUAGES) -> None:
    """Write each language's ``.mo`` from its ``.po`` (fuzzy translations left out)."""
    from babel.messages.mofile import write_mo

    for lang in languages:
        _write(mo_path(lang, locale_dir), _read_po(po_path(lang, locale_dir), lang), write_mo)


def compiled_messages(lang: str, locale_dir: Path = LOCALE_DIR) -> dict[str, str]:
    """The shipped ``.mo`` of a language as read at run time (stdlib gettext)."""
    with mo_path(lang, locale_dir).open("rb") as handle:
        catalog = gettext.GNUTranslations(handle)
    return {k: v for k, v in catalog._catalog.items() if isinstance(k, str) and k}


def check_translations(msgids: Iterable[str], translations: Mapping[str, str], lang: str) -> list[Problem]:
    """Missing, empty or placeholder-changing translations of the catalog keys ``msgids`` (pure)."""
    problems = []
    for key in msgids:
        text = translations.get(key, "")
        if not text.strip():
            problems.append(Problem(lang, key, "untranslated"))
            continue
        try:
            same = placeholders(text) == placeholders(split_key(key)[1])
        except ValueError:
            same = False
        if not same:
            problems.append(Problem(lang, key, f"placeholders differ in {text!r}"))
    return problems


def check(root: Path = REPO_ROOT, locale_dir: Path = LOCALE_DIR, languages: Iterable[str] = TRANSLATED_LANGUAGES) -> list[str]:
    """Everything that keeps a language from showing every message of the code correctly."""
    from babel.messages.mofile import write_mo

    msgids = extract_messages(root)
    problems: list[str] = []
    for lang in languages:
        if not mo_path(lang, locale_dir).exists():
            problems.append(f"[{lang}] no compiled catalog {mo_path(lang, locale_dir)}")
            continue
        problems += [str(p) for p in check_translations(msgids, compiled_messages(lang, locale_dir), lang)]
        fresh = io.BytesIO()
        write_mo(fresh, _read_po(po_path(lang, locale_dir), lang))
        if fresh.getvalue() != mo_path(lang, locale_dir).read_bytes():
            problems.append(f"[{lang}] {mo_path(lang, locale_dir).name} is older than its .po: run compile")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solver.i18n_catalog", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("extract", "compile", "check"))
    args = parser.parse_args(argv)
    if args.command == "extract":
        extract()
        messages, dynamic = scan_tree()
        print(f"{len(messages)} messages -> {TEMPLATE.relative_to(REPO_ROOT)} and {', '.join(TRANSLATED_LANGUAGES)}")
        for item in dynamic:
            print(f"{item.why}: {item.path}:{item.line}: {item.call}")
        return 0
    if args.command == "compile":
        compile_catalogs()
        return 0
    problems = check()
    for problem in problems:
        print(problem)
    print(f"{len(extract_messages())} messages; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
