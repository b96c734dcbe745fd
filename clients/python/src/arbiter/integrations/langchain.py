"""A LangChain callback handler that records each LLM or chat-model run as ``wrap`` records a call.

>>> handler = ArbiterCallbackHandler(arbiter, "support-prompt")
>>> with arbiter.as_user(user.id):
...     answer = chain.invoke({"question": q}, config={"callbacks": [handler]})

One handler serves sync and async chains: its callbacks only read the run and queue events,
never wait, so it runs inline (``run_inline``) in both. An ``AsyncCallbackHandler`` would make
every sync chain start an event loop per callback, and a sync handler that is not inline would
be moved to a worker thread in async chains, which would measure the thread's delay.
"""

import threading
import time
from typing import Any, Dict, List, Optional, Sequence, Union
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGenerationChunk, GenerationChunk, LLMResult

from arbiter.integrations._evaluation_scope import current_evaluation
from arbiter.integrations._model_call import FinishModelCall, ModelRunStarter, describe_error
from arbiter.integrations._model_call_measure import (
    Measure,
    append_response,
    field,
    first,
    set_model,
    set_prompt,
    set_response,
    set_tokens,
    text_of,
)
from arbiter.integrations._user_context import current_user

__all__ = ["ArbiterCallbackHandler"]

#: LangChain's message types as the provider protocols name the roles (``wrap`` records those).
_ROLES = {"human": "user", "ai": "assistant"}


class _Run:
    """One model call between its start and its end or error callback."""

    __slots__ = ("finish", "started", "measure")

    def __init__(self, finish: FinishModelCall, measure: Measure) -> None:
        self.finish = finish
        self.started = time.perf_counter()
        self.measure = measure

    def elapsed_ms(self) -> float:
        return max(0.0, round((time.perf_counter() - self.started) * 1000, 3))


