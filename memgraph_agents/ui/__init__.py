"""``memgraph ui``: a local web app to see and correct what memory holds, over the ``Memory`` API
(so it runs on SQLite and on PostgreSQL + a Chroma server alike). Server-rendered HTML, a little
CSS and JS shipped in ``assets/`` (no CDN: it works offline); every view is a URL.

- ``html``: escaping and the page frame; ``views``: one function per page, data in, HTML out;
- ``data``: what each page shows, read through ``Memory``;
- ``security``: who may read which namespace, loopback and Host checks, the cross-site checks
  on writes;
- ``app``: the Starlette routes (served by uvicorn, both already required by ``mcp``).
"""
