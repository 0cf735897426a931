"""How deep every ranking is computed, so that asking for more never reshuffles what was shown.

No imports: the retriever table (``registry``) reads it without loading numpy.
"""

# How many items of a ranking the finishing step may re-order (``retrieval.finish``), and so how
# deep every retriever ranks whatever k is asked: the first k items of a request for k are then
# the first k of a request for more (an agent or a page that shows more never reshuffles what
# it showed). The items after it keep the retriever's order.
FINISH_HEAD = 10
# Items a preset appends after the ranked ones (``sgmem``'s generated memory): not cut at k.
GENERATED_KINDS = ("summary", "fact", "insight")
