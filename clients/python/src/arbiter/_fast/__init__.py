"""The fast paths: code-generated conditions and the ``speedups`` extra's C parts, behind the one
seam of ``arbiter._core.engine``. ``choose_engine()`` is called once per client, at construction."""
