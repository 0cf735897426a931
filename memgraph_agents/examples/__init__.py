"""Example conversations, questions and scripts (shipped so `memgraph demo` works after `pip install`)."""
