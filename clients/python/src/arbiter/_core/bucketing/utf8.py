"""UTF-8 bytes of a user id, the way every Arbiter client encodes it (docs/decisions/experiments.md#bucketing)."""


def encode_utf8(text: str) -> bytes:
    """UTF-8 of ``text``; never raises.

    A Python ``str`` may hold surrogate code points, which strict UTF-8 refuses. The frozen rule
    is JavaScript's TextEncoder on the UTF-16 form: a high surrogate followed by a low one is
    the astral character they spell, and any other surrogate becomes U+FFFD (EF BF BD). Going
    through UTF-16 with ``surrogatepass`` and back with ``replace`` does exactly that.
    """
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        utf16 = text.encode("utf-16-le", "surrogatepass")
        return utf16.decode("utf-16-le", "replace").encode("utf-8")


def utf16_length(text: str) -> int:
    """Length in UTF-16 code units: what the API's character limits count."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2
