"""The constructor's options as 0.1.0 took them, accepted for one more release (CHANGELOG.md).

0.1.0 took ``base_url`` and ``experiments`` positionally and its durations in milliseconds under
``…_ms`` names. Each old form still works and warns with a DeprecationWarning pointing at the
caller's line; the signature (and so ``help()``, IDEs and type checkers) shows only the new
options. The release after the one that deprecates them removes this module and its decorator.
"""

import functools
import warnings
from typing import Any, Callable, Dict, Optional, TypeVar

#: What followed ``api_key`` positionally in 0.1, in order.
POSITIONAL = ("base_url", "experiments")

#: 0.1's millisecond options and the option in seconds that replaces each.
MILLISECOND_OPTIONS: Dict[str, str] = {
    "poll_interval_ms": "poll_interval",
    "flush_interval_ms": "flush_interval",
    "retry_base_delay_ms": "retry_base_delay",
    "retry_max_delay_ms": "retry_max_delay",
    "retry_after_cap_ms": "retry_after_cap",
    "request_timeout_ms": "request_timeout",
}

_REMOVAL = "the next minor release of arbiter-client removes it"

Init = TypeVar("Init", bound=Callable[..., None])


def accepts_deprecated_options(init: Init) -> Init:
    """Wraps ``Arbiter.__init__``: old forms become new keywords before it runs."""

    @functools.wraps(init)
    def wrapper(self: Any, api_key: Optional[str] = None, *positional: Any, **options: Any) -> None:
        if len(positional) > len(POSITIONAL):
            raise TypeError(
                "Arbiter() takes at most 3 positional arguments (%d given); pass options as keywords"
                % (len(positional) + 1)
            )
        for name, value in zip(POSITIONAL, positional):
            if name in options:
                raise TypeError("Arbiter() got multiple values for argument %r" % name)
            warnings.warn(
                "Arbiter(): passing %s positionally is deprecated: pass %s=...; %s." % (name, name, _REMOVAL),
                DeprecationWarning,
                stacklevel=2,
            )
            options[name] = value
        for old, new in MILLISECOND_OPTIONS.items():
            if old not in options:
                continue
            if new in options:
                raise TypeError("Arbiter() got both %s and %s; pass %s (seconds) only" % (old, new, new))
            warnings.warn(
                "Arbiter(%s=...) is deprecated: pass %s=... in seconds; %s." % (old, new, _REMOVAL),
                DeprecationWarning,
                stacklevel=2,
            )
            options[new] = options.pop(old) / 1000
        init(self, api_key, **options)

    return wrapper  # type: ignore[return-value]
