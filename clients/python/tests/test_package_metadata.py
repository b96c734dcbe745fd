"""The installed distribution says what users may do with it: the repository's Apache-2.0 licence,
as an SPDX expression (PEP 639), as the trove classifier older tools read, and as the licence text
itself in the wheel's ``.dist-info/licenses/``."""

import os
from importlib.metadata import distribution, metadata

import arbiter
from conftest import REPO_ROOT


def test_the_distribution_is_licensed_apache_2_0() -> None:
    meta = metadata("arbiter-client")
    assert meta["License-Expression"] == "Apache-2.0"
    assert "License :: OSI Approved :: Apache Software License" in meta.get_all("Classifier")
    assert meta["Version"] == arbiter.__version__


def test_the_distribution_carries_the_repository_licence_text() -> None:
    dist = distribution("arbiter-client")
    texts = [f for f in dist.files or [] if f.parts[-2:] == ("licenses", "LICENSE")]
    assert len(texts) == 1, dist.files
    assert dist.metadata.get_all("License-File") == ["LICENSE"]
    with open(os.path.join(REPO_ROOT, "LICENSE"), encoding="utf-8") as root:
        assert texts[0].read_text(encoding="utf-8") == root.read()


def test_the_plain_install_has_no_runtime_dependency_and_the_extras_add_theirs() -> None:
    requires = metadata("arbiter-client").get_all("Requires-Dist") or []
    assert [r for r in requires if "extra ==" not in r] == []
    by_extra = sorted((r.split("extra ==")[1].strip(" '\""), r.split(";")[0].strip()) for r in requires)
    assert by_extra == [
        ("langchain", "langchain-core>=0.3"),
        ("speedups", "arbiter-client-speedups==" + arbiter.__version__),
        ("speedups", "mmh3<6,>=5.0"),
    ]
    assert sorted(metadata("arbiter-client").get_all("Provides-Extra") or []) == ["langchain", "speedups"]


def test_the_speedups_package_is_released_with_the_client_at_its_version_and_licence() -> None:
    """The extra pins arbiter-client-speedups at the client's own version: the two are built
    from one repository and released together (clients/python-speedups)."""
    dist = distribution("arbiter-client-speedups")
    assert dist.version == arbiter.__version__
    texts = [f for f in dist.files or [] if f.parts[-2:] == ("licenses", "LICENSE")]
    assert len(texts) == 1, dist.files
    with open(os.path.join(REPO_ROOT, "LICENSE"), encoding="utf-8") as root:
        assert texts[0].read_text(encoding="utf-8") == root.read()
