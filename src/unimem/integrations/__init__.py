"""Adapters that plug unimem into the frameworks voice and agent assistants are built with.

Each adapter is a thin layer over the public memory API, so it takes either a
:class:`unimem.UnifiedMemoryService` (in process) or a
:class:`unimem.client.MemoryClient` (a remote ``unimem serve``), and each
framework is an optional extra (``pip install 'unimem[langchain]'``):

============================  =========================================  ================
module                        what it gives the framework                extra
============================  =========================================  ================
``integrations.openai_agents``  ``UnimemSession`` (the Agents SDK's        ``openai-agents``
                                ``Session``), ``RealtimeHistoryRecorder``
``integrations.langchain``      ``UnimemChatMessageHistory``               ``langchain``
``integrations.langgraph``      ``UnimemStore`` (a ``BaseStore`` for        ``langgraph``
                                long-term memory)
``integrations.pipecat``        ``UnimemMemoryProcessor`` (a frame         ``pipecat``
                                processor before the LLM)
``integrations.livekit``        ``AgentMemory``, ``UnimemAgent``           ``livekit``
============================  =========================================  ================

Importing this package imports no framework; each module imports its own.
:func:`prewarm` loads the models unimem loads on first use, before the first turn.
"""

from .memory_api import prewarm

__all__ = ["prewarm"]
