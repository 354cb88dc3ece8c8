"""`guandan plays`: list the legal plays of a hand (and the readings of a set of cards)."""

from __future__ import annotations

from typing import Annotated

import typer

from guandan_cli.cli.app import app


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
    from guandan_cli.engine import Combo, all_plays, format_cards, legal_plays, parse_cards, readings

    try:
        cards = parse_cards(hand)
        top_combo = Combo.from_text(top) if top else None
        if top_combo is not None and not readings(top_combo.cards, level):
            raise ValueError(f"--top {top!r} is no combination at level {level}")
        found = list(all_plays(cards, level, top_combo)) if every else legal_plays(cards, level, top_combo)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"hand: {format_cards(cards, symbols)}  (level {level.upper()}, {len(found)} plays)")
    for combo in found:
        typer.echo(combo.text(symbols))
