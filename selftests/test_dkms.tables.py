# SPDX-License-Identifier: GPL-2.0
"""Of test_dkms.sh: the tables of the report whose report --json output is
the argument, sorted, on one line."""
import json
import sys

d = json.loads(sys.argv[1])
print(" ".join(sorted(k for k in d if k not in ("schema_version", "report", "session", "parameters", "notes"))))
