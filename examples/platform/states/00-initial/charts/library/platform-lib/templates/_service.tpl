{{/*
A Service in front of the container's "http" port.
*/}}
{{- define "platform-lib.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "platform-lib.fullname" . }}
  labels:
    {{- include "platform-lib.labels" . | nindent 4 }}
spec:
  type: {{ .Values.service.type }}
  ports:
    - name: http
      port: {{ .Values.service.port }}
      targetPort: http
      protocol: TCP
  selector:
    {{- include "platform-lib.selectorLabels" . | nindent 4 }}
{{- end }}
