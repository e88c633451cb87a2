#!/bin/bash
# The long fuzz campaign on a snapshot of HEAD: `bash scripts/fuzz-campaign.sh --programs 20000
# --jobs 2 --seed N`. The editable install maps versa.passes, versa.tools and versa.dialects to
# this checkout and fuzz workers re-import them when they restart, so a campaign run from the
# working tree would pick up edits made while it runs. Here the snapshot's interpreter imports
# the snapshot (a sitecustomize remaps the editable finder); findings are saved in the snapshot.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
snapshot=$(mktemp -d "${TMPDIR:-/tmp}/versa-fuzz-XXXXXX")
git clone -q "$repo" "$snapshot/versa"
mkdir -p "$snapshot/site"
cat > "$snapshot/site/sitecustomize.py" <<PY
import importlib, pathlib, site
for packages in site.getsitepackages():
    for finder in pathlib.Path(packages).glob("__editable___versa_*_finder.py"):
        mapping = importlib.import_module(finder.stem).MAPPING
        for name, path in list(mapping.items()):
            mapping[name] = path.replace("$repo/", "$snapshot/versa/", 1)
PY
echo "versa-fuzz on a snapshot of $(git -C "$repo" rev-parse --short HEAD) in $snapshot/versa"
cd "$snapshot/versa"
PYTHONPATH="$snapshot/site" "$repo/.venv/bin/python" -c \
  "import sys; from versa.tools.versa_fuzz import main; sys.argv[0] = 'versa-fuzz'; sys.exit(main())" "$@"
