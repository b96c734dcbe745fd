"""The defaults equal the ones every client library shares (testdata/client-defaults.json)."""

import inspect
import json
import os
import re
from typing import Any, Dict, Tuple

from arbiter import Arbiter
from arbiter._core import constants as C
from conftest import REPO_ROOT

with open(os.path.join(REPO_ROOT, "testdata", "client-defaults.json"), encoding="utf-8") as f:
    SHARED: Dict[str, Any] = json.load(f)

with open(os.path.join(REPO_ROOT, "clients", "python", "README.md"), encoding="utf-8") as f:
    README = f.read()


def snake(name: str) -> str:
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def test_constants_carry_the_shared_names_and_values() -> None:
    for name, value in SHARED["constants"].items():
        assert getattr(C, name) == value, name
        assert type(getattr(C, name)) is type(value), name


def python_option(option: str) -> Tuple[str, float]:
    """The Python name of a shared option, and the factor from the shared file's unit to Python's:
    the file counts durations in milliseconds (``pollIntervalMs``), Python in seconds
    (``poll_interval``), as its ``timeout`` arguments do."""
    name = snake(option)
    return (name[: -len("_ms")], 1 / 1000) if name.endswith("_ms") else (name, 1)


def test_every_shared_option_is_a_keyword_only_option_of_arbiter_defaulting_to_its_constant() -> None:
    parameters = inspect.signature(Arbiter.__init__).parameters
    for option, constant in SHARED["options"].items():
        name, factor = python_option(option)
        assert parameters[name].default == SHARED["constants"][constant] * factor, option
        assert parameters[name].kind is inspect.Parameter.KEYWORD_ONLY, option
    for option in SHARED["optionsWithoutConstant"]:
        name, _ = python_option(option)
        assert name in parameters, option
        assert name == "api_key" or parameters[name].kind is inspect.Parameter.KEYWORD_ONLY, option
    durations = [python_option(o)[0] for o in SHARED["options"] if o.endswith("Ms")]
    assert durations == [
        "poll_interval",
        "flush_interval",
        "retry_base_delay",
        "retry_max_delay",
        "retry_after_cap",
        "request_timeout",
    ]
    assert all(isinstance(parameters[d].default, float) for d in durations)


def test_every_switch_defaults_as_the_shared_file_says_in_code_and_readme() -> None:
    parameters = inspect.signature(Arbiter.__init__).parameters
    for option, value in SHARED["switches"].items():
        name, _ = python_option(option)
        assert parameters[name].default is value, option
        assert "| `%s` | `%s` |" % (name, value) in README, option


def test_every_following_switch_defaults_to_the_value_its_switch_was_given_in_code_and_readme() -> None:
    """None in the signature: the client reads it as the other switch's value (the behaviour
    tests check it does, tests/test_targeting_tallies.py)."""
    parameters = inspect.signature(Arbiter.__init__).parameters
    assert SHARED["switchesFollowing"] != {}
    for option, other in SHARED["switchesFollowing"].items():
        name, _ = python_option(option)
        leader, _ = python_option(other)
        assert parameters[name].default is None, option
        assert parameters[leader].default is SHARED["switches"][other], option
        assert "| `%s` | same as `%s` |" % (name, leader) in README, option


def test_the_readme_lists_every_option_and_every_constant_with_its_value() -> None:
    parameters = [p for p in inspect.signature(Arbiter.__init__).parameters if p != "self"]
    for name in parameters:
        assert "| `%s` |" % name in README, name
    public = {k: v for k, v in vars(C).items() if k.isupper()}
    rows = dict(re.findall(r"^\| `([A-Z0-9_]+)` \| `([^`]*)` \|$", README, re.M))
    assert rows == {k: str(v) for k, v in public.items()}


def test_spec_section_8_values() -> None:
    assert C.CONFIG_POLL_INTERVAL_MS == 60_000
    assert C.OFFLINE_REPLAY_WINDOW_MS == 24 * 3_600_000
    assert 2 <= C.MAX_ATTEMPTS <= 3
