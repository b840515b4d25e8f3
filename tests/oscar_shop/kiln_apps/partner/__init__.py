default_app_config = 'kiln_apps.partner.apps.PartnerConfig'
