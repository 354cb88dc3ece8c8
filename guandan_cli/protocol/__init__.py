"""The NJUPT competition protocol: translation (``translate``), ``guandan serve`` (``server``)
and ``guandan connect`` (``client``). A layer above the engine and the runner."""
