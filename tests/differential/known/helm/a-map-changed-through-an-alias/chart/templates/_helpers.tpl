{{- define "touch" -}}
{{- $labels := .extra | default dict -}}
{{- $_ := set $labels "app" "server" -}}
{{- end -}}
