"""The clients: ``Arbiter`` (blocking, ``sync``) and ``AsyncArbiter`` (coroutines, ``asynchronous``),
the base they share, and the process hooks (exit, fork). The composition root: the one part that
imports every other."""
