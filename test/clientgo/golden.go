package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
)

// writeGolden writes NAME.pb (the protobuf body client-go sends) and NAME.json (encoding/json
// of the same object) for objects as a busy cluster holds them: the decoder's test data; and
// unknown-fields.json, what the strict JSON decoder says of bodies with unknown fields.
func writeGolden(dir string) error {
	objects := map[string]runtime.Object{"pod-running": runningPod(), "lease": lease()}
	for name, obj := range objects {
		gvks, _, err := scheme.Scheme.ObjectKinds(obj)
		if err != nil {
			return err
		}
		obj.GetObjectKind().SetGroupVersionKind(gvks[0])
		var pb bytes.Buffer
		if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(obj, &pb); err != nil {
			return err
		}
		js, err := json.MarshalIndent(obj, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name+".pb"), pb.Bytes(), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name+".json"), append(js, '\n'), 0o644); err != nil {
			return err
		}
	}
	return writeStrict(filepath.Join(dir, "unknown-fields.json"))
}

// JSON bodies with fields their Go types do not have, at every depth and through inline
// structs, maps, slices, embedded TypeMeta and custom encodings.
var strictBodies = []string{
	`{"apiVersion":"apps/v1","kind":"Deployment","extra":1,"metadata":{"labelz":{"a":"b"},"name":"web"},
	  "spec":{"replicaz":2,"selector":{"matchLabels":{"app":"web"}},
	  "strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":1},"type":"RollingUpdate"},
	  "template":{"kind":"PodTemplate","metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx","name":"web","portz":[80],
	  "resources":{"limits":{"cpu":"1"},"requestz":{}}},{"env":[{"name":"A","valueFrom":{"fieldRef":{"fieldPath":"status.podIP","bogus":true}}}],"name":"side"}]}}}}`,
	`{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db"},
	  "spec":{"selector":{"matchLabels":{"app":"db"}},"serviceName":"db","template":{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"image":"pg","name":"pg"}]}},
	  "volumeClaimTemplates":[{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data","bogus":1},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"sizeGB":1}}]}}`,
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[{"fieldsV1":{"f:data":{}},"manager":"m","what":1}]},"data":{"a":"1"},"dataa":{"b":"2"}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"busybox","Image":"x"}],
	  "volumes":[{"name":"v","configMap":{"name":"cm","bogus":"x","items":[{"key":"k","path":"p","mode2":1}]}}],"overhead":{"cpu":"1"},"nodeSelector":{"x":"y"}}}`,
	`{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"csr"},
	  "spec":{"request":"eA==","signerName":"a/b","extra":{"k":["v"]},"usages":["digital signature"],"bogus":{}}}`,
	`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"r"},"rules":[{"verbs":["get"],"resources":["pods"],"apiGroups":[""],"resourceName":["x"]}],
	  "aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"a":"b"},"matchLabelz":{}}]}}`,
	`{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"cj"},"spec":{"schedule":"* * * * *","jobTemplate":{"metadata":{"labels":{"a":"b"}},"spec":{"template":{"spec":{"containers":[{"name":"c","image":"i"}],"restartPolicy":"Never"}},"backoffLimitt":1}}}}`,
}

// writeStrict writes what apimachinery's strict JSON decoder (the API server's, for
// fieldValidation=Strict) answers for each of strictBodies.
func writeStrict(path string) error {
	decoder := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme.Scheme, scheme.Scheme,
		kjson.SerializerOptions{Strict: true})
	type result struct {
		Body  json.RawMessage `json:"body"`
		Error string          `json:"error"`
	}
	var results []result
	for _, body := range strictBodies {
		// Keys sorted at every level, as kubectl sends them (maps through encoding/json).
		var object map[string]interface{}
		if err := json.Unmarshal([]byte(body), &object); err != nil {
			return err
		}
		sorted, err := json.Marshal(object)
		if err != nil {
			return err
		}
		_, _, err = decoder.Decode(sorted, nil, nil)
		if err == nil {
			return fmt.Errorf("no strict decoding error for %s", body)
		}
		results = append(results, result{sorted, err.Error()})
	}
	out, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(out, '\n'), 0o644)
}

