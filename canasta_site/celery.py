"""The Celery application; tasks live in each app's tasks.py and are found by autodiscovery."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canasta_site.settings")

app = Celery("canasta")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
