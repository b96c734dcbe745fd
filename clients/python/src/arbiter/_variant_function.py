"""The order every evaluator decides in: holdouts, then the layer, then targeting, then the
experiment's own bucket (docs/wire-format.md#who-enters-an-experiment-holdouts-layers-targeting)."""

from typing import Any, Callable, Mapping, Optional, Sequence

from ._condition_source import generated_targeting
from ._conditions import CompiledCondition
from ._layers_holdouts import GENERAL, HELD_OUT, CompiledHoldout, InRange

#: ``(holdout, user, "holdout" or "general", attributes)``: queues the holdout's exposure when
#: due (with the call's attributes, which it sends only with ``exposure_attributes``).
ExposeHoldout = Callable[[CompiledHoldout, str, str, Any], None]

#: ``(user, attributes=None, expose_holdout=None)`` -> the user's variant key, or None.
VariantOf = Callable[..., Optional[str]]


def make_variant(
    bucket: Callable[[str], Optional[str]],
    targeting: Optional[CompiledCondition] = None,
    saved_groups: Optional[Mapping[str, Any]] = None,
    holdouts: Sequence[CompiledHoldout] = (),
    in_layer: Optional[InRange] = None,
) -> VariantOf:
    """The variant function of an experiment: holdouts, then the layer, then targeting, then
    ``bucket`` (user id -> variant key by the experiment's own ranges), the same order as the
    server's and every client's. ``in_layer`` is None outside a layer."""
    if not holdouts and in_layer is None:
        if targeting is None:

            def plain(user: str, attributes: Any = None, expose_holdout: Any = None) -> Optional[str]:
                return bucket(user)

            return plain
        if not targeting.readable:

            def no_one(user: str, attributes: Any = None, expose_holdout: Any = None) -> Optional[str]:
                return None

            return no_one
        try:
            generated = generated_targeting(targeting.source, targeting.matches, saved_groups, bucket)
        except Exception:
            generated = None  # the compiled condition answers the same, only slower
        if generated is not None:
            return generated
        matches = targeting.matches

        def targeted(user: str, attributes: Any = None, expose_holdout: Any = None) -> Optional[str]:
            if not matches({} if attributes is None else attributes, saved_groups):
                return None
            return bucket(user)

        return targeted
    held_by = tuple(holdouts)
    matches_or_none = None if targeting is None else targeting.matches

    def gated(user: str, attributes: Any = None, expose_holdout: Optional[ExposeHoldout] = None) -> Optional[str]:
        for holdout in held_by:
            held = holdout.held(user) is not None
            # Every holdout reached is recorded, held out or not, so that its two groups are
            # counted at the same point and its own results compare like with like.
            if expose_holdout is not None:
                expose_holdout(holdout, user, HELD_OUT if held else GENERAL, attributes)
            if held:
                return None
        if in_layer is not None and in_layer(user) is None:
            return None
        if matches_or_none is not None and not matches_or_none({} if attributes is None else attributes, saved_groups):
            return None
        return bucket(user)

    return gated
