"""The trio server: the Unix socket, its connections and peers, supervision, and ``serve``.

It carries JSON-RPC lines to the dispatcher (``protocol/``) and the method table
(``methods/``); it knows nothing of memory itself."""
