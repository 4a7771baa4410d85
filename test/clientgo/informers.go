// informers KUBECONFIG: what a client-go operator holds to watch what respool watches. Shared
// informers (the way controller-runtime and kubebuilder operators cache) for every Node and Pod,
// the DaemonSets labelled app.kubernetes.io/managed-by=respool, and respool's Networks,
// ResourcePools and NodeOperations; it prints the time to sync them all and the process' RSS
// once synced, after a garbage collection, and its CPU time, for bench_scale's side-by-side
// ratios.
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

func informersRun(kubeconfig string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	// What a production operator sets: client-go's defaults (5 QPS) would make the list the
	// limiter's figure, not the cache's.
	cfg.QPS, cfg.Burst = 1000, 2000
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	all := informers.NewSharedInformerFactory(cs, 0)
	nodes := all.Core().V1().Nodes().Informer()
	pods := all.Core().V1().Pods().Informer()
	plugins := informers.NewSharedInformerFactoryWithOptions(cs, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.LabelSelector = "app.kubernetes.io/managed-by=respool"
		})).Apps().V1().DaemonSets().Informer()
	custom := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	synced := []cache.InformerSynced{nodes.HasSynced, pods.HasSynced, plugins.HasSynced}
	for _, r := range []string{"networks", "resourcepools", "nodeoperations"} {
		gvr := schema.GroupVersionResource{Group: "respool.io", Version: "v1alpha1", Resource: r}
		synced = append(synced, custom.ForResource(gvr).Informer().HasSynced)
	}
	go nodes.Run(ctx.Done())
	go pods.Run(ctx.Done())
	go plugins.Run(ctx.Done())
	custom.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return fmt.Errorf("caches did not sync")
	}
	seconds := time.Since(start).Seconds()
	runtime.GC()
	debug.FreeOSMemory()
	rss, err := rssKiB()
	if err != nil {
		return err
	}
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return err
	}
	cpu := time.Duration(usage.Utime.Nano() + usage.Stime.Nano()).Seconds()
	fmt.Printf("client-go: synced %d nodes and %d pods in %.2f s; RSS %d KiB; CPU %.2f s\n",
		len(nodes.GetStore().ListKeys()), len(pods.GetStore().ListKeys()), seconds, rss, cpu)
	return nil
}

func rssKiB() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			var kib int64
			_, err := fmt.Sscanf(strings.TrimSpace(rest), "%d", &kib)
			return kib, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/self/status")
}
