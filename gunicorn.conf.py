"""gunicorn's settings for the Procfile's web process (gunicorn reads ./gunicorn.conf.py
from the directory it starts in; options on the command line still win)."""

# gunicorn answered a request line over 4094 bytes with its own HTML 414 page. 0 lifts the
# limit to gunicorn's 1 MiB buffer, so Django answers over-long URLs with 414 in the API's
# error shape (api/middleware.py, at 4094 characters). Only a request line over 1 MiB still
# gets gunicorn's page.
limit_request_line = 0
