"""The engine: judges as lockstep programs of model calls, the transcript events they record, the registry."""
