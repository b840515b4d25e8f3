"""The front door for agent developers: one page (also folded into the home page) with the
well-known URLs, the scenarios, the inspector, the demo's limits and a ten-line example."""
from django.views.generic import TemplateView

developers = TemplateView.as_view(template_name="agents/developers.html")
