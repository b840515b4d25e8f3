"""An entry of Oscar's dashboard menu that links to the agent settings in Django admin.

Import-safe from settings (it loads no model):

    from oscar.defaults import *
    from agents_protocol.contrib.oscar.dashboard import AGENTS_MENU_ITEM
    OSCAR_DASHBOARD_NAVIGATION = [*OSCAR_DASHBOARD_NAVIGATION, AGENTS_MENU_ITEM]
"""
from django.utils.translation import gettext_lazy as _


def can_edit_agent_settings(user, url_name, url_args=None, url_kwargs=None):
    """Oscar's access function for the entry: the admin pages of agents_protocol are for staff
    who may see them (Oscar's default one only knows the dashboard's own views)."""
    return user.is_active and user.is_staff and user.has_module_perms("agents_protocol")


AGENTS_MENU_ITEM = {
    "label": _("Agents"),
    "icon": "fas fa-robot",
    "url_name": "admin:app_list",
    "url_kwargs": {"app_label": "agents_protocol"},
    "access_fn": can_edit_agent_settings,
}
