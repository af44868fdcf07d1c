"""A fixed-seed slice of the fuzz campaign (tools/fuzz.py): generated, mutated
and hostile sheets and command lines never end in an internal error or an
exit code outside 0/1/2. The full campaign (10,000 cases) is a script:
`.venv/bin/python tools/fuzz.py --cases 10000 --seed 1`."""
from __future__ import annotations

import sys
from repo_paths import REPO

sys.path.insert(0, str(REPO / "tools"))

import fuzz  # noqa: E402


def test_a_fixed_seed_slice_of_the_campaign_finds_nothing():
    outcome = fuzz.campaign(cases=120, seed=12, seconds=20, quiet=True)
    report = [f"supersheet {' '.join(argv)}\n{text[:300]}\n{output[-400:]}" for text, argv, output in outcome.failures]
    assert not outcome.failures, "\n\n".join(report)
    assert outcome.commands > 360 and set(outcome.codes) <= {0, 1, 2}
    assert outcome.codes[0] and outcome.codes[1] and outcome.codes[2]   # the slice reaches every outcome


def test_the_campaign_is_reproducible():
    first = fuzz.campaign(cases=10, seed=3, quiet=True)
    second = fuzz.campaign(cases=10, seed=3, quiet=True)
    assert first.codes == second.codes and first.commands == second.commands


def test_a_fixed_seed_slice_of_the_safety_classes_finds_nothing():
    """Issue 28's classes (outputs onto special and read-only files, long names, huge integers,
    --allow-path, textconv of non-sheets, git names, diff --rev blobs, Ray addresses, message
    lengths): no violation, no special file written, every class reached."""
    outcome = fuzz.campaign(cases=40, seed=28, seconds=20, quiet=True, only="safety")
    report = [f"supersheet {' '.join(argv)[:300]}\n{text[:300]}\n{found}" for text, argv, found in outcome.failures]
    assert not outcome.failures, "\n\n".join(report)
    assert outcome.nonregular == 0 and "timeout" not in outcome.codes
    assert set(outcome.safety) == set(fuzz.SAFETY_CLASSES) and sum(outcome.safety.values()) == outcome.commands >= 40
    assert outcome.codes[2] and outcome.codes[0]
