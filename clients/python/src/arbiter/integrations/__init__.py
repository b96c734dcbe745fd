"""Adapters for LLM frameworks. Each module imports its framework, so ``import arbiter`` imports
none of them: ``from arbiter.integrations.langchain import ArbiterCallbackHandler`` needs
``langchain-core`` (``pip install arbiter-client[langchain]``)."""
