"""Events: validation against the wire limits, the bounded queue, exposure de-duplication,
targeting tallies and the offline store."""
