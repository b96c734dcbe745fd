"""The OpenFeature provider of the Arbiter client (``arbiter-client``)."""

from arbiter_openfeature.provider import ArbiterProvider

__all__ = ["ArbiterProvider"]
