#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The install path of docs/python.md, as a user runs it: a virtual environment that sees
# Debian's packages, `pip install --no-build-isolation` of the source tree, then `import
# ocml` from outside the tree. OCML_BUILD_DIR makes pip take this build tree's extension
# instead of building the library a second time.
#   check_install.sh SOURCE_DIR BUILD_DIR PYTHON
set -euo pipefail
src=$1 build=$2 py=$3
venv=$build/python-venv
rm -rf "$venv"
"$py" -m venv --system-site-packages "$venv"
OCML_BUILD_DIR=$build "$venv/bin/python" -m pip install --quiet --no-build-isolation \
  --no-index --disable-pip-version-check "$src"
cd "$venv"
"$venv/bin/python" - <<'PY'
import sys
import ocml
assert ocml.__file__.startswith(sys.prefix), ocml.__file__  # the installed copy
text = ocml.render([{"role": "user", "content": "Hi"}], format="chatml")
assert text.endswith("<|im_start|>user\nHi<|im_end|>\n"), text
print("installed", ocml.__version__, "at", ocml.__file__)
PY
