import oscar.apps.partner.apps as apps


class PartnerConfig(apps.PartnerConfig):
    name = 'kiln_apps.partner'
