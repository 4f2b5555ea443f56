#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Hold a run store's write lock, for a test of what waits on it.

    store_lock.py DB LOCKED UNLOCK

Takes DB's write lock (BEGIN IMMEDIATE, as systracectl does to save), then
creates the file LOCKED, and gives the lock back (ROLLBACK: nothing
written) once the file UNLOCK exists.
"""
import os
import sqlite3
import sys
import time


def main():
    db, locked, unlock = sys.argv[1:4]
    c = sqlite3.connect(db, isolation_level=None)
    c.execute("BEGIN IMMEDIATE")
    open(locked, "w").close()
    while not os.path.exists(unlock):
        time.sleep(0.05)
    c.execute("ROLLBACK")
    c.close()


if __name__ == "__main__":
    main()
