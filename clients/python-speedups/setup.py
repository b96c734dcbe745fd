# The one C extension of the package; everything else is in pyproject.toml.
from setuptools import Extension, setup

setup(ext_modules=[Extension("arbiter_speedups._exposure_table", ["src/arbiter_speedups/_exposure_table.c"])])
