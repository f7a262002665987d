"""The routers: one module per resource (`documents`, `batches`) and the pages (`ui`)."""
