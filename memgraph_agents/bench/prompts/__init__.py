"""The benchmark's own prompts (LoCoMo-style short answers and the answer judge).

Library prompts (``memgraph_agents.prompts``) write full answers for agent users; these ask
for the terse answers LoCoMo's metrics (token F1, BLEU-1) score, so they live with the
benchmark: ``render_prompt("answer_short", package=BENCH_PROMPTS)``.
"""

BENCH_PROMPTS = __name__
NAV_ANSWER_SHORT = f"{__name__}:nav_answer_short"  # NavigatorContext(answer_prompt=...) in bench --qa
