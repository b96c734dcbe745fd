"""C parts of arbiter-client, installed by its ``speedups`` extra: the exposure table that
``assign()`` checks on every exposed call. arbiter-client uses them when they import and its
pure-Python equivalents otherwise; nothing else imports this package."""

from ._exposure_table import API_VERSION, ExposureTable

__all__ = ["API_VERSION", "ExposureTable"]
