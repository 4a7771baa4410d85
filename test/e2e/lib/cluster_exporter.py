#!/usr/bin/env python3
"""Stand-in for a cluster's cAdvisor, kube-state-metrics and node-exporter in the sandbox, which has none
(used by test/e2e/prometheus_metrics.sh). Lists the sandbox's pods and nodes with kubectl (its
KUBECONFIG) once a second and serves, on 127.0.0.1:PORT,

  /metrics/cadvisor            for each running pod's container: container_cpu_usage_seconds_total
                               growing at a known rate since the exporter started (0.25 cores ×
                               (index + 1) for worker <index> of an Indexed Job, 0.1 otherwise),
                               container_memory_working_set_bytes ((index + 1) × 256 MiB, 64 MiB
                               otherwise); the pod's own cgroup (container "") as cAdvisor has it,
                               and the pod's network (1000 B/s received on eth0)
  /metrics/kube-state-metrics  kube_pod_info, kube_pod_labels (batch.kubernetes.io/job-name and
                               job-completion-index allowed, as docs/metrics.md asks of a cluster's
                               kube-state-metrics), kube_node_labels (respool.io/pool allowed) and
                               kube_pod_container_resource_limits (cpu in cores, memory in bytes)
  /metrics/node-exporter       for each node, as its own node-exporter would (instance
                               "<node>:9100": scrape it with honor_labels): node_uname_info, two
                               CPUs each busy half the time (node_cpu_seconds_total, user and
                               idle), 16 GiB of memory of which 4 GiB available

Usage: cluster_exporter.py PORT
"""
import http.server
import json
import subprocess
import sys
import threading
import time

START = time.time()
state = {"pods": [], "nodes": []}
lock = threading.Lock()


def refresh():
    while True:
        try:
            out = subprocess.run(["kubectl", "get", "pods,nodes", "-A", "-o", "json"],
                                 capture_output=True, check=True, timeout=20).stdout
            items = json.loads(out)["items"]
            with lock:
                state["pods"] = [i for i in items if i["kind"] == "Pod"]
                state["nodes"] = [i for i in items if i["kind"] == "Node"]
        except Exception as e:  # the next round tries again
            print("refresh:", e, file=sys.stderr, flush=True)
        time.sleep(1)


def index_of(pod):
    meta = pod["metadata"]
    key = "batch.kubernetes.io/job-completion-index"
    value = meta.get("labels", {}).get(key) or meta.get("annotations", {}).get(key)
    return int(value) if value is not None else None


def cpu_rate(pod):
    i = index_of(pod)
    return 0.25 * (i + 1) if i is not None else 0.1


def working_set(pod):
    i = index_of(pod)
    return (i + 1) * 256 * 2**20 if i is not None else 64 * 2**20


def quantity(q):
    units = {"m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40,
             "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
    for suffix in sorted(units, key=len, reverse=True):
        if q.endswith(suffix):
            return float(q[:-len(suffix)]) * units[suffix]
    return float(q)


def labels(**kv):
    return "{" + ",".join('%s="%s"' % (k, str(v).replace('"', '\\"')) for k, v in kv.items()) + "}"


def cadvisor():
    now = time.time() - START
    lines = []
    with lock:
        pods = [p for p in state["pods"] if p.get("status", {}).get("phase") == "Running"]
    for p in pods:
        ns, name = p["metadata"]["namespace"], p["metadata"]["name"]
        containers = [c["name"] for c in p["spec"]["containers"]]
        for c in containers:
            l = labels(namespace=ns, pod=name, container=c, cpu="total")
            lines.append("container_cpu_usage_seconds_total%s %.6f" % (l, cpu_rate(p) * now))
            l = labels(namespace=ns, pod=name, container=c)
            lines.append("container_memory_working_set_bytes%s %d" % (l, working_set(p)))
        # the pod's cgroup: every container's together
        l = labels(namespace=ns, pod=name, container="", cpu="total")
        lines.append("container_cpu_usage_seconds_total%s %.6f" % (l, len(containers) * cpu_rate(p) * now))
        l = labels(namespace=ns, pod=name, container="", interface="eth0")
        lines.append("container_network_receive_bytes_total%s %.3f" % (l, 1000 * now))
    return "\n".join(lines) + "\n"


def kube_state_metrics():
    lines = []
    with lock:
        pods, nodes = list(state["pods"]), list(state["nodes"])
    for n in nodes:
        pool = n["metadata"].get("labels", {}).get("respool.io/pool")
        kv = {"node": n["metadata"]["name"]}
        if pool:
            kv["label_respool_io_pool"] = pool
        lines.append("kube_node_labels%s 1" % labels(**kv))
    for p in pods:
        meta, spec = p["metadata"], p["spec"]
        ns, name = meta["namespace"], meta["name"]
        node = spec.get("nodeName", "")
        lines.append("kube_pod_info%s 1" % labels(namespace=ns, pod=name, node=node, uid=meta["uid"]))
        kv = {"namespace": ns, "pod": name}
        job = meta.get("labels", {}).get("batch.kubernetes.io/job-name")
        if job:
            kv["label_batch_kubernetes_io_job_name"] = job
        if index_of(p) is not None:
            kv["label_batch_kubernetes_io_job_completion_index"] = index_of(p)
        lines.append("kube_pod_labels%s 1" % labels(**kv))
        for c in spec["containers"]:
            for resource, unit in (("cpu", "core"), ("memory", "byte")):
                q = c.get("resources", {}).get("limits", {}).get(resource)
                if q is not None:
                    l = labels(namespace=ns, pod=name, container=c["name"], node=node,
                               resource=resource, unit=unit)
                    lines.append("kube_pod_container_resource_limits%s %s" % (l, quantity(q)))
    return "\n".join(lines) + "\n"


def node_exporter():
    now = time.time() - START
    lines = []
    with lock:
        nodes = list(state["nodes"])
    for n in nodes:
        name = n["metadata"]["name"]
        instance = name + ":9100"
        lines.append("node_uname_info%s 1" % labels(instance=instance, nodename=name, sysname="Linux"))
        for cpu in ("0", "1"):
            for mode in ("idle", "user"):
                lines.append("node_cpu_seconds_total%s %.6f" % (labels(instance=instance, cpu=cpu, mode=mode), 0.5 * now))
        lines.append("node_memory_MemTotal_bytes%s %d" % (labels(instance=instance), 16 * 2**30))
        lines.append("node_memory_MemAvailable_bytes%s %d" % (labels(instance=instance), 4 * 2**30))
    return "\n".join(lines) + "\n"


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        pages = {"/metrics/cadvisor": cadvisor, "/metrics/kube-state-metrics": kube_state_metrics,
                 "/metrics/node-exporter": node_exporter}
        if self.path not in pages:
            self.send_error(404)
            return
        body = pages[self.path]().encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    threading.Thread(target=refresh, daemon=True).start()
    http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
