"""The library runs on Python 3.8+ (checked statically: this suite's interpreter is newer),
type-checks in strict mode, and the library, its tests and its README's code are formatted and
linted by ruff (settings in pyproject.toml). Each check is a test, so that a failure shows in the
JUnit report and counts in the closing line of `npm test`."""

import os
import subprocess
import sys

PACKAGE = os.path.join(os.path.dirname(__file__), "..", "src", "arbiter")
PROJECT = os.path.join(os.path.dirname(__file__), "..")


def run(tool: str, *args: str) -> "subprocess.CompletedProcess[str]":
    """Runs a tool installed beside this interpreter (the project's .venv)."""
    command = os.path.join(os.path.dirname(sys.executable), tool)
    return subprocess.run([command, *args], cwd=PROJECT, capture_output=True, text=True)


def test_nothing_newer_than_python_3_8_is_used() -> None:
    result = run("vermin", "-t=3.8-", "--no-tips", "--violations", "--eval-annotations", PACKAGE)
    assert result.returncode == 0, result.stdout + result.stderr


def test_vermin_would_catch_a_newer_feature(tmp_path: "os.PathLike[str]") -> None:
    """The check above can fail: a 3.10 match statement is reported."""
    sample = os.path.join(str(tmp_path), "newer.py")
    with open(sample, "w") as f:
        f.write("def f(x):\n    match x:\n        case 1:\n            return 1\n")
    assert run("vermin", "-t=3.8-", "--no-tips", "--violations", sample).returncode != 0


def test_mypy_strict_passes() -> None:
    result = run("mypy", "--strict", "src/arbiter")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_leaves_everything_unchanged() -> None:
    result = run("ruff", "format", "--check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_lint_passes() -> None:
    result = run("ruff", "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_would_catch_a_lint_and_a_format_problem(tmp_path: "os.PathLike[str]") -> None:
    """The checks above can fail: an unused import and a badly spaced line are reported."""
    sample = os.path.join(str(tmp_path), "sloppy.py")
    with open(sample, "w") as f:
        f.write("import os\nx=[1,2]\n")
    settings = os.path.join(PROJECT, "pyproject.toml")
    assert run("ruff", "check", "--no-cache", "--config", settings, sample).returncode != 0
    assert run("ruff", "format", "--check", "--no-cache", "--config", settings, sample).returncode != 0
