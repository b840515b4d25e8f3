"""Every request the app makes itself: platform profiles (UCP's `UCP-Agent`) and order-event webhooks.

They all go through one guarded fetch (fetch.py): public addresses only unless
OUTBOUND_ALLOWED_NETWORKS names a network, the address checked is the address connected to,
short timeouts, a size cap, no redirect to a refused address.
"""
