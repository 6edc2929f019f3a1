"""JSON-RPC 2.0 as the sidecar speaks it: framing, params, dispatch. No sockets here."""
