import os

import numpy as np
import pytest
from hypothesis import settings

# CI and the README's test command are deterministic (a fixed hypothesis seed);
# HYPOTHESIS_PROFILE=explore draws fresh random examples, 10x as many.
settings.register_profile("default", derandomize=True)
settings.register_profile("explore", derandomize=False, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
