"""The embedded profile: what lets one host serve the site with no server to install.

SQLite in WAL mode with immediate transactions, its writers queued on one lock
(`sqlite/`, `write_lock.py`), and the cache that holds the rate-limit counters shared by
every worker of the host (`cache.py`, diskcache in a private directory in shared memory,
`cache_dir.py`). The scale-out profile (PostgreSQL, Redis) uses none of it: acme/settings.py
chooses by DATABASE_URL and REDIS_URL. docs/architecture.md#the-embedded-profile.
"""
