{{/*
A Deployment for the chart's single container, built from the conventional values.
Call it with a dict:
  context         the chart's root context (.)
  podAnnotations  optional extra pod annotations, e.g. checksums of the chart's ConfigMap and
                  Secret so that a change to them rolls the pods
*/}}
{{- define "platform-lib.deployment" -}}
{{- $ctx := .context }}
{{- $values := $ctx.Values }}
{{- $podAnnotations := merge (dict) ($values.podAnnotations | default dict) (.podAnnotations | default dict) }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "platform-lib.fullname" $ctx }}
  labels:
    {{- include "platform-lib.labels" $ctx | nindent 4 }}
spec:
  {{- if not $values.autoscaling.enabled }}
  replicas: {{ $values.replicaCount }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "platform-lib.selectorLabels" $ctx | nindent 6 }}
  template:
    metadata:
      {{- with $podAnnotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      labels:
        {{- include "platform-lib.labels" $ctx | nindent 8 }}
    spec:
      serviceAccountName: {{ include "platform-lib.serviceAccountName" $ctx }}
      {{- with $values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- include "platform-lib.podSecurityContext" $ctx | nindent 8 }}
      containers:
        - name: {{ $ctx.Chart.Name }}
          image: "{{ $values.image.repository }}:{{ $values.image.tag | default $ctx.Chart.AppVersion }}"
          imagePullPolicy: {{ $values.image.pullPolicy }}
          securityContext:
            {{- include "platform-lib.containerSecurityContext" $ctx | nindent 12 }}
          ports:
            - name: http
              containerPort: {{ $values.containerPort }}
              protocol: TCP
          {{- with $values.env }}
          env:
            {{- tpl (toYaml .) $ctx | nindent 12 }}
          {{- end }}
          {{- with $values.envFrom }}
          envFrom:
            {{- tpl (toYaml .) $ctx | nindent 12 }}
          {{- end }}
          livenessProbe:
            httpGet:
              path: {{ $values.probes.liveness.path }}
              port: http
            initialDelaySeconds: 10
            periodSeconds: 10
          readinessProbe:
            httpGet:
              path: {{ $values.probes.readiness.path }}
              port: http
            periodSeconds: 5
          resources:
            {{- include "platform-lib.resources" $ctx | nindent 12 }}
          {{- with $values.volumeMounts }}
          volumeMounts:
            {{- toYaml . | nindent 12 }}
          {{- end }}
      {{- with $values.volumes }}
      volumes:
        {{- tpl (toYaml .) $ctx | nindent 8 }}
      {{- end }}
      {{- with $values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $values.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}
