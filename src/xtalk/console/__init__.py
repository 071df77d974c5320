"""Guest console: the line protocol (pure) and capture from pipes/sockets."""
