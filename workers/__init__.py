"""Quire's stages (pure functions over IR/plan data) and the Celery tasks that wrap them."""
