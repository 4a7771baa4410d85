// A Go program on client-go's typed clients (protobuf bodies) against the sandbox: it creates,
// reads, updates, watches and deletes built-in objects and checks what comes back.
package main

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "golden" {
		if err := writeGolden(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) == 3 && os.Args[1] == "informers" {
		if err := informersRun(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: clientgo-check KUBECONFIG | clientgo-check golden DIR | clientgo-check informers KUBECONFIG")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("client-go: all checks passed")
}

func run(kubeconfig string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ns := "clientgo"
	created, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"team": "a"}}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create namespace: %w", err)
	}
	if created.Status.Phase != corev1.NamespaceActive || created.Labels["team"] != "a" {
		return fmt.Errorf("namespace came back as %+v", created)
	}
	if err := configMaps(ctx, cs, ns); err != nil {
		return err
	}
	if err := deployments(ctx, cs, ns); err != nil {
		return err
	}
	if err := pods(ctx, cs, ns); err != nil {
		return err
	}
	return cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
}

// expect reads the next event of w and checks its type and the object's name.
func expect(w watch.Interface, t watch.EventType, name string) (*corev1.ConfigMap, error) {
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			return nil, fmt.Errorf("watch closed, wanted %s %s", t, name)
		}
		cm, isCM := ev.Object.(*corev1.ConfigMap)
		if ev.Type != t || !isCM || cm.Name != name {
			return nil, fmt.Errorf("watch: got %s %#v, wanted %s %s", ev.Type, ev.Object, t, name)
		}
		return cm, nil
	case <-time.After(20 * time.Second):
		return nil, fmt.Errorf("watch: no %s event for %s", t, name)
	}
}

func configMaps(ctx context.Context, cs *kubernetes.Clientset, ns string) error {
	cms := cs.CoreV1().ConfigMaps(ns)
	w, err := cms.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("watch configmaps: %w", err)
	}
	defer w.Stop()
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "settings", Annotations: map[string]string{"note": "ü ok"}},
		Data:       map[string]string{"mode": "fast"},
		BinaryData: map[string][]byte{"blob": {0, 1, 2, 255}},
	}
	got, err := cms.Create(ctx, cm, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create configmap: %w", err)
	}
	if !reflect.DeepEqual(got.Data, cm.Data) || !reflect.DeepEqual(got.BinaryData, cm.BinaryData) ||
		got.Annotations["note"] != "ü ok" {
		return fmt.Errorf("configmap came back as %+v", got)
	}
	if _, err := expect(w, watch.Added, "settings"); err != nil {
		return err
	}
	got.Data["mode"] = "slow"
	updated, err := cms.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("update configmap: %w", err)
	}
	if updated.Data["mode"] != "slow" || updated.ResourceVersion == got.ResourceVersion {
		return fmt.Errorf("update answered %+v", updated)
	}
	if ev, err := expect(w, watch.Modified, "settings"); err != nil || ev.Data["mode"] != "slow" {
		return fmt.Errorf("modified event: %v %+v", err, ev)
	}
	if err := cms.Delete(ctx, "settings", metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete configmap: %w", err)
	}
	_, err = expect(w, watch.Deleted, "settings")
	return err
}

func deployments(ctx context.Context, cs *kubernetes.Clientset, ns string) error {
	replicas := int32(2)
	surge := intstr.FromString("25%")
	unavailable := intstr.FromInt32(0)
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Strategy: appsv1.DeploymentStrategy{
				Type:          appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name:  "nginx",
					Image: "nginx:1.27",
					Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 80}},
					Resources: corev1.ResourceRequirements{
						Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")},
						Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")},
					},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
						HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromString("http")}}},
				}}},
			},
		},
	}
	deps := cs.AppsV1().Deployments(ns)
	got, err := deps.Create(ctx, d, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create deployment: %w", err)
	}
	c := got.Spec.Template.Spec.Containers[0]
	switch {
	case *got.Spec.Replicas != 2:
		return fmt.Errorf("replicas %d", *got.Spec.Replicas)
	case got.Spec.Strategy.RollingUpdate.MaxSurge.String() != "25%" ||
		got.Spec.Strategy.RollingUpdate.MaxUnavailable.IntValue() != 0:
		return fmt.Errorf("strategy %+v", got.Spec.Strategy)
	case c.Resources.Limits.Cpu().String() != "500m" || c.Resources.Requests.Memory().String() != "64Mi":
		return fmt.Errorf("resources %+v", c.Resources)
	case c.ReadinessProbe.HTTPGet.Port.String() != "http" || c.Ports[0].ContainerPort != 80:
		return fmt.Errorf("container %+v", c)
	case got.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyAlways:
		return fmt.Errorf("not defaulted: %+v", got.Spec.Template.Spec)
	}
	got.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
	updated, err := deps.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("update deployment: %w", err)
	}
	if updated.Generation != got.Generation+1 {
		return fmt.Errorf("generation %d after %d", updated.Generation, got.Generation)
	}
	scale, err := deps.GetScale(ctx, "web", metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get scale: %w", err)
	}
	scale.Spec.Replicas = 5
	if _, err := deps.UpdateScale(ctx, "web", scale, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update scale: %w", err)
	}
	if again, err := deps.Get(ctx, "web", metav1.GetOptions{}); err != nil || *again.Spec.Replicas != 5 {
		return fmt.Errorf("after scale: %v %+v", err, again)
	}
	background := metav1.DeletePropagationBackground
	return deps.Delete(ctx, "web", metav1.DeleteOptions{PropagationPolicy: &background})
}

func pods(ctx context.Context, cs *kubernetes.Clientset, ns string) error {
	grace := int64(5)
	deadline := int64(600)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "worker", Labels: map[string]string{"role": "worker"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "main", Image: "busybox:1.36", Command: []string{"sleep", "3600"},
				Env: []corev1.EnvVar{{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{
					FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
			}},
			TerminationGracePeriodSeconds: &grace,
			ActiveDeadlineSeconds:         &deadline,
			NodeSelector:                  map[string]string{"kubernetes.io/os": "linux"},
			Tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual,
				Value: "gpu", Effect: corev1.TaintEffectNoSchedule}},
			Volumes: []corev1.Volume{{Name: "cfg", VolumeSource: corev1.VolumeSource{
				ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}}}}},
		},
	}
	podsAPI := cs.CoreV1().Pods(ns)
	got, err := podsAPI.Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create pod: %w", err)
	}
	switch {
	case *got.Spec.TerminationGracePeriodSeconds != 5 || *got.Spec.ActiveDeadlineSeconds != 600:
		return fmt.Errorf("pod spec %+v", got.Spec)
	case got.Spec.Volumes[0].ConfigMap == nil || got.Spec.Volumes[0].ConfigMap.Name != "settings":
		return fmt.Errorf("volumes %+v", got.Spec.Volumes)
	case got.Spec.Containers[0].Env[0].ValueFrom.FieldRef.FieldPath != "metadata.name":
		return fmt.Errorf("env %+v", got.Spec.Containers[0].Env)
	case got.Spec.Tolerations[0].Value != "gpu" || got.Status.Phase != corev1.PodPending:
		return fmt.Errorf("pod %+v", got)
	}
	list, err := podsAPI.List(ctx, metav1.ListOptions{LabelSelector: "role=worker"})
	if err != nil || len(list.Items) != 1 {
		return fmt.Errorf("list pods: %v %d", err, len(list.Items))
	}
	now := int64(0)
	return podsAPI.Delete(ctx, "worker", metav1.DeleteOptions{GracePeriodSeconds: &now})
}
