from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("agents_protocol.urls")),
    path("admin/", admin.site.urls),
    path("", include("catalog.urls")),
    path("checkout/", include("cart.urls")),
] + static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
