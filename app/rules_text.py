"""Rule sets in words, for the app and the CLI: preset names, each setting's choices, a summary.

One place for these labels so that the sidebar, the score sheet, the suggestions and the
command line name a variant the same way in every language.
"""

from __future__ import annotations

from solver.i18n import DEFAULT_LANGUAGE, tr
from solver.rules import CUSTOM, STANDARD, PoolOutScoring, RuleSet, UnmeldedScoring, preset_for


def preset_label(name: str, lang: str = DEFAULT_LANGUAGE) -> str:
    """A rule preset's name as players read it (the key itself for an unknown one)."""
    labels = {
        "standard": tr("Standard", lang),
        "pressman-1998": tr("Pressman 1998 (American rules)", lang),
        "european": tr("European box rules", lang),
        "opening-50": tr("Initial meld 50", lang),
        "four-jokers": tr("Four jokers", lang),
        "sixteen-tiles": tr("Sixteen starting tiles", lang),
        "no-joker-opening": tr("No jokers in the initial meld", lang),
        "repeated-colours": tr("Repeated colours in groups", lang),
        "mso": tr("Mind Sports Olympiad (tournament)", lang),
        CUSTOM: tr("Custom", lang),
    }
    return labels.get(name, name)


def pool_label(variant: PoolOutScoring, lang: str = DEFAULT_LANGUAGE) -> str:
    """Who wins and who pays when the pool is exhausted and nobody can move."""
    labels = {
        PoolOutScoring.LOWEST_TOTAL_PAYS_DIFFERENCE: tr("lowest total wins, the others pay the difference", lang),
        PoolOutScoring.FEWEST_TILES: tr("fewest tiles wins, the others pay their rack", lang),
        PoolOutScoring.LOWEST_TOTAL_OWN_RACK: tr("lowest total wins, the others pay their rack", lang),
    }
    return labels[variant]


def unmelded_label(variant: UnmeldedScoring, lang: str = DEFAULT_LANGUAGE) -> str:
    """How a player who never made the initial meld is scored."""
    labels = {
        UnmeldedScoring.LIKE_OTHERS: tr("scored like the others", lang),
        UnmeldedScoring.PAYS_EACH_PLAYER: tr("pays their rack total to each other player", lang),
        UnmeldedScoring.FIXED_CHARGE: tr("pays 100, or 200 if they could have melded", lang),
    }
    return labels[variant]


def rules_name(rules: RuleSet, lang: str = DEFAULT_LANGUAGE) -> str:
    """The preset these rules match, or "Custom"."""
    return preset_label(preset_for(rules), lang)


def rules_summary(rules: RuleSet, lang: str = DEFAULT_LANGUAGE) -> str:
    """The rules in one line, shown beside every answer and score sheet: the name, the
    initial meld and the jokers, then every other setting that is not the standard one."""
    parts = [
        tr(
            "Rules: {name} · initial meld {threshold} · {jokers} jokers", lang,
            name=rules_name(rules, lang), threshold=rules.initial_meld_threshold, jokers=rules.jokers,
        )
    ]
    if rules.players:
        parts.append(tr("{count} players", lang, count=rules.players))
    if rules.starting_jokers:
        parts.append(tr("each player is dealt {count} joker(s)", lang, count=rules.starting_jokers))
    if rules.starting_tiles != STANDARD.starting_tiles:
        parts.append(tr("{count} starting tiles", lang, count=rules.starting_tiles))
    if not rules.jokers_in_initial_meld:
        parts.append(tr("no jokers in the initial meld", lang))
    if not rules.group_colours_distinct:
        parts.append(tr("repeated colours allowed in groups", lang))
    if rules.joker_penalty != STANDARD.joker_penalty:
        parts.append(tr("a joker left on a rack costs {points}", lang, points=rules.joker_penalty))
    if rules.pool_out_scoring is not STANDARD.pool_out_scoring:
        parts.append(tr("pool exhausted: {variant}", lang, variant=pool_label(rules.pool_out_scoring, lang)))
    if rules.unmelded_scoring is UnmeldedScoring.PAYS_EACH_PLAYER:
        parts.append(tr("a player who never melded pays their rack total to each other player", lang))
    if rules.unmelded_scoring is UnmeldedScoring.FIXED_CHARGE:
        parts.append(tr("a player who never melded pays 100, or 200 if they could have melded", lang))
    return " · ".join(parts)
