#!/usr/bin/env bash
# Two respool-operator processes with --leader-elect against respool-sandbox:
# - only the holder of the Lease reconciles (the other's reconcile counters stay at zero);
# - kill -9 of the leader: the other takes the Lease and reconciles within
#   leaseDuration + retryPeriod (plus the polling step of this script);
# - SIGTERM of a leader releases the Lease at once and the process exits 0.
# Usage: leader_election.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?build dir}
src=${2:?source dir}
source "$src/test/e2e/lib/sandbox.bash"
lease_s=4
retry_ms=500
now_ms() { date +%s%3N; }

start_sandbox --no-simulator
install_api

started=""
start_operator() { # start_operator NAME: in this shell (not a $(...) subshell), so wait works
  "$build/respool-operator" --kubeconfig "$KUBECONFIG" --catalog "$src/config/catalog.yaml" \
    --leader-elect --leader-election-namespace respool-system \
    --leader-election-lease-duration ${lease_s}s --leader-election-renew-deadline 3s \
    --leader-election-retry-period ${retry_ms}ms \
    --metrics-bind-address 127.0.0.1:0 --health-probe-bind-address 0 --log-format json \
    --audit-log "$work/audit-$1.jsonl" >"$work/$1.log" 2>&1 &
  started=$!
}
field_of_start() { # field_of_start NAME FIELD: a field of the operator's "starting" log line
  grep '"starting"' "$work/$1.log" | sed -n 1p | grep -o "\"$2\":[^,}]*" | cut -d: -f2- | tr -d '"'
}
holder() { k get lease -n respool-system respool-operator-leader -o jsonpath='{.spec.holderIdentity}' 2>/dev/null || true; }
reconciles() { # reconciles NAME: sum of controller_runtime_reconcile_total of the network controller
  local port
  port=$(field_of_start "$1" metricsPort)
  curl -s "http://127.0.0.1:$port/metrics" |
    awk '/^controller_runtime_reconcile_total\{controller="network"/ {s += $NF} END {print s + 0}'
}
network() { # network NAME CIDR
  k apply -f - >/dev/null <<EOF
apiVersion: respool.io/v1alpha1
kind: Network
metadata: {name: $1}
spec: {cidr: "$2"}
EOF
}
ready() { [ "$(k get network "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]; }
wait_for() { # wait_for SECONDS COMMAND...
  local deadline=$(($(now_ms) + $1 * 1000)); shift
  until "$@"; do
    [ "$(now_ms)" -lt "$deadline" ] || return 1
    sleep 0.1
  done
}

start_operator a; a=$started; track "$a"
start_operator b; b=$started; track "$b"
wait_for 20 bash -c "grep -q '\"starting\"' '$work/a.log' && grep -q '\"starting\"' '$work/b.log'" || fail "operators did not start"
id_a=$(field_of_start a identity)
id_b=$(field_of_start b identity)
[ "$id_a" != "$id_b" ] || fail "both operators have identity $id_a"
wait_for 20 bash -c "[ -n \"\$(kubectl --cache-dir='$work/cache' get lease -n respool-system respool-operator-leader -o jsonpath='{.spec.holderIdentity}' 2>/dev/null)\" ]" ||
  fail "nobody took the lease"
first=$(holder)
if [ "$first" = "$id_a" ]; then leader=a follower=b leader_pid=$a follower_pid=$b
elif [ "$first" = "$id_b" ]; then leader=b follower=a leader_pid=$b follower_pid=$a
else fail "lease held by unknown $first"; fi
echo "--- $leader leads ($first)"

echo "--- only the leader reconciles"
network net-1 10.20.0.0/16
wait_for 30 ready net-1 || fail "net-1 not Ready under the first leader"
[ "$(reconciles $leader)" -gt 0 ] || fail "the leader counted no reconcile"
[ "$(reconciles $follower)" -eq 0 ] || fail "the follower reconciled $(reconciles $follower) times"

echo "--- kill -9 of the leader"
t0=$(now_ms)
kill -9 "$leader_pid"
wait_for 30 bash -c "[ \"\$(kubectl --cache-dir='$work/cache' get lease -n respool-system respool-operator-leader -o jsonpath='{.spec.holderIdentity}')\" = '$( [ $follower = a ] && echo "$id_a" || echo "$id_b")' ]" ||
  fail "the follower did not take the lease"
seen=$(($(now_ms) - t0))
# When the new leader acquired, from the Lease itself (acquireTime, a MicroTime written by the
# operator on this machine's clock): the figure does not depend on how fast kubectl polls.
acquired=$(kubectl --cache-dir="$work/cache" get lease -n respool-system respool-operator-leader \
  -o jsonpath='{.spec.acquireTime}')
took=$(($(date -d "$acquired" +%s%3N) - t0))
network net-2 10.30.0.0/16
wait_for 30 ready net-2 || fail "net-2 not Ready under the new leader"
echo "takeover ${took} ms after the kill (lease ${lease_s}s + retry ${retry_ms}ms); seen by kubectl after ${seen} ms"
# The lease was renewed at most one retry period before the kill, so the follower acquires within
# lease + retry of it; 1 s more for a slow machine (sanitizers, a loaded CI).
[ "$took" -gt 0 ] || fail "acquireTime $acquired is before the kill"
[ "$took" -le $((lease_s * 1000 + retry_ms + 1000)) ] || fail "takeover took ${took} ms"
[ "$(reconciles $follower)" -gt 0 ] || fail "the new leader counted no reconcile"

echo "--- SIGTERM of the new leader releases the lease"
kill -TERM "$follower_pid"
t0=$(now_ms)
wait_for 10 bash -c "[ -z \"\$(kubectl --cache-dir='$work/cache' get lease -n respool-system respool-operator-leader -o jsonpath='{.spec.holderIdentity}')\" ]" ||
  fail "the lease was not released"
released=$(($(now_ms) - t0))
code=0
wait "$follower_pid" || code=$?
[ "$code" -eq 0 ] || fail "SIGTERM exit code $code"
echo "lease released ${released} ms after SIGTERM; exit code 0"
[ "$released" -lt $((lease_s * 1000)) ] || fail "release took ${released} ms, no faster than expiry"
echo "leader_election: all checks passed"
