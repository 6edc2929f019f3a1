"""The trio server: the Unix socket, its connections, and the method handlers."""
