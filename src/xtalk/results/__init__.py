"""Results store: one directory per campaign, one per run, durable as samples arrive."""
