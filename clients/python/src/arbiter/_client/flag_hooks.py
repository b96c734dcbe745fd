"""What the OpenFeature provider (``arbiter-openfeature``) reads of a client beyond ``assign``: an
experiment's id, state and variables, the config version, and each poll's outcome. Not public:
the provider is released with the client at its version."""

from typing import Any, Callable, Mapping, NamedTuple, Optional

from arbiter._core.config.config_store import CompiledExperiment, _not_started


class FlagExperiment(NamedTuple):
    """An experiment as the config has it (archived ones are not in the config)."""

    id: str
    name: str
    #: ``running``, ``draft`` or ``stopped``.
    status: str
    #: variant key -> the variant's wire object (``prompt``, ``variables``).
    variants: Mapping[str, Mapping[str, Any]]

    def variables(self, variant: str) -> Mapping[str, Any]:
        """The variables object of ``variant``; empty when it has none."""
        spec = self.variants.get(variant)
        found = None if spec is None else spec.get("variables")
        return found if isinstance(found, dict) else {}


class FlagHooks:
    """The flag view of one client (``Arbiter`` or ``AsyncArbiter``)."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._store = client._store
        self._poller = client._poller

    @property
    def loaded(self) -> bool:
        return bool(self._store.loaded)

    @property
    def version(self) -> Optional[int]:
        version: Optional[int] = self._store.version
        return version

    def wait_first_attempt(self, timeout: Optional[float]) -> None:
        """Returns once the first config load has been tried (or ``timeout`` seconds have passed)."""
        self._poller.first_attempt.wait(timeout)

    def close_client(self) -> None:
        """Closes the client, delivering what it queued (``Arbiter.close`` for either client)."""
        self._client._close_blocking(None)

    def warn_once(self, key: str, message: str) -> None:
        self._client._warn_once(key, message)

    def experiment(self, key: str) -> Optional[FlagExperiment]:
        entry: Optional[CompiledExperiment] = self._store.experiments.get(key)
        if entry is None:
            return None
        status = "running" if entry.live else "draft" if entry.variant is _not_started else "stopped"
        return FlagExperiment(entry.id, entry.name, status, entry.variants)

    def on_poll(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Calls ``listener`` with each poll's outcome (``changed``, ``unchanged``, ``failed``)
        from the poller's thread; returns the function that stops it."""
        self._poller.listeners.append(listener)

        def stop() -> None:
            if listener in self._poller.listeners:
                self._poller.listeners.remove(listener)

        return stop


def flag_hooks(client: Any) -> FlagHooks:
    """The flag hooks of an ``Arbiter``; a TypeError for anything else."""
    if not hasattr(client, "_store") or not hasattr(client, "_poller"):
        raise TypeError("ArbiterProvider: client must be an Arbiter from arbiter-client")
    return FlagHooks(client)
