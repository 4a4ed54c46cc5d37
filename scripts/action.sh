#!/usr/bin/env bash
# The steps of the composite action (action.yml), one subcommand each, so that they can be run and
# tested outside GitHub:
#   action.sh keys     cache keys: the lock (constraints + pyproject + sources), the base sha, the target
#   action.sh install  a virtualenv with aftershock from the action's own checkout and the pinned lock
#   action.sh charts   the external charts of the base and the head fetched into the chart cache
#   action.sh review   the review (pull request) or the baseline (push), exit code and outputs
# Inputs come from the environment the action sets (GITHUB_*, RUNNER_TEMP, AFTERSHOCK_*).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
action_path=${GITHUB_ACTION_PATH:-$here}
venv=${AFTERSHOCK_VENV:-${RUNNER_TEMP:-/tmp}/aftershock-venv}
output=${GITHUB_OUTPUT:-/dev/null}

keys() {
  local lock base target
  lock=$(cd "$action_path" && { cat constraints.txt pyproject.toml; find src -type f -name '*.py' -o -type f -name '*.json' \
    | LC_ALL=C sort | xargs sha256sum; } | sha256sum | cut -c1-16)
  base=$(python3 -c 'import json,os,sys; e=json.load(open(os.environ["GITHUB_EVENT_PATH"])); p=e.get("pull_request") or {}; print((p.get("base") or {}).get("sha") or e.get("before") or "none")')
  target=$(python3 -c 'import json,os; e=json.load(open(os.environ["GITHUB_EVENT_PATH"])); p=e.get("pull_request"); print("pr" + str(p["number"]) if p else "push")')
  # the chart cache is keyed by what names external charts: Chart.lock files and release sources
  charts=$( { git ls-files -- '*Chart.lock'; git grep -lE '^kind: *(HelmRelease|OCIRepository|HelmRepository|Application)' -- '*.yaml' '*.yml'; } 2>/dev/null \
    | LC_ALL=C sort -u | xargs -r sha256sum 2>/dev/null | sha256sum | cut -c1-16)
  { echo "lock=$lock"; echo "base=$base"; echo "target=$target"; echo "charts=$charts"; } >> "$output"
}

charts() {
  # best effort: a chart that cannot be fetched leaves its part not reviewed, said in the review
  local python=${AFTERSHOCK_PYTHON:-$venv/bin/python} refs
  refs=$(python3 -c 'import json,os; e=json.load(open(os.environ["GITHUB_EVENT_PATH"])); p=e.get("pull_request") or {}; print(" ".join(s for s in ((p.get("base") or {}).get("sha"), (p.get("head") or {}).get("sha")) if s) or "HEAD")')
  args=(--repo "$PWD" --chart-cache "${AFTERSHOCK_CHART_CACHE:?}")
  for ref in $refs; do args+=(--ref "$ref"); done
  "$python" -m aftershock.cli charts fetch "${args[@]}" || echo "::warning::aftershock: some external charts could not be fetched (listed above)"
  return 0
}

install() {
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import aftershock' 2>/dev/null; then
    echo "aftershock: using the cached virtualenv $venv"
    return 0
  fi
  rm -rf "$venv"
  "${AFTERSHOCK_BASE_PYTHON:-python3}" -m venv "$venv" || return 2
  "$venv/bin/python" -m pip install --disable-pip-version-check --quiet \
    -c "$action_path/constraints.txt" "${AFTERSHOCK_PACKAGE:-$action_path}[server]" || return 2
  # kustomize for Flux Kustomizations and kustomizations: pykustomize declares Python >= 3.14 and runs
  # on 3.11 (a py3-none wheel over kustomize's Go code); without it they are reported not reviewed
  "$venv/bin/python" -m pip install --disable-pip-version-check --quiet --no-deps \
    --ignore-requires-python -c "$action_path/constraints.txt" pykustomize || return 2
}

review() {
  local python=${AFTERSHOCK_PYTHON:-$venv/bin/python} code args
  args=(--fail-on "${FAIL_ON:-high}" --sarif "${RUNNER_TEMP:-/tmp}/aftershock.sarif" --repo "$PWD")
  [ "${COMMENT:-true}" = "true" ] || args+=(--no-comment)
  [ -z "${KUBE_VERSION:-}" ] || args+=(--kube-version "$KUBE_VERSION")
  [ -z "${AFTERSHOCK_STATE_DIR:-}" ] || { mkdir -p "$AFTERSHOCK_STATE_DIR"; args+=(--state "$AFTERSHOCK_STATE_DIR/state.db"); }
  [ -z "${AFTERSHOCK_RENDER_CACHE:-}" ] || args+=(--render-cache "$AFTERSHOCK_RENDER_CACHE")
  [ -z "${AFTERSHOCK_CHART_CACHE:-}" ] || args+=(--chart-cache "$AFTERSHOCK_CHART_CACHE")
  [ "${FAIL_ON_CHART_GAPS:-false}" != "true" ] || args+=(--fail-on-chart-gaps)
  "$python" -m aftershock.server.action "${args[@]}"
  code=$?
  echo "exit-code=$code" >> "$output"
  case $code in
    0) return 0 ;;
    4) echo "fail-job=true" >> "$output"; return 0 ;;  # fails the job after the SARIF upload
    3) if [ "${FAIL_ON_PARTIAL:-true}" = "true" ]; then echo "fail-job=true" >> "$output"
       else echo "::warning::aftershock: parts of the change were not reviewed (fail-on-partial: false)"; fi
       return 0 ;;
    *) return "$code" ;;  # 2 bad input, 1 internal error: the job fails here, with no SARIF to upload
  esac
}

case "${1:-}" in
  keys|install|charts|review) "$1" ;;
  *) echo "usage: action.sh keys|install|charts|review" >&2; exit 2 ;;
esac
