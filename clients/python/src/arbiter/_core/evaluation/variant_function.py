"""The order every evaluator decides in: holdouts, then the layer, then targeting, then the
experiment's own bucket (docs/wire-format.md#who-enters-an-experiment-holdouts-layers-targeting)."""

from typing import Any, Callable, Mapping, Optional, Sequence

from arbiter._core.evaluation.conditions import CompiledCondition
from arbiter._core.evaluation.field_table import FieldTable
from arbiter._core.evaluation.layers_holdouts import GENERAL, HELD_OUT, CompiledHoldout, InRange
from arbiter._core.evaluation.prepared_attributes import unwrap
from arbiter._core.events.targeting_tallies import Reached

#: ``(holdout, user, "holdout" or "general", attributes)``: queues the holdout's exposure when
#: due (with the call's attributes, which it sends only with ``exposure_attributes``).
ExposeHoldout = Callable[[CompiledHoldout, str, str, Any], None]

#: ``(user, attributes=None, expose_holdout=None)`` -> the user's variant key, or None.
VariantOf = Callable[..., Optional[str]]

#: ``(targeting, saved_groups, bucket, reached, reached_when_enrolled, field_table)`` -> a
#: targeted experiment's variant function written out as one function, or None: the engine's
#: (``arbiter._core.engine``), which answers as the closures below do.
GenerateTargeting = Callable[..., Optional[VariantOf]]


def make_variant(
    bucket: Callable[[str], Optional[str]],
    targeting: Optional[CompiledCondition] = None,
    saved_groups: Optional[Mapping[str, Any]] = None,
    holdouts: Sequence[CompiledHoldout] = (),
    in_layer: Optional[InRange] = None,
    reached: Optional[Reached] = None,
    reached_when_enrolled: bool = False,
    field_table: Optional[FieldTable] = None,
    generate: Optional[GenerateTargeting] = None,
) -> VariantOf:
    """The variant function of an experiment: holdouts, then the layer, then targeting, then
    ``bucket`` (user id -> variant key by the experiment's own ranges), the same order as the
    server's and every client's. ``in_layer`` is None outside a layer.

    With ``reached`` (targeting tallies on), a check that gets past the holdouts and the layer to
    the targeting tells ``reached`` when it is excluded or matched in no range; an enrolled one
    only with ``reached_when_enrolled``: otherwise the caller tallies it with a new exposure (an
    exposure already sent today has its tally beside it), so a steady-state call looks up
    nothing more.

    ``field_table``: the fields every targeting of the config reads, so that a
    ``PreparedAttributes`` is read by index (by the engine's ``generate``)."""
    ungated = _ungated(bucket, targeting, saved_groups, reached, reached_when_enrolled, field_table, generate)
    if not holdouts and in_layer is None:
        return ungated
    held_by = tuple(holdouts)
    # Without targeting the bucket is called directly: a frame less than through ``ungated``.
    untargeted = targeting is None

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
        if untargeted:
            return bucket(user)
        return ungated(user, attributes)

    return gated


def _ungated(
    bucket: Callable[[str], Optional[str]],
    targeting: Optional[CompiledCondition],
    saved_groups: Optional[Mapping[str, Any]],
    reached: Optional[Reached],
    reached_when_enrolled: bool,
    field_table: Optional[FieldTable] = None,
    generate: Optional[GenerateTargeting] = None,
) -> VariantOf:
    """Targeting, then the bucket: the variant function of an experiment outside holdouts and
    layers, and the last step of the others'."""
    if targeting is None:

        def plain(user: str, attributes: Any = None, expose_holdout: Any = None) -> Optional[str]:
            return bucket(user)

        return plain
    if not targeting.readable:
        return _no_one if reached is None else _no_one_tallied(reached)
    try:
        generated = (
            None
            if generate is None
            else generate(targeting, saved_groups, bucket, reached, reached_when_enrolled, field_table)
        )
    except Exception:
        generated = None  # the compiled condition answers the same, only slower
    if generated is not None:
        return generated
    matches = targeting.matches
    if reached is None:

        def targeted(user: str, attributes: Any = None, expose_holdout: Any = None) -> Optional[str]:
            attributes = unwrap(attributes)
            if not matches({} if attributes is None else attributes, saved_groups):
                return None
            return bucket(user)

        return targeted
    tally = reached

    def targeted_tallied(user: str, attributes: Any = None, expose_holdout: Any = None) -> Optional[str]:
        attributes = unwrap(attributes)
        if not matches({} if attributes is None else attributes, saved_groups):
            tally(user, False)
            return None
        variant = bucket(user)
        if variant is None or reached_when_enrolled:
            tally(user, True)
        return variant

    return targeted_tallied


def _no_one(user: str, attributes: Any = None, expose_holdout: Any = None) -> Optional[str]:
    """A targeting the evaluator cannot read lets no one in."""
    return None


def _no_one_tallied(reached: Reached) -> VariantOf:
    def no_one(user: str, attributes: Any = None, expose_holdout: Any = None) -> Optional[str]:
        reached(user, False)
        return None

    return no_one
