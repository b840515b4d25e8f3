"""gunicorn, for a site it serves (`pip install "agents-protocol[gunicorn]"`): workers.SyncWorker
writes gunicorn's own refusals in the envelope. Not a Django app: nothing to add to INSTALLED_APPS."""
