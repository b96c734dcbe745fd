"""Integrations: ``wrap`` for the OpenAI and Anthropic SDKs, model-call recording and ``as_user``
(private modules), and adapters for LLM frameworks. Each framework module imports its framework,
so ``import arbiter`` imports none of them: ``from arbiter.integrations.langchain import
ArbiterCallbackHandler`` needs ``langchain-core`` (``pip install arbiter-client[langchain]``)."""