class ArbiterCallbackHandler(BaseCallbackHandler):
    """Each LLM or chat-model run of a chain or agent this handler is given to (in
    ``config={"callbacks": [...]}`` or a model's ``callbacks``) queues an ``exposure`` (once per
    user and experiment, as ``assign`` does) and, when it ends, a ``model_call``: latency, input
    and output tokens, model, error, prompt and response text (unless the client's
    ``record_model_text`` is off) and, for a streamed run, ``metadata.time_to_first_token_ms``.

    The user is ``user`` when given, else the one of the enclosing ``as_user``; runs without
    either, and of users not enrolled, are not recorded. Concurrent runs are kept apart by their
    run ids. Never raises into the chain."""

    run_inline = True
    raise_error = False

    # Chains, tools, retrievers and agents are not model calls: LangChain skips these callbacks.
    # Plain class attributes override the base class's read-only properties of the same names.
    ignore_chain = True
    ignore_agent = True
    ignore_retriever = True
    ignore_retry = True
    ignore_custom_event = True

    def __init__(self, client: ModelRunStarter, experiment: str, *, user: Optional[str] = None) -> None:
        super().__init__()
        self._client = client
        self._experiment = experiment
        self._user = user
        self._runs: Dict[UUID, _Run] = {}
        self._lock = threading.Lock()

    def on_chat_model_start(
        self,
        serialized: Dict[str, Any],
        messages: List[List[BaseMessage]],
        *,
        run_id: UUID,
        parent_run_id: Optional[UUID] = None,
        tags: Optional[List[str]] = None,
        metadata: Optional[Dict[str, Any]] = None,
        **kwargs: Any,
    ) -> None:
        # LangChain starts one run per message list.
        self._start(run_id, _conversation(first(messages) or []), metadata, kwargs.get("invocation_params"))

    def on_llm_start(
        self,
        serialized: Dict[str, Any],
        prompts: List[str],
        *,
        run_id: UUID,
        parent_run_id: Optional[UUID] = None,
        tags: Optional[List[str]] = None,
        metadata: Optional[Dict[str, Any]] = None,
        **kwargs: Any,
    ) -> None:
        prompt = first(prompts)
        text = "user: " + prompt if isinstance(prompt, str) and prompt else ""
        self._start(run_id, text, metadata, kwargs.get("invocation_params"))

    def on_llm_new_token(
        self,
        token: Any,
        *,
        chunk: Optional[Union[GenerationChunk, ChatGenerationChunk]] = None,
        run_id: UUID,
        parent_run_id: Optional[UUID] = None,
        tags: Optional[List[str]] = None,
        **kwargs: Any,
    ) -> None:
        run = self._runs.get(run_id)
        if run is None:
            return
        try:
            text = text_of(token)
            measure = run.measure
            # The first token with text: a role-only opening chunk is not an answer yet.
            if text and "time_to_first_token_ms" not in measure:
                measure["time_to_first_token_ms"] = run.elapsed_ms()
            append_response(measure, text)
        except Exception as err:
            self._client._warn_once("langchain", "langchain: model call not fully recorded: %s" % err)

    def on_llm_end(
        self,
        response: LLMResult,
        *,
        run_id: UUID,
        parent_run_id: Optional[UUID] = None,
        tags: Optional[List[str]] = None,
        **kwargs: Any,
    ) -> None:
        run = self._take(run_id)
        if run is not None:
            self._end(run, response, None)

    def on_llm_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: Optional[UUID] = None,
        tags: Optional[List[str]] = None,
        **kwargs: Any,
    ) -> None:
        run = self._take(run_id)
        if run is not None:
            # A caller that stops reading a stream early made a complete call as far as it went.
            self._end(run, kwargs.get("response"), None if isinstance(error, GeneratorExit) else error)

    # -- internals -------------------------------------------------------------------------

    def _start(self, run_id: UUID, prompt: str, metadata: Any, invocation: Any) -> None:
        try:
            user = self._user if self._user is not None else current_user.get()
            # Inside an evaluation task the call belongs to the task's result, whoever the user.
            if user is None and current_evaluation.get() is None:
                self._client._warn_once(
                    "langchain-user", "langchain: model call outside as_user() and without user=, not recorded"
                )
                return
            finish = self._client._begin_model_run(self._experiment, user)
            if finish is None:
                return
            measure: Measure = {"error": None}
            # The requested model; the response's name replaces it when the call ends.
            set_model(measure, field(metadata, "ls_model_name"))
            if "model" not in measure:
                set_model(measure, field(invocation, "model") or field(invocation, "model_name"))
            set_prompt(measure, prompt)
            run = _Run(finish, measure)
            with self._lock:
                self._runs[run_id] = run
        except Exception as err:
            self._client._warn_once("langchain", "langchain: model call not recorded: %s" % err)

    def _take(self, run_id: UUID) -> Optional[_Run]:
        with self._lock:
            return self._runs.pop(run_id, None)

    def _end(self, run: _Run, response: Any, error: Optional[BaseException]) -> None:
        latency = run.elapsed_ms()
        measure = run.measure
        try:
            if isinstance(response, LLMResult):
                _read_result(response, measure)
        except Exception:
            pass
        if error is not None:
            measure["error"] = describe_error(error)
        run.finish(measure, latency)


def _read_result(result: LLMResult, into: Measure) -> None:
    """The final generation: for a stream, LangChain's merge of every chunk, whose usage is what
    the provider reported (OpenAI: in the final chunk only, with ``stream_usage``)."""
    generation = first(first(result.generations))
    message = field(generation, "message")
    usage = field(message, "usage_metadata")
    if usage:
        # ``usage_metadata`` counts cache reads in ``input_tokens`` and reasoning in ``output_tokens``.
        set_tokens(
            into,
            input=field(usage, "input_tokens"),
            output=field(usage, "output_tokens"),
            cached=field(field(usage, "input_token_details"), "cache_read"),
            reasoning=field(field(usage, "output_token_details"), "reasoning"),
        )
    else:
        # Completion LLMs report the provider's own counts beside the generations.
        legacy = field(result.llm_output, "token_usage") or field(result.llm_output, "usage")
        set_tokens(into, input=field(legacy, "prompt_tokens"), output=field(legacy, "completion_tokens"))
    # The model that answered, as the response names it, over the one asked for.
    metadata = field(message, "response_metadata")
    set_model(into, field(result.llm_output, "model_name"))
    set_model(into, field(metadata, "model_name") or field(metadata, "model"))
    text = field(generation, "text")
    set_response(into, text if isinstance(text, str) else None)


def _conversation(messages: Sequence[BaseMessage]) -> str:
    """``role: text`` lines, as ``wrap`` records a provider's message list."""
    lines = []
    for message in messages:
        text = text_of(field(message, "content"))
        if not text:
            continue
        kind = field(message, "type")
        role = field(message, "role") if kind == "chat" else _ROLES.get(kind, kind)
        lines.append("%s: %s" % (role if isinstance(role, str) else "user", text))
    return "\n".join(lines)
