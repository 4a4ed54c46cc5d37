{{/*
Container resources: the chart's .Values.resources merged over the platform defaults.
A chart that sets only requests.cpu keeps the default memory request and limit.
*/}}
{{- define "platform-lib.resources" -}}
{{- $defaults := dict "requests" (dict "cpu" "100m" "memory" "128Mi") "limits" (dict "memory" "256Mi") }}
{{- toYaml (mergeOverwrite $defaults (deepCopy (.Values.resources | default dict))) }}
{{- end }}
