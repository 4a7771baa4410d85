# Shared by the e2e scripts (sourced; not a test itself, so not *.sh): a work directory removed
# on exit, processes killed on exit, `fail` that shows the logs, respool-sandbox started with its
# KUBECONFIG exported, `k` for kubectl, and the respool API installed.
# Expects $build and $src to be set by the script.
if ! command -v kubectl >/dev/null; then
  echo "kubectl not on PATH: skipped"
  exit 0
fi
work=$(mktemp -d)
# Processes to kill on exit, each as "PID STARTTIME" (track). A pid alone is not enough: pids
# wrap at 32,768 here and a full suite starts tens of thousands of processes, so the pid of a
# process that ended early (an operator the test killed) may name another test's process by the
# time of the cleanup, and killing it fails that test (a full run under ASan lost
# reconcilers:rest so, at the moment the least-privilege proof exited).
pids=()
identity() { # identity PID: "PID STARTTIME" (field 22 of /proc/PID/stat), nothing once it ended
  local stat fields
  { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 0 # read: no process of its own
  read -ra fields <<<"${stat##*) }" # the fields after the command name, which may hold spaces
  echo "$1 ${fields[19]}"
}
track() { # track PID: killed on exit, if it is still that process then
  local id
  id=$(identity "$1")
  [ -z "$id" ] || pids+=("$id")
}
kill_identified() { # kill_identified "PID STARTTIME"...: SIGKILL to each still that process
  local id
  for id in "$@"; do
    [ -n "$id" ] && [ "$(identity "${id%% *}")" = "$id" ] && kill -9 "${id%% *}" 2>/dev/null || true
  done
  return 0
}
cleanup() {
  kill_identified "${pids[@]}"
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for f in "$work"/*.log; do echo "== $f"; tail -15 "$f"; done
  exit 1
}
# grep -q stops reading at the first match; under pipefail the writer's SIGPIPE then fails the
# whole pipeline now and then. `has` reads all of its input.
has() { grep "$@" >/dev/null; }
k() { kubectl --request-timeout=20s --cache-dir="$work/cache" "$@"; }

# start_sandbox [respool-sandbox flags...]: serves, and exports the KUBECONFIG it wrote.
start_sandbox() {
  "$build/respool-sandbox" --state-dir "$work/sandbox" "$@" >"$work/sandbox.out" 2>"$work/sandbox.log" &
  track $!
  for _ in $(seq 100); do [ -s "$work/sandbox.out" ] && break; sleep 0.1; done
  KUBECONFIG=$(head -1 "$work/sandbox.out")
  export KUBECONFIG
  [ -f "$KUBECONFIG" ] || fail "respool-sandbox wrote no kubeconfig"
}

# wait_pool_running NAME: the pool's phase is Running within 30 s, else the test fails.
wait_pool_running() {
  for _ in $(seq 300); do
    [ "$(k get rp "$1" -o jsonpath='{.status.phase}')" = Running ] && return 0
    sleep 0.1
  done
  fail "pool $1 is not Running: $(k get rp "$1" -o jsonpath='{.status}' 2>&1)"
}

# install_api: the CRDs of crds/ (established) and the operator's namespace.
install_api() {
  k apply -f "$src/crds/" >/dev/null
  k wait --for condition=established --timeout=30s crd --all >/dev/null
  k apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: respool-system}
YAML
}

# start_operator CATALOG: the operator in the background against the sandbox, one more run each
# call ($run counts them; its log operator-$run.log, its audit audit-$run.jsonl), its pid in
# $operator. For the scripts that kill it and start it again.
run=0
start_operator() {
  run=$((run + 1))
  "$build/respool-operator" --kubeconfig "$KUBECONFIG" --catalog "$1" \
    --metrics-bind-address 0 --health-probe-bind-address 0 --log-format json \
    --audit-log "$work/audit-$run.jsonl" >"$work/operator-$run.log" 2>&1 &
  operator=$!
  track "$operator"
}
