"""Quire's shared models and I/O interfaces: IR, plan, session, configuration, storage."""
