#!/usr/bin/env sh
# The Helm plugin's command (plugin.yaml): `helm aftershock ARGS` runs `aftershock ARGS`, the one on
# PATH, else this plugin's folder (HELM_PLUGIN_DIR/src) with a Python that has aftershock's
# dependencies; else it says what to install, in one line.
if command -v aftershock >/dev/null 2>&1; then
  exec aftershock "$@"
fi
dir="${HELM_PLUGIN_DIR:-$(dirname "$0")/..}"
python="${PYTHON:-python3}"
export PYTHONPATH="$dir/src${PYTHONPATH:+:$PYTHONPATH}"
if "$python" -c "import aftershock.cli.main" >/dev/null 2>&1; then
  exec "$python" -m aftershock.cli "$@"
fi
echo "helm aftershock: error: aftershock is not installed; run \`pipx install $dir\` (or \`pip install $dir\`), then run the command again" >&2
exit 2
