"""Transport: the one place that makes HTTP requests (urllib, or the host's ``http_client``),
its retry policy, and the two background parts that use it: the config poller and the event
pipeline (with the targeting tallies it sends after each drain). Imports only the core."""
