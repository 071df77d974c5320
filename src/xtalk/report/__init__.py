"""Report writers: tables (shared), plots (matplotlib Agg), html, markdown, junit, build."""
