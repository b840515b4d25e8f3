"""The agent activity page: calls recorded by the pipeline (recorder.py), counted by the
database (report.py), drawn as SVG on the server (charts.py), shown in admin (page.py)."""
