from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.http import HttpResponse
from django.urls import include, path

from acme import admin_login
from acme.developers import developers

FLOOR_BODY = b'{"ok": true}'

handler500 = "acme.errors.server_error"


def bench_floor(request):
    """The benchmark's floor (BENCH_FLOOR=1): a constant JSON body through the full middleware stack."""
    return HttpResponse(FLOOR_BODY, content_type="application/json")


urlpatterns = [
    path("", include("agents_protocol.urls")),
    path("admin/login/", admin_login.login),  # before the admin's own: failed sign-ins are limited
    path("admin/", admin.site.urls),
    path("developers/", developers, name="developers"),
    path("", include("catalog.urls")),
    path("checkout/", include("cart.urls")),
] + static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)

if settings.BENCH_FLOOR:
    # First, so resolving it costs the least: the floor is the cheapest answer the site can give.
    urlpatterns.insert(0, path("bench/floor", bench_floor))
