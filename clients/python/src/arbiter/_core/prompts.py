"""Stored prompts by name (docs/prompts.md): ``client.prompts.get(name, user, default)`` resolves
from the polled config (docs/wire-format.md#prompts) and renders by one rule
(docs/wire-format.md#rendering), as the TypeScript and Java clients do (testdata/prompts.json)."""

import re
from typing import Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")

#: One message of a chat prompt: ``{"role": ..., "content": ...}``.
PromptMessage = Dict[str, str]


def render_prompt(template: str, variables: Optional[Mapping[str, Any]] = None) -> str:
    """Each ``{{name}}`` (spaces allowed inside the braces) whose name has a ``str`` value in
    ``variables`` becomes that value; every other placeholder stays as it is; nothing is escaped;
    one pass, so a value is never rendered again."""
    values = variables or {}

    def replace(match: "re.Match[str]") -> str:
        value = values.get(match.group(1))
        return value if isinstance(value, str) else match.group(0)

    return _PLACEHOLDER.sub(replace, template)


class ResolvedPrompt(NamedTuple):
    """``prompts.get``'s answer, rendered with the caller's variables."""

    name: str
    #: ``experiment``: the user's variant's version; ``label``: the label's; ``default``: the caller's.
    source: str
    #: The version served; None for the default.
    version: Optional[int]
    #: The covering experiment's name and the user's variant when ``source`` is ``experiment``.
    experiment: Optional[str]
    variant: Optional[str]
    #: The rendered text (None for a chat version) and messages (None for a text).
    text: Optional[str]
    messages: Optional[List[PromptMessage]]
    #: The version's declared variables and its model settings as written.
    variables: List[str]
    model_settings: Dict[str, Any]


class PromptIndex(NamedTuple):
    """A config's prompts by name, and for each the covering experiment: the first running one
    in config order with a variant referencing it, with each variant's version."""

    prompts: Dict[str, Dict[str, Any]]
    covering: Dict[str, Tuple[str, str, Dict[str, int]]]


def prompt_index_of(body: Mapping[str, Any]) -> PromptIndex:
    raw = body.get("prompts")
    prompts: Dict[str, Dict[str, Any]] = {}
    if isinstance(raw, dict):
        for name, p in raw.items():
            if isinstance(p, dict) and isinstance(p.get("labels"), dict) and isinstance(p.get("versions"), dict):
                prompts[name] = p
    covering: Dict[str, Tuple[str, str, Dict[str, int]]] = {}
    for e in body.get("experiments") or []:
        if (
            not isinstance(e, dict)
            or e.get("status", "running") != "running"
            or not isinstance(e.get("variants"), list)
        ):
            continue
        for v in e["variants"]:
            ref = v.get("prompt_ref") if isinstance(v, dict) else None
            if not isinstance(ref, dict) or not isinstance(ref.get("name"), str):
                continue
            version = ref.get("version")
            if not isinstance(version, int) or isinstance(version, bool):
                continue
            entry = covering.setdefault(ref["name"], (str(e.get("id")), str(e.get("name")), {}))
            if entry[0] == str(e.get("id")):
                entry[2][str(v.get("key"))] = version
    return PromptIndex(prompts, covering)


def _messages(value: Any, variables: Mapping[str, Any]) -> Optional[List[PromptMessage]]:
    if not isinstance(value, list):
        return None
    return [{"role": m["role"], "content": render_prompt(m["content"], variables)} for m in value]


def _served(
    name: str,
    body: Mapping[str, Any],
    version: int,
    variables: Mapping[str, Any],
    source: str,
    experiment: Optional[str],
    variant: Optional[str],
) -> ResolvedPrompt:
    text = body.get("text")
    settings = body.get("model_settings")
    return ResolvedPrompt(
        name,
        source,
        version,
        experiment,
        variant,
        render_prompt(text, variables) if isinstance(text, str) else None,
        _messages(body.get("messages"), variables),
        list(body.get("variables") or []),
        dict(settings) if isinstance(settings, dict) else {},
    )


def _default(name: str, value: Union[str, Sequence[PromptMessage]], variables: Mapping[str, Any]) -> ResolvedPrompt:
    text = render_prompt(value, variables) if isinstance(value, str) else None
    messages = None if isinstance(value, str) else _messages(list(value), variables)
    return ResolvedPrompt(name, "default", None, None, None, text, messages, [], {})


class Prompts:
    """``client.prompts``: stored prompts by name, from the polled config; never raises."""

    def __init__(
        self,
        index: Callable[[], Optional[PromptIndex]],
        assign: Callable[[str, str, Any], Optional[str]],
        warn_once: Callable[[str, str], None],
    ) -> None:
        self._index = index
        self._assign = assign
        self._warn_once = warn_once

    def get(
        self,
        name: str,
        user: str,
        default: Union[str, Sequence[PromptMessage]],
        label: str = "production",
        variables: Optional[Mapping[str, Any]] = None,
        attributes: Any = None,
    ) -> ResolvedPrompt:
        """The prompt ``name`` for ``user``: the user's variant's version when a running
        experiment covers it (queuing that experiment's exposure, as ``assign`` does), else the
        version under ``label``, else ``default``; rendered with ``variables``. From memory."""
        try:
            return self._resolve(name, user, default, label, variables or {}, attributes)
        except Exception as err:
            self._warn_once("prompts.get", "prompts.get failed, returning the default: %r" % (err,))
            try:
                return _default(str(name), default, {})
            except Exception:
                return _default(str(name), "", {})

    def _resolve(
        self, name: str, user: str, default: Any, label: str, variables: Mapping[str, Any], attributes: Any
    ) -> ResolvedPrompt:
        index = self._index()
        if index is None:
            return _default(name, default, variables)
        prompt = index.prompts.get(name)
        covering = index.covering.get(name)
        if covering is not None:
            variant = self._assign(covering[0], user, attributes)
            version = None if variant is None else covering[2].get(variant)
            body = None if version is None or prompt is None else prompt["versions"].get(str(version))
            if isinstance(body, dict) and version is not None:
                return _served(name, body, version, variables, "experiment", covering[1], variant)
        version = None if prompt is None else prompt["labels"].get(label)
        body = None if not isinstance(version, int) or prompt is None else prompt["versions"].get(str(version))
        if not isinstance(body, dict) or not isinstance(version, int):
            return _default(name, default, variables)
        return _served(name, body, version, variables, "label", None, None)
