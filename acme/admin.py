from django.contrib import admin

from .models import ContactMessage


@admin.register(ContactMessage)
class ContactMessageAdmin(admin.ModelAdmin):
    list_display = ["name", "email", "received", "handled"]
    list_filter = ["handled", "received"]
    search_fields = ["name", "email", "message"]
    readonly_fields = ["name", "email", "message", "agent_session", "received"]
