"""`guandan plays`: list the legal plays of a hand (and the readings of a set of cards)."""

from __future__ import annotations

from typing import Annotated

import typer

from guandan_cli.cli.app import app
from guandan_cli.cli.errors import fail


@app.command()
def plays(
    hand: Annotated[str, typer.Argument(help="Cards, e.g. 'S3 H4 D4 C5 S5 H2'.")],
    level: Annotated[str, typer.Option("--level", "-l", help="The deal's level, 2..A.")] = "2",
    top: Annotated[
        str | None, typer.Option("--top", "-t", help="The play to beat, as 'type:key cards'.")
    ] = None,
    every: Annotated[
        bool, typer.Option("--all", help="Every card multiset, not one per declaration.")
    ] = False,
    symbols: Annotated[bool, typer.Option("--symbols", help="Show suit symbols.")] = False,
) -> None:
    """List what HAND can play at LEVEL (leading, or beating --top)."""
    from guandan_cli.engine import Combo, all_plays, format_cards, legal_plays, parse_cards
    from guandan_cli.engine.cards import RANKS
    from guandan_cli.engine.combos import check_declared

    token = level.strip().upper()
    if (token := "T" if token == "10" else token) not in tuple(RANKS):  # a rank, never SB or HR
        fail(f"--level {level!r}: a level is one of {' '.join(RANKS)} (10 for T also works)")
    level = token
    try:
        cards = parse_cards(hand)
    except ValueError as exc:
        fail(f"HAND {hand!r}: {exc}")
    if not cards:
        fail(f"HAND {hand!r}: no cards; give card tokens, e.g. 'S3 H4 D4'")
    try:
        top_combo = check_declared(Combo.from_text(top), level) if top else None
    except ValueError as exc:
        fail(f"--top: {exc}")
    found = list(all_plays(cards, level, top_combo)) if every else legal_plays(cards, level, top_combo)
    typer.echo(
        f"hand: {format_cards(cards, symbols)}  (level {level}, {len(found)} play{'' if len(found) == 1 else 's'})"
    )
    for combo in found:
        typer.echo(combo.text(symbols))
