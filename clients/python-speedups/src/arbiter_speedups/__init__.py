"""C parts of arbiter-client, installed by its ``speedups`` extra: ``assign()`` and the exposure
table it checks. arbiter-client uses them when they import and its pure-Python equivalents
otherwise; nothing else imports this package."""

from ._speedups import API_VERSION, AssignEntry, Assigner, ExposureTable

__all__ = ["API_VERSION", "AssignEntry", "Assigner", "ExposureTable"]
