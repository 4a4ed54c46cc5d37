#!/usr/bin/env sh
# The Helm plugin's command (plugin.yaml): `helm aftershock ARGS` runs `aftershock ARGS`, the one on
# PATH, else the Python module from this plugin's folder (HELM_PLUGIN_DIR/src).
if command -v aftershock >/dev/null 2>&1; then
  exec aftershock "$@"
fi
PYTHONPATH="${HELM_PLUGIN_DIR:-$(dirname "$0")/..}/src${PYTHONPATH:+:$PYTHONPATH}" exec "${PYTHON:-python3}" -m aftershock.cli "$@"
