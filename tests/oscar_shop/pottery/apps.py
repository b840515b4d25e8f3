from django.apps import AppConfig


class PotteryConfig(AppConfig):
    name = "pottery"
    verbose_name = "Kiln & Co"
