"""The web workspace and HTTP API (`quire serve`): submit books, watch them move through the
pipeline, and inspect every session beside its source pages.

FastAPI on Starlette: the response models (`models.py`) are the OpenAPI schema under `/v1`,
and the pages (`routes/ui.py`, `templates/`, `static/`) are rendered on the server from the
same reads (`reads.py`), so the UI and the API never disagree. Everything the pages need is
shipped in this package; nothing is loaded from another site.

    app.py        the application factory: routers, errors, auth, security headers
    context.py    the server's parts every route works with (`web_of`)
    auth.py       bearer token (header, or a cookie set by the sign-in page)
    limits.py     the request-body limit, before a body is read
    driver.py     keeps submitted documents moving (embedded: threads; distributed: a poke)
    errors.py     every error as {"error": {"code", "message"}}; HTML for the pages
    models.py     response models
    reads.py      a document's state and output folder, read from the store as models
    pages.py      source pages as PNG, rendered on demand and cached in the store
    markdown.py   session Markdown and study indexes to HTML (markdown-it-py)
    views.py      what the pages compute (page strip, stage bar): pure functions
    render.py     the templates and their helpers
    submit.py     uploads and s3:// references become documents and batches
    routes/       one module per resource, and the pages (`ui`)
"""

from quire.orchestrator.web.app import create_app

__all__ = ["create_app"]
