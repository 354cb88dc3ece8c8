"""The `guandan` command line: thin Click commands over the Python API."""
