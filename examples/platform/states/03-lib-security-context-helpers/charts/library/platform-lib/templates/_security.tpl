{{/*
The platform's pod security context: a fixed non-root user and the runtime's default seccomp
profile, as the "restricted" Pod Security Standard requires.
*/}}
{{- define "platform-lib.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/*
The platform's container security context: no privilege escalation, no capabilities and a
read-only root filesystem (mount an emptyDir where the process must write).
*/}}
{{- define "platform-lib.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop:
    - ALL
{{- end }}
