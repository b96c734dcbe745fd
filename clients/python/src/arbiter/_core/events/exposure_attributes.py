"""With ``exposure_attributes=True``, an exposure carries the attributes its call passed as
``metadata.attributes`` (docs/wire-format.md#exposure-attributes).

Attributes that are not JSON (NaN or infinity, a set, an object, a non-string key, a cycle) or
that would break the free-form JSON limit of ``metadata`` (32 levels with ``metadata`` itself,
65,536 bytes as compact UTF-8 JSON, no NUL or unpaired surrogate) are left out, and the exposure
is sent without them: the server never refuses it for them, and the caller never sees an error.
"""

from typing import Any, Dict, Mapping, Optional, Tuple, Union

from arbiter._core.events.event_validation import free_form_problem

#: ``({"attributes": ...}, None)`` to send, or ``(None, why)`` when they are left out.
ExposureMetadata = Tuple[Optional[Dict[str, Any]], Optional[str]]


def exposure_metadata(attributes: Union[Mapping[str, Any], Any]) -> ExposureMetadata:
    """The ``metadata`` of an exposure whose call passed ``attributes``, or why there is none."""
    if not isinstance(attributes, Mapping):
        return None, "they are not a mapping"
    try:
        # A mapping that is not a dict (MappingProxyType…) is copied, as json writes only dicts.
        metadata = {"attributes": attributes if isinstance(attributes, dict) else dict(attributes)}
        if any(not isinstance(key, str) for key in metadata["attributes"]):
            return None, "a key is not a string"
        problem = free_form_problem(metadata)
    except Exception as err:  # a mapping whose iteration raises
        return None, "they cannot be read (%r)" % (err,)
    if problem is not None:
        return None, problem
    return metadata, None
