#!/usr/bin/env bash
# kubectl's generators (`kubectl create <kind>`) send protobuf bodies. Each command is run
# twice against a bare respool-sandbox: as is (protobuf), and as `--dry-run=client -o json`
# piped to `kubectl create -f -` (JSON) under another name. Both objects must come out the same
# (server-set fields aside). Kinds the sandbox does not serve yet are skipped, and named.
set -euo pipefail
build=$1
src=$2
source "$src/test/e2e/lib/sandbox.bash"

start_sandbox --no-simulator
k create namespace team-a >/dev/null || fail "create namespace"
[ "$(k get namespace team-a -o jsonpath='{.status.phase}')" = Active ] || fail "namespace phase"

# What the server sets, and the name the two copies differ in, left out of the comparison.
normalize() {
  jq --arg name "$1" 'del(.metadata.uid, .metadata.resourceVersion, .metadata.creationTimestamp,
      .metadata.generation, .metadata.managedFields, .spec.clusterIP, .spec.clusterIPs,
      .spec.ports[]?.nodePort, .spec.selector["batch.kubernetes.io/controller-uid"],
      .spec.template.metadata.labels["batch.kubernetes.io/controller-uid"],
      .spec.template.metadata.labels["controller-uid"], .spec.selector.matchLabels["batch.kubernetes.io/controller-uid"],
      .spec.selector.matchLabels["controller-uid"], .status)
    | walk(if type == "string" then gsub($name; "NAME") else . end)'
}

served() { k api-resources --no-headers 2>/dev/null | awk '{print $1}' | grep -qx "$1"; }

checked=0
skipped=()
# same RESOURCE NAME create-args... (NAME is replaced by the object's name)
same() {
  local resource=$1 name=$2
  shift 2
  if ! served "$resource"; then
    skipped+=("$resource")
    return
  fi
  local args=("$@") json_args=()
  for a in "${args[@]}"; do json_args+=("${a//NAME/$name-json}"); done
  for i in "${!args[@]}"; do args[i]=${args[i]//NAME/$name}; done
  k -n team-a create "${args[@]}" >"$work/create.out" 2>&1 || fail "kubectl create ${args[*]}: $(cat "$work/create.out")"
  # The dry-run flags go before a command's "--" (jobs, cronjobs).
  local dry=() seen_dashes=0
  for a in "${json_args[@]}"; do
    if [ "$a" = -- ] && [ $seen_dashes = 0 ]; then
      dry+=(--dry-run=client -o json --)
      seen_dashes=1
    else
      dry+=("$a")
    fi
  done
  [ $seen_dashes = 1 ] || dry+=(--dry-run=client -o json)
  k -n team-a create "${dry[@]}" >"$work/obj.json" || fail "dry-run ${json_args[*]}"
  k create -f "$work/obj.json" -n team-a >/dev/null || fail "create -f of ${json_args[*]}"
  k get "$resource" "$name" -n team-a -o json | normalize "$name" >"$work/pb.json"
  k get "$resource" "$name-json" -n team-a -o json | normalize "$name-json" >"$work/js.json"
  diff "$work/js.json" "$work/pb.json" >"$work/diff" ||
    fail "$resource: protobuf and JSON bodies differ: $(cat "$work/diff")"
  checked=$((checked + 1))
}

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/tls.key" -out "$work/tls.crt" \
  -days 1 -subj /CN=web >/dev/null 2>&1

same configmaps zzcfg configmap NAME --from-literal=mode=fast --from-literal=level=3
same secrets zzgen secret generic NAME --from-literal=user=admin --from-literal=password='s3=t!'
same secrets zztls secret tls NAME --cert="$work/tls.crt" --key="$work/tls.key"
same secrets zzreg secret docker-registry NAME --docker-server=r.example.com --docker-username=u \
  --docker-password=p
same serviceaccounts zzbuilder serviceaccount NAME
same deployments zzweb deployment NAME --image=nginx:1.27 --replicas=3 --port=80
same services zzcip service clusterip NAME --tcp=80:8080
same services zznp service nodeport NAME --tcp=443:8443
same jobs zzonce job NAME --image=busybox:1.36 -- sh -c 'echo hello'
same cronjobs zznightly cronjob NAME --image=busybox:1.36 --schedule='0 3 * * *' -- date
same poddisruptionbudgets zzpdb poddisruptionbudget NAME --selector=app=web --max-unavailable=25%
same roles zzreader role NAME --verb=get,list --resource=pods
same rolebindings zzreaders rolebinding NAME --role=zzreader --user=alice
same clusterroles zzviewer clusterrole NAME --verb=get --resource=nodes
same resourcequotas zzquota quota NAME --hard=pods=10,requests.cpu=4
same priorityclasses zzhigh priorityclass NAME --value=1000 --description=important
same ingresses zzweb ingress NAME --rule='web.example.com/=web:80'

# DeleteOptions go as protobuf too.
k delete configmap zzcfg -n team-a >/dev/null || fail "delete"
echo "protobuf and JSON bodies gave the same objects for $checked commands"
[ ${#skipped[@]} -eq 0 ] || echo "not served yet, skipped: ${skipped[*]}"
[ $checked -ge 8 ] || fail "too few commands checked"
