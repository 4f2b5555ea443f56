# SPDX-License-Identifier: GPL-2.0
"""The rows of an exported paths file, for test_bpf_store_paths.sh.

    test_bpf_store_paths.py FILE

FILE is DIR/paths/host=H/run=R/part-0.csv.gz of `systracectl export`: read
with python3's gzip and csv (not systracectl's reader), each row printed as
"proc_id|addr|syscall|errno|errno_name|kind|path|count" (an empty field as
empty text), for the test to compare with the sqlite3 CLI's rows.
"""
import csv
import gzip
import sys

KEYS = ("proc_id", "addr", "syscall", "errno", "errno_name", "kind", "path", "count")


def main():
    with gzip.open(sys.argv[1], "rt", newline="") as f:
        for row in csv.DictReader(f):
            print("|".join(row[k] for k in KEYS))


if __name__ == "__main__":
    main()
