#!/bin/sh
# The Web UI server, configured from the variables the public temporalio/ui image reads
# (TEMPORAL_ADDRESS, TEMPORAL_CORS_ORIGINS, TEMPORAL_UI_PORT), as startup/cluster/temporal-ui.ts does.
set -eu
: "${TEMPORAL_ADDRESS:?}" "${TEMPORAL_UI_PORT:=8080}" "${TEMPORAL_CORS_ORIGINS:=}" "${TEMPORAL_DEFAULT_NAMESPACE:=default}"
dir="$(mktemp -d)"
mkdir -p "$dir/config"
{
  printf 'temporalGrpcAddress: "%s"\nhost: 0.0.0.0\nport: %s\nenableUi: true\n' "$TEMPORAL_ADDRESS" "$TEMPORAL_UI_PORT"
  printf 'defaultNamespace: "%s"\nnotifyOnNewVersion: false\nrefreshInterval: 1m\nauth:\n  enabled: false\n' "$TEMPORAL_DEFAULT_NAMESPACE"
  printf 'cors:\n  cookieInsecure: true\n  allowOrigins:\n'
  for origin in $(echo "$TEMPORAL_CORS_ORIGINS" | tr ',' ' '); do printf '    - "%s"\n' "$origin"; done
} >"$dir/config/docker.yaml"
exec temporal-ui-server --root "$dir" --config config --env docker start
