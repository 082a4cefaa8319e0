"""Citation verification engine."""
