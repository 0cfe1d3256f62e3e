{{- define "platform-api.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "platform-api.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "platform-api.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "platform-api.secretName" -}}
{{- default (printf "%s-secrets" (include "platform-api.fullname" .)) .Values.existingSecret -}}
{{- end -}}

{{- define "platform-api.image" -}}
{{ printf "%s:%s" .Values.image.repository .Values.image.tag | quote }}
{{- end -}}

{{/* The environment of every pod: settings from the ConfigMap, secrets from the Secret. */}}
{{- define "platform-api.env" -}}
envFrom:
  - configMapRef:
      name: {{ include "platform-api.fullname" . }}-env
env:
  {{- range $name := list "AUTH_JWT_SECRET" "CONFIG_ENCRYPTION_KEY" "DATABASE_URL" }}
  - name: {{ $name }}
    valueFrom:
      secretKeyRef:
        name: {{ include "platform-api.secretName" $ }}
        key: {{ $name }}
  {{- end }}
{{- end -}}

{{- define "platform-api.podCommon" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets: {{ toYaml . | nindent 2 }}
{{- end }}
securityContext: {{ toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.nodeSelector }}
nodeSelector: {{ toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations: {{ toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity: {{ toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
