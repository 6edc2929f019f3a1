"""Forgetting: the owner takes entries out of recall (hide, reversible) or off the disk (purge).

``select.py`` finds what a request names, in the log itself (hidden entries included);
``hide.py`` appends the hide records (log/hides.py); ``purge.py`` removes the entries and what
was derived from or copied with them, crash-safely (an intent file, finished at the next start).
"""
