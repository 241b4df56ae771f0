"""Runs packaging/python/tests (python3 -m unittest discover) for ctest; exit 77 without torch.
Usage: run_unit_tests.py TESTS_DIR"""

import sys
import unittest

try:
    import torch  # noqa: F401
except ImportError:
    print("SKIP: this python has no torch (Debian: python3-torch)")
    sys.exit(77)

suite = unittest.defaultTestLoader.discover(sys.argv[1])
result = unittest.TextTestRunner(verbosity=2).run(suite)
sys.exit(0 if result.wasSuccessful() and result.testsRun > 0 else 1)
