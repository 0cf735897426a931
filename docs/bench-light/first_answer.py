"""The five-line Memory script of README "Python API": a fresh process's first answer.

    /usr/bin/time -v python docs/bench-light/first_answer.py DATA_DIR NAMESPACE

(``MEMGRAPH_EMBEDDINGS`` picks the model, as everywhere.)
"""

import sys

from memgraph_agents import Memory

mem = Memory(sys.argv[1], namespace=sys.argv[2])
for ev in mem.search("When did Jonas hand in his notice?", k=3):
    print(ev.cite())
