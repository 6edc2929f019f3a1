"""The ``zettelclaw`` command."""
