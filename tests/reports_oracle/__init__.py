"""The report functions as they were before reports became mergeable aggregates (test-only).

Each one reads a whole frame at once (copied unchanged from the reports before partial →
merge → finalise); ``tests/test_report_aggregates.py`` checks that ``analyze`` prints the
same tables as these, over runs split into parts in different ways and any number of workers.
"""
