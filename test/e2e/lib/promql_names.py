#!/usr/bin/env python3
"""Prints the series names each PromQL query on standard input (one a line) names, one a line:
identifiers that are not functions, keywords, label names (in {...}, by/without/on/ignoring/
group_left/group_right lists), durations or Grafana variables. Grafana's label_values(M, L)
names M. Used by test/e2e/prometheus_metrics.sh on the dashboard's queries."""
import re
import sys

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or",
            "unless", "offset", "inf", "nan"}
for query in sys.stdin:
    q = re.sub(r'"(?:[^"\\]|\\.)*"', '""', query)                      # strings
    q = re.sub(r"\{[^}]*\}", "", q)                                    # matchers
    q = re.sub(r"label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,[^)]*\)", r"\1", q)
    q = re.sub(r"\[[^\]]*\]", "", q)                                   # ranges
    q = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", q)
    q = re.sub(r"\$\{?[a-zA-Z_]+\}?", " ", q)                          # Grafana variables
    for m in re.finditer(r"(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?", q):
        name, call = m.group(1), m.group(2)
        if call or name.lower() in KEYWORDS:
            continue
        print(name)
