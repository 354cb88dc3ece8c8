"""The `guandan` command line: thin Typer commands over the Python API."""
