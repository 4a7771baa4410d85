#!/usr/bin/env bash
# kubectl's generators (`kubectl create <kind>`, `run`, `expose`) send protobuf bodies. Each
# command is run twice against a bare respool-sandbox: as is (protobuf), and as
# `--dry-run=client -o json` piped to `kubectl create -f -` (JSON) under another name. Both
# objects must come out the same (server-set fields aside). Then what else kubectl sends as
# protobuf: `create token` (a
# TokenRequest, whose token then authenticates), `auth can-i` (SelfSubjectAccessReview, also
# impersonating), `auth whoami` (SelfSubjectReview).
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

checked=0
# same RESOURCE NAME kubectl-args... (NAME is replaced by the object's name)
same() {
  local resource=$1 name=$2
  shift 2
  local args=("$@") json_args=()
  for a in "${args[@]}"; do json_args+=("${a//NAME/$name-json}"); done
  for i in "${!args[@]}"; do args[i]=${args[i]//NAME/$name}; done
  k -n team-a "${args[@]}" >"$work/create.out" 2>&1 || fail "kubectl ${args[*]}: $(cat "$work/create.out")"
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
  k -n team-a "${dry[@]}" >"$work/obj.json" || fail "dry-run ${json_args[*]}"
  k create -f "$work/obj.json" -n team-a >/dev/null || fail "create -f of ${json_args[*]}"
  k get "$resource" "$name" -n team-a -o json | normalize "$name" >"$work/pb.json"
  k get "$resource" "$name-json" -n team-a -o json | normalize "$name-json" >"$work/js.json"
  diff "$work/js.json" "$work/pb.json" >"$work/diff" ||
    fail "$resource: protobuf and JSON bodies differ: $(cat "$work/diff")"
  checked=$((checked + 1))
}

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/tls.key" -out "$work/tls.crt" \
  -days 1 -subj /CN=web >/dev/null 2>&1

same configmaps zzcfg create configmap NAME --from-literal=mode=fast --from-literal=level=3
same secrets zzgen create secret generic NAME --from-literal=user=admin --from-literal=password='s3=t!'
same secrets zztls create secret tls NAME --cert="$work/tls.crt" --key="$work/tls.key"
same secrets zzreg create secret docker-registry NAME --docker-server=r.example.com --docker-username=u \
  --docker-password=p
same serviceaccounts zzbuilder create serviceaccount NAME
same deployments zzweb create deployment NAME --image=nginx:1.27 --replicas=3 --port=80
same services zzcip create service clusterip NAME --tcp=80:8080
same services zznp create service nodeport NAME --tcp=443:8443
same jobs zzonce create job NAME --image=busybox:1.36 -- sh -c 'echo hello'
same cronjobs zznightly create cronjob NAME --image=busybox:1.36 --schedule='0 3 * * *' -- date
same poddisruptionbudgets zzpdb create poddisruptionbudget NAME --selector=app=web --max-unavailable=25%
same roles zzreader create role NAME --verb=get,list --resource=pods
same rolebindings zzreaders create rolebinding NAME --role=zzreader --user=alice
same clusterroles zzviewer create clusterrole NAME --verb=get --resource=nodes
same clusterroles zzaggregate create clusterrole NAME --aggregation-rule=team=viewers
same jobs zzmanual create job NAME --from=cronjob/zznightly
same resourcequotas zzquota create quota NAME --hard=pods=10,requests.cpu=4
same priorityclasses zzhigh create priorityclass NAME --value=1000 --description=important
same ingresses zzweb create ingress NAME --rule='web.example.com/=web:80'
same clusterrolebindings zzops create clusterrolebinding NAME --clusterrole=zzviewer --group=ops
same services zzlb create service loadbalancer NAME --tcp=80:8080
same services zzext create service externalname NAME --external-name=db.example.com
same pods zzrun run NAME --image=busybox:1.36 --labels=app=run --env=MODE=fast --port=8080 \
  -- sleep 3600
same services zzexposed expose deployment zzweb --name=NAME --port=8080 --target-port=80

# TokenRequest: the token names the ServiceAccount.
token=$(k -n team-a create token zzbuilder --duration=10m) || fail "create token"
who=$(k --token="$token" auth whoami -o jsonpath='{.status.userInfo.username}') ||
  fail "whoami with the ServiceAccount's token"
[ "$who" = system:serviceaccount:team-a:zzbuilder ] || fail "token of $who"
# SelfSubjectAccessReview, as the admin and impersonating the user bound to zzreader.
[ "$(k -n team-a auth can-i create deployments.apps)" = yes ] || fail "can-i as the admin"
[ "$(k -n team-a auth can-i list pods --as=alice)" = yes ] || fail "can-i list pods as alice"
[ "$(k -n team-a auth can-i delete pods --as=alice 2>/dev/null)" = no ] || fail "can-i delete as alice"
[ "$(k auth whoami -o jsonpath='{.status.userInfo.username}')" = sandbox-admin ] || fail "whoami"

# kubectl delete: DeleteOptions in the body.
k delete configmap zzcfg -n team-a >/dev/null || fail "delete"
echo "protobuf and JSON bodies gave the same objects for $checked commands"
