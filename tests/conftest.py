import os
from pathlib import Path

import pytest
from hypothesis import settings

# Tests never assert wall-clock time, and a Hypothesis deadline is one: off everywhere.
settings.register_profile("dev", deadline=None)
settings.register_profile("ci", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

INTEGRATION_DIR = Path(__file__).resolve().parent / "integration"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Everything under tests/integration/ needs the services, marked or not, so the default
    # (`-m "not integration"`) run never picks it up by accident.
    for item in items:
        if INTEGRATION_DIR in item.path.parents:
            item.add_marker(pytest.mark.integration)
