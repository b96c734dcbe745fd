# The one C extension of the package; everything else is in pyproject.toml.
from setuptools import Extension, setup

SOURCES = ["module.c", "exposure_table.c", "assign.c"]

setup(
    ext_modules=[
        Extension(
            "arbiter_speedups._speedups",
            ["src/arbiter_speedups/" + name for name in SOURCES],
            depends=["src/arbiter_speedups/" + name for name in ("compat.h", "exposure_table.h", "murmur3.h", "assign.h")],
        )
    ]
)
