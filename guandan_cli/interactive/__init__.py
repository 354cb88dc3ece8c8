"""A person at the terminal: ``guandan play`` (the human seat's input source) and ``guandan watch``.

- :mod:`.answers` — a typed answer read against the legal actions (refusals name the rule);
- :mod:`.seat` — ``TerminalSeat``, the input source of the ``human`` seat, and its answer journal;
- :mod:`.play` — a person's game as an ordinary one-match run (``simulate``), and ``--resume``;
- :mod:`.watch` — the deals of a match (played now or from a log) as screens;
- :mod:`.terminal` — printing frames and keeping the pace (``--delay``, ``--step``, ``q``).

Rendering itself lives in :mod:`guandan_cli.view`, shared with ``guandan replay``.
"""
