{{/* The chart's name, or nameOverride. */}}
{{- define "respool.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The name of the release's objects: fullnameOverride, else the release name when it contains the
chart's name, else "<release>-<chart>". Truncated to 63 characters (a DNS label).
*/}}
{{- define "respool.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The labels every object carries (the app.kubernetes.io recommended labels). */}}
{{- define "respool.labels" -}}
{{ include "respool.componentLabels" (dict "root" . "component" "operator") }}
{{- end }}

{{/* respool.labels with another component: (dict "root" $ "component" NAME). */}}
{{- define "respool.componentLabels" -}}
{{- $root := .root -}}
helm.sh/chart: {{ printf "%s-%s" $root.Chart.Name $root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "respool.selectorLabels" $root }}
app.kubernetes.io/version: {{ $root.Chart.AppVersion | quote }}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/part-of: respool
app.kubernetes.io/managed-by: {{ $root.Release.Service }}
{{- with $root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The labels that select the operator's pods: never change them in an upgrade. */}}
{{- define "respool.selectorLabels" -}}
app.kubernetes.io/name: {{ include "respool.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "respool.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "respool.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* repository:tag, or repository@digest when a digest is given. The tag defaults to appVersion. */}}
{{- define "respool.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The leader-election Lease's name. */}}
{{- define "respool.leaseName" -}}
{{- default (printf "%s-leader" (include "respool.fullname" .)) .Values.leaderElection.leaseName }}
{{- end }}

{{/*
topologySpreadConstraints with the operator's selector labels filled in where a constraint names
no labelSelector, so that values need not repeat the release's labels.
*/}}
{{- define "respool.topologySpreadConstraints" -}}
{{- $selector := dict "matchLabels" (include "respool.selectorLabels" . | fromYaml) }}
{{- $out := list }}
{{- range .Values.topologySpreadConstraints }}
{{- $c := deepCopy . }}
{{- if not (hasKey $c "labelSelector") }}
{{- $_ := set $c "labelSelector" $selector }}
{{- end }}
{{- $out = append $out $c }}
{{- end }}
{{- toYaml $out }}
{{- end }}

{{/* Whole seconds of a Go duration made of h, m and s parts ("1m30s" -> 90). */}}
{{- define "respool.durationSeconds" -}}
{{- $total := 0 }}
{{- range regexFindAll "[0-9]+[hms]" . -1 }}
{{- $n := trimSuffix "h" (trimSuffix "m" (trimSuffix "s" .)) | int }}
{{- if hasSuffix "h" . }}{{ $n = mul $n 3600 }}{{ else if hasSuffix "m" . }}{{ $n = mul $n 60 }}{{ end }}
{{- $total = add $total $n }}
{{- end }}
{{- $total }}
{{- end }}

{{/* respool-node-agent: its objects' name, labels and selector (a name of its own, so that the
operator's Service, PodDisruptionBudget and Deployment never select the agent's pods). */}}
{{- define "respool.agentName" -}}
{{- printf "%s-node-agent" (include "respool.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "respool.agentSelectorLabels" -}}
app.kubernetes.io/name: {{ printf "%s-node-agent" (include "respool.name" .) | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "respool.agentLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "respool.agentSelectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: node-agent
app.kubernetes.io/part-of: respool
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The agent's image: the operator's (both binaries are in it) unless nodeAgent.image says. */}}
{{- define "respool.agentImage" -}}
{{- $repository := default .Values.image.repository .Values.nodeAgent.image.repository }}
{{- $digest := default .Values.image.digest .Values.nodeAgent.image.digest }}
{{- if $digest }}
{{- printf "%s@%s" $repository $digest }}
{{- else }}
{{- printf "%s:%s" $repository (default (default .Chart.AppVersion .Values.image.tag) .Values.nodeAgent.image.tag) }}
{{- end }}
{{- end }}

{{/* Every isolation code of RULES.md's table: the agent tolerates them all, so that it keeps
reporting on a node respool isolated (and sees it heal). */}}
{{- define "respool.isolationCodes" -}}
A050101 A050102 A050103 A050104 A050148 A050109 A050147 A050121 A050122 A050123 A050129 A050149 A050951 A050146 A050202 A050203 A050206 A050801 A050802 A200001 A200002 A200008 A050933 A050931 A050932
{{- end }}

{{/*
What a secure /metrics asks the API server of each request it has not cached: who holds the
bearer token (a TokenReview) and whether that user may get /metrics (a SubjectAccessReview).
*/}}
{{- define "respool.metricsReviewRules" -}}
# Secure /metrics (metrics.secure): each scraper's bearer token is reviewed (TokenReview) and its
# right to get /metrics asked (SubjectAccessReview), at most once a metrics.authCacheTTL.
- apiGroups: [authentication.k8s.io]
  resources: [tokenreviews]
  verbs: [create]
- apiGroups: [authorization.k8s.io]
  resources: [subjectaccessreviews]
  verbs: [create]
{{- end }}

{{/* The metrics port's name: https-metrics when metrics.secure, else http-metrics. */}}
{{- define "respool.metricsPortName" -}}
{{- if .Values.metrics.secure }}https-metrics{{ else }}http-metrics{{ end }}
{{- end }}

{{/* The ServiceAccount whose token the chart's ServiceMonitor and PodMonitor scrape with. */}}
{{- define "respool.metricsScraperName" -}}
{{- printf "%s-metrics-scraper" (include "respool.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The ClusterRole that may get /metrics. */}}
{{- define "respool.metricsReaderName" -}}
{{- printf "%s-metrics-reader" (include "respool.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Whether the chart's monitors scrape with the scraper's token: secure metrics and a ServiceMonitor
or the agents' PodMonitor rendered.
*/}}
{{- define "respool.metricsScraperNeeded" -}}
{{- if and .Values.metrics.secure (or .Values.serviceMonitor.enabled (and .Values.nodeAgent.enabled .Values.nodeAgent.podMonitor.enabled)) }}true{{ end }}
{{- end }}

{{/*
How the chart's monitors reach a secure /metrics: HTTPS, the scraper's token, and the certificate
verified with CA (a Secret's ca.crt) and SERVER, or not at all when it is self-signed.
Arguments: (dict "root" $ "certSecret" NAME "serverName" SERVER).
*/}}
{{- define "respool.metricsScrapeAuth" -}}
{{- if .root.Values.metrics.secure }}
scheme: https
authorization:
  type: Bearer
  credentials:
    name: {{ include "respool.metricsScraperName" .root }}-token
    key: token
tlsConfig:
  {{- if .certSecret }}
  ca:
    secret:
      name: {{ .certSecret }}
      key: ca.crt
  {{- with .serverName }}
  serverName: {{ . }}
  {{- end }}
  {{- else }}
  # The certificate is self-signed at start (no metrics certSecret): nothing to verify it by.
  insecureSkipVerify: true
  {{- end }}
{{- end }}
{{- end }}
