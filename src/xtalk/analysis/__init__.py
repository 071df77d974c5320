"""Statistics over stored campaigns."""
