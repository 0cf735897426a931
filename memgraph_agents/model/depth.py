"""How deep every ranking is computed, so that asking for more never reshuffles what was shown.

No imports: the retriever table (``registry``) reads it without loading numpy.
"""

# How many items of a ranking the finishing step orders by the question's time
# (``retrieval.finish``): the first k items of a request for k are the first k of a request for
# more (an agent or a page that shows more never reshuffles what it showed). The items after it
# keep the retriever's order.
FINISH_HEAD = 10
# How deep every retriever ranks whatever k is asked (at least): the finishing step moves the
# turns that are not evidence (the agent's own words, the user's questions to it: retrieval.asking)
# after the statements of this window, so a head of FINISH_HEAD statements is left when there are.
RANK_DEPTH = 2 * FINISH_HEAD
# Items a preset appends after the ranked ones (``sgmem``'s generated memory): not cut at k.
GENERATED_KINDS = ("summary", "fact", "insight")
