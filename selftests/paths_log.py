#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The paths a temporal log's syscall events carry (arg_path), in order,
as "PATH<TAB>SYSCALL<TAB>RESULT" lines (RESULT: the errno's name, or ok):
the form of paths_lib.sh's strace_seq, to compare with strace's.

  paths_log.py jsonl LOG.jsonl       a JSONL log (start --log)
  paths_log.py chrome LOG.json       its Chrome trace-event JSON
  paths_log.py perfetto LOG.txt      its Perfetto trace as protoc decodes it
                                     (the arg_path annotations' strings only)
  paths_log.py bare LOG.jsonl        "SYSCALL<TAB>RESULT" of each syscall event
                                     without a path (its calls' order)
"""
import codecs
import errno
import json
import re
import sys


def result(err):
    return errno.errorcode.get(err, str(err)) if err else "ok"


def jsonl(path, bare=False):
    with open(path, encoding="utf-8") as f:
        ev = [json.loads(line) for line in f]
    ev = [e for e in ev if e["event"] == "syscall"]
    ev.sort(key=lambda e: (e["proc_id"], e["seq"]))
    for e in ev:
        if bare and e["arg_path"] is None:
            print(f'{e["syscall"]}\t{result(e["errno"])}')
        elif not bare and e["arg_path"] is not None:
            print(f'{e["arg_path"]}\t{e["syscall"]}\t{result(e["errno"])}')


def chrome(path):
    with open(path, encoding="utf-8") as f:
        ev = json.load(f)["traceEvents"]
    ev = [e for e in ev if e.get("cat") == "syscall" and e.get("ph") == "X"]
    ev.sort(key=lambda e: (e["pid"], e["args"]["seq"]))
    for e in ev:
        a = e["args"]
        if "arg_path" in a:
            print(f'{a["arg_path"]}\t{e["name"]}\t{result(a.get("errno"))}')


def perfetto(path):
    with open(path, encoding="utf-8") as f:
        pf = f.read()
    names = {int(i): n for i, n in re.findall(
        r'debug_annotation_names \{\s*iid: (\d+)\s*name: "([a-z_]+)"\s*\}', pf)}
    strs = {int(i): codecs.escape_decode(s.encode())[0].decode("utf-8") for i, s in re.findall(
        r'debug_annotation_string_values \{\s*iid: (\d+)\s*str: "((?:[^"\\]|\\.)*)"\s*\}', pf)}
    for iid, v in re.findall(r'debug_annotations \{\s*name_iid: (\d+)\s*'
                             r'string_value_iid: (\d+)\s*\}', pf):
        if names.get(int(iid)) == "arg_path":
            print(strs.get(int(v), "?"))


if __name__ == "__main__":
    kind, path = sys.argv[1], sys.argv[2]
    if kind == "jsonl":
        jsonl(path)
    elif kind == "bare":
        jsonl(path, bare=True)
    elif kind == "chrome":
        chrome(path)
    elif kind == "perfetto":
        perfetto(path)
    else:
        sys.exit(f"paths_log.py: unknown kind {kind}")
