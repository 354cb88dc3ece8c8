#!/usr/bin/env bash
# smoke_installed.sh DIST_DIR: install the wheel of DIST_DIR into a fresh virtual environment
# (no editable install, no source tree on sys.path) and use it from an empty folder holding a
# user's own strategies.py and strategies/ folder: --version, simulate, verify, analyze --html,
# compare, plays, rules, the compiled hot modules, and no top-level `strategies` package installed.
# Run by .ci/run after `python -m build` (sdist, then the wheel built from that sdist).
set -euo pipefail
dist=$(cd "$1" && pwd)
wheels=("$dist"/guandan_cli-*.whl)
sdists=("$dist"/guandan_cli-*.tar.gz)
[ -f "${wheels[0]}" ] || { echo "smoke: no guandan_cli-*.whl in $dist" >&2; exit 1; }
[ -f "${sdists[0]}" ] || { echo "smoke: no guandan_cli-*.tar.gz in $dist" >&2; exit 1; }
wheel=${wheels[0]}
echo "smoke: $(basename "$wheel") and $(basename "${sdists[0]}")"

# the wheel holds the compiled modules and no top-level package but guandan_cli's own
python3 - "$wheel" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
tops = {t.split(".")[0] for t in tops}
assert tops == {"guandan_cli", "guandan_native__mypyc"}, f"unexpected top-level names in the wheel: {sorted(tops)}"
for module in ("guandan_cli/engine/legal", "guandan_cli/strategies/heuristic/plan",
               "guandan_cli/strategies/heuristic/memory", "guandan_cli/strategies/heuristic/bot"):
    assert any(n.startswith(module + ".") and n.endswith(".so") for n in names), f"{module} is not compiled in the wheel"
assert "guandan_cli/_compiled_sources.json" in names, "the record of the compiled sources is missing"
assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), "LICENSE is missing"
assert "guandan_cli/rules.md" in names, "the rules document (docs/rules.md, guandan rules) is missing"
for page in ("index.html", "table.js", "table.css"):
    assert f"guandan_cli/web/static/{page}" in names, f"the web table's {page} (guandan table) is missing"
print(f"smoke: wheel ok ({len(names)} files, top-level {sorted(tops)})")
PY

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$wheel"
mkdir "$work/user" "$work/user/strategies"
cd "$work/user"
# a bot author's own files named like the old top-level package: they must never be imported
echo "raise ImportError('the user strategies.py was imported')" > strategies.py
echo "raise ImportError('the user strategies/ was imported')" > strategies/__init__.py
export PATH="$work/venv/bin:$PATH"
unset PYTHONPATH
set -x
guandan --version
guandan simulate -n 6 -s heuristic,greedy --max-deals 3 --seed 1 --out runs/first -q
guandan verify runs/first
guandan analyze runs/first --html report.html > /dev/null
test -s report.html
guandan compare heuristic greedy -n 4 --max-deals 2 --out runs/cmp -q
guandan plays "S3 H4 D4 C5 S5 H2" --level 2 > /dev/null
# the rules its errors cite ship in the wheel: section 10 alone, tribute and return
guandan rules 10 > rules-10.txt
grep -q "^## 10\. Tribute and return" rules-10.txt
grep -q "^### 10\.4 Return" rules-10.txt
if grep -q "^## 11\." rules-10.txt; then echo "smoke: guandan rules 10 printed more than section 10" >&2; exit 1; fi
python - <<'PY'
import sys
import guandan_cli, guandan_cli.native.compiled as compiled
from guandan_cli import simulate
assert "site-packages" in guandan_cli.__file__, guandan_cli.__file__
assert compiled.status()["compiled"], compiled.describe()
run = simulate(matches=2, strategies="heuristic,random", workers=1, max_deals=2, out="runs/api", progress=False)
print(run.summary().splitlines()[0])
assert "strategies" not in sys.modules
PY
set +x
if ls -d "$work"/venv/lib/python3*/site-packages/strategies >/dev/null 2>&1; then
    echo "smoke: a top-level 'strategies' package is installed" >&2; exit 1
fi
echo "smoke: the installed wheel works"
