"""Drop-in pieces for agents: memory tools, LangChain retriever."""
