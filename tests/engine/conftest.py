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

# CI's compiled-build step (.ci/run) sets CANASTA_ENGINE=compiled: the engine tests must then
# really run on the compiled modules, not fall back to the .py ones unnoticed.
if os.environ.get("CANASTA_ENGINE") == "compiled":
    from games.engine.compiled import is_compiled

    assert is_compiled(), "CANASTA_ENGINE=compiled but the compiled engine is absent or stale"
