"""`makemessages` for the app in the current folder, with Django set up from the project root.

Run as `python -P scripts/makemessages.py -l de …` from an app's folder (scripts/messages,
tests/i18n/test_catalogues.py). Celery's Django fixup puts the working directory first on
sys.path when the Celery app is created (canasta_site/celery.py, at settings import): from an
app's folder, that app's own subpackages (api/clients) would shadow the project's apps of the
same name. So Django is set up from the root, and the command then runs in the app's folder.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import django
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    app_folder = os.getcwd()
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canasta_site.settings")
    os.chdir(ROOT)
    django.setup()
    os.chdir(app_folder)
    call_command("makemessages", *sys.argv[1:])
