"""The log readers that replay logged deals through the engine, beside the format they read.

- :mod:`.verify` — ``guandan verify``: every deal line replayed and checked, with the
  manifest's counts and sha256s;
- :mod:`.replay` — ``guandan replay``: one logged deal found (``find_deal``,
  ``match_records``) and laid out as a person reads it.

A line becomes a value in ``guandan_cli.logs.records`` (``DealRecord``, ``MatchRecord``); a
manifest in ``guandan_cli.logs.manifest`` (``Manifest``). These modules sit above the logs
because they also use the runner's setup sources and backends, and the view.
"""
