"""Engine tests use no database: they import only games.engine."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
