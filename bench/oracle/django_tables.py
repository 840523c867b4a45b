#!/usr/bin/env python3
"""The table Django gives each model of its contrib apps (`apps.get_models()`), as JSON
`{"module.Class": "db_table"}` on stdout: the oracle for py_frameworks.py --tables. Run it with
a Python that has the Django version being measured installed."""
import json

import django
from django.conf import settings

APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.sites",
    "django.contrib.flatpages",
    "django.contrib.redirects",
    "django.contrib.gis",
]
try:  # gis needs GDAL: measured without it when it is missing
    import django.contrib.gis.gdal  # noqa: F401
except Exception:
    APPS.remove("django.contrib.gis")
settings.configure(
    INSTALLED_APPS=APPS,
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
)
django.setup()
from django.apps import apps  # noqa: E402

print(json.dumps({f"{m.__module__}.{m.__qualname__}": m._meta.db_table
                  for m in apps.get_models(include_auto_created=False)}, indent=1, sort_keys=True))
