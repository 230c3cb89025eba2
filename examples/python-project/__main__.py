"""What `pulumi up` runs: the program is program.py, which test_program.py unit-tests."""

import program  # noqa: F401
