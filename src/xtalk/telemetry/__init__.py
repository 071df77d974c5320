"""Sample telemetry: the shared-memory ring (docs/protocol.md section 3)."""
