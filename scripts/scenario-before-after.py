#!/usr/bin/env python3
"""Before/after table of every shipped scenario: step and exposed communication per machine.

Usage: scripts/scenario-before-after.py OLD_LINKSIM NEW_LINKSIM SOURCE_ROOT (markdown on stdout).
"""
import json, subprocess, sys, os
old, new, root = sys.argv[1], sys.argv[2], sys.argv[3]
def fmt(x):
    if x is None: return '-'
    for unit, f in (('s',1),('ms',1e-3),('us',1e-6)):
        if abs(x) >= f or unit=='us':
            return f"{x/f:.4g} {unit}"
def run(binary, name):
    p = subprocess.run([binary, 'run', name, '--format', 'json'], capture_output=True, text=True, cwd=root)
    if p.returncode: return {}
    out = {}
    for r in json.loads(p.stdout):
        out[r['machine']] = r
    return out
print('| scenario | machine | step before | step after | exposed comm before | exposed comm after |')
print('|---|---|---|---|---|---|')
for f in sorted(os.listdir(os.path.join(root,'scenarios'))):
    if not f.endswith('.json') or f=='schema.json': continue
    name = f[:-5]
    a, b = run(old, name), run(new, name)
    for m in b:
        ra, rb = a.get(m, {}), b[m]
        if 'step_s' not in rb or rb.get('status')!='ok':
            print(f"| {name} | {m} | - | - | - | - |"); continue
        print(f"| {name} | {m} | {fmt(ra.get('step_s'))} | {fmt(rb.get('step_s'))} | {fmt(ra.get('exposed_comm_s'))} | {fmt(rb.get('exposed_comm_s'))} |")
