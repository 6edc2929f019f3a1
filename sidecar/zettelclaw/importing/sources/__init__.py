"""One reader per kind of source; each yields ``items.Conversation``, ``items.Note`` and
``items.Problem`` from a path, in the source's own order, and writes nothing."""
