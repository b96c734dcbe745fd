"""Config: the last config the API served, compiled for lookups on the hot path."""
