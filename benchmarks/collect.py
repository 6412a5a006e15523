"""Merge the case lists printed by benchmarks/bench_*.py into one JSON document and a table."""
import json
import platform
import os
import sys

cases = []
for line in sys.stdin:
    line = line.strip()
    if line:
        cases.extend(json.loads(line))
doc = {"machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
       "cases": cases}
with open(sys.argv[1], "w") as f:
    json.dump(doc, f, indent=2)
print(f"{'case':<48} {'unit':<8} {'ours':>10} {'peer':>10} {'ratio':>7} {'target':>7}  met  peer")
for c in cases:
    def num(v):
        return f"{v:.3f}" if isinstance(v, (int, float)) else str(v)
    print(f"{c['name']:<48} {c['unit']:<8} {num(c['ours']):>10} {num(c['peer']):>10} {num(c['ratio']):>7} "
          f"{num(c['target']):>7}  {'yes' if c.get('met') else 'NO ':<4} {c.get('peer_name', '')}")
print(f"written: {sys.argv[1]}")
