{{/*
Selector labels. They end up in Deployment selectors, which are immutable: never add to them.
*/}}
{{- define "platform-lib.selectorLabels" -}}
app.kubernetes.io/name: {{ include "platform-lib.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Labels every object of an application chart carries. "part-of" groups the platform's objects in
cost reports and dashboards.
*/}}
{{- define "platform-lib.labels" -}}
helm.sh/chart: {{ include "platform-lib.chart" . }}
{{ include "platform-lib.selectorLabels" . }}
{{- with .Chart.AppVersion }}
app.kubernetes.io/version: {{ . | quote }}
{{- end }}
app.kubernetes.io/part-of: platform
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.team }}
platform.example.com/team: {{ . }}
{{- end }}
{{- end }}
