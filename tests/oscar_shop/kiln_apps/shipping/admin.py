import oscar.apps.shipping.admin  # noqa: F401
