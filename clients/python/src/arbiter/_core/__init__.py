"""The core: config, bucketing, evaluation and events, complete in pure Python and importing no
other part of the package. ``engine`` is the seam the fast paths (``arbiter._fast``) plug into."""