func lease() *coordinationv1.Lease {
	holder := "respool-operator-7d9f"
	seconds := int32(15)
	transitions := int32(3)
	at := metav1.NewMicroTime(time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.UTC))
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "respool-operator-leader", Namespace: "respool-system"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &seconds,
			AcquireTime: &at, RenewTime: &at, LeaseTransitions: &transitions},
	}
}

// A pod of a Deployment as the scheduler and kubelet leave it: owner, managed fields,
// conditions, container statuses.
func runningPod() *corev1.Pod {
	t0 := metav1.NewTime(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(time.Date(2025, 3, 1, 12, 0, 7, 0, time.UTC))
	yes, no := true, false
	grace := int64(30)
	uid := int64(1000)
	prio := int32(0)
	policy := corev1.PreemptLowerPriority
	ready := corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: t1}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "web-6d4cf56db6-x7k2p", GenerateName: "web-6d4cf56db6-", Namespace: "team-a",
			UID: "5f3c1b2e-8a4d-4c7e-9b1a-2d3e4f5a6b7c", ResourceVersion: "184467",
			CreationTimestamp: t0,
			Labels: map[string]string{"app": "web", "pod-template-hash": "6d4cf56db6",
				"app.kubernetes.io/part-of": "shop", "tier": "frontend"},
			Annotations: map[string]string{"kubectl.kubernetes.io/restartedAt": "2025-03-01T11:59:00Z",
				"prometheus.io/scrape": "true", "prometheus.io/port": "9090"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet",
				Name: "web-6d4cf56db6", UID: "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d", Controller: &yes,
				BlockOwnerDeletion: &yes}},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager",
				Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &t0,
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`)}}},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "web", Image: "registry.example.com/shop/web:2.14.1",
				Args: []string{"--port=8080", "--metrics-port=9090", "--log-level=info"},
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
					{Name: "metrics", ContainerPort: 9090, Protocol: corev1.ProtocolTCP}},
				Env: []corev1.EnvVar{{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "status.podIP"}}},
					{Name: "CACHE_SIZE", Value: "256"}},
				Resources: corev1.ResourceRequirements{
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("512Mi")},
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("256Mi")}},
				VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/web", ReadOnly: true},
					{Name: "kube-api-access-abcde", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
				LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}},
					InitialDelaySeconds: 5, TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}},
					TimeoutSeconds: 1, PeriodSeconds: 5, SuccessThreshold: 1, FailureThreshold: 3},
				TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				ImagePullPolicy: corev1.PullIfNotPresent,
				SecurityContext: &corev1.SecurityContext{RunAsUser: &uid, RunAsNonRoot: &yes, AllowPrivilegeEscalation: &no,
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
			}},
			Volumes: []corev1.Volume{
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}}}},
				{Name: "kube-api-access-abcde", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
					{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}}}}}},
			},
			RestartPolicy: corev1.RestartPolicyAlways, TerminationGracePeriodSeconds: &grace,
			DNSPolicy: corev1.DNSClusterFirst, ServiceAccountName: "web", NodeName: "a100-az1-7",
			SecurityContext: &corev1.PodSecurityContext{FSGroup: &uid}, SchedulerName: "default-scheduler",
			Tolerations: []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &grace},
				{Key: "respool.io/pool", Operator: corev1.TolerationOpEqual, Value: "gpu-a", Effect: corev1.TaintEffectNoSchedule}},
			Priority: &prio, PreemptionPolicy: &policy, EnableServiceLinks: &yes,
			Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "respool.io/pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"gpu-a"}}}}}}}},
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning, HostIP: "10.0.1.17", PodIP: "10.244.3.21", StartTime: &t0,
			HostIPs: []corev1.HostIP{{IP: "10.0.1.17"}}, PodIPs: []corev1.PodIP{{IP: "10.244.3.21"}},
			QOSClass: corev1.PodQOSBurstable,
			Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: t0},
				{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: t0},
				{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: t1}, ready},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "web", Ready: true, Started: &yes, RestartCount: 0,
				Image: "registry.example.com/shop/web:2.14.1", ImageID: "registry.example.com/shop/web@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
				ContainerID: "containerd://4f6c2d1e9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d",
				State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: t1}}}},
		},
	}
}
