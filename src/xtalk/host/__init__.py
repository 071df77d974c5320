"""Host facts (metadata) and host tuning advice."""
