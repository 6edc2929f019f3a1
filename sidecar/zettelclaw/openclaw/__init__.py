"""OpenClaw as a host: making Zettelclaw its memory (``zettelclaw init``).

The OpenClaw side of the integration is the plugin in ``clients/openclaw`` (a shim that forwards
hooks and tools to the sidecar). This package holds what the sidecar's CLI does to an OpenClaw
installation: edit ``openclaw.json`` and the workspace's MEMORY.md.
"""
