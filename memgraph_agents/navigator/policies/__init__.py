"""Navigator policies: who decides (an LLM, or embedding statistics offline).

Each role has an offline implementation (``offline``) and an LLM one (``llm``); the graph
nodes call the LLM role when the run has a chat model and budget left, and fall back to the
offline role on any ``LLMError`` (recorded in the trace), so a question always completes.
"""
