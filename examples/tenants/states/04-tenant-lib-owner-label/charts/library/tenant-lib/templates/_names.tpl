{{/*
The tenant of a release: its name without the "tenant-" prefix. Every release of the platform is
named tenant-<tenant>; anything else is a mistake the platform refuses.
*/}}
{{- define "tenant-lib.tenant" -}}
{{- if not (hasPrefix "tenant-" .Release.Name) -}}
{{- fail "release name should start with tenant-" -}}
{{- end -}}
{{- $tenant := trimPrefix "tenant-" .Release.Name -}}
{{- if eq $tenant "default" -}}
{{- fail "'default' is not a valid tenant identifier" -}}
{{- end -}}
{{- $tenant -}}
{{- end -}}

{{- define "tenant-lib.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
platform.example.com/tenant: {{ include "tenant-lib.tenant" . }}
app.kubernetes.io/managed-by: tenant-platform
{{- end -}}

{{- define "tenant-lib.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
