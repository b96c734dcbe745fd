"""The installed distribution says what users may do with it: the repository's Apache-2.0 licence,
as an SPDX expression (PEP 639) and as the trove classifier older tools read."""

from importlib.metadata import metadata

import arbiter


def test_the_distribution_is_licensed_apache_2_0() -> None:
    meta = metadata("arbiter-client")
    assert meta["License-Expression"] == "Apache-2.0"
    assert "License :: OSI Approved :: Apache Software License" in meta.get_all("Classifier")
    assert meta["Version"] == arbiter.__version__
