"""Bucketing: MurmurHash3_x86_32 and the frozen bucketing version 1."""
