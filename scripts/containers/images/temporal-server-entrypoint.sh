#!/bin/sh
# Writes the server's configuration from the variables the public temporalio/server image reads
# (DB, DB_PORT, POSTGRES_SEEDS, POSTGRES_USER, POSTGRES_PWD, DBNAME, VISIBILITY_DBNAME,
# NUM_HISTORY_SHARDS, DYNAMIC_CONFIG_FILE_PATH), the same settings startup/cluster/temporal-server.ts
# writes for `npm run start:cluster`, then runs the server (every service in one process).
set -eu
: "${DB:=postgres12}" "${DB_PORT:=5432}" "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${POSTGRES_PWD:?}"
: "${DBNAME:=temporal}" "${VISIBILITY_DBNAME:=temporal_visibility}" "${NUM_HISTORY_SHARDS:=4}"
: "${DYNAMIC_CONFIG_FILE_PATH:=/etc/temporal/config/dynamicconfig/docker.yaml}" "${LOG_LEVEL:=warn}"
[ -f "$DYNAMIC_CONFIG_FILE_PATH" ] || : >"$DYNAMIC_CONFIG_FILE_PATH"
config=/etc/temporal/config/docker.yaml
store() {
  cat <<YAML
      sql:
        pluginName: "$DB"
        databaseName: "$1"
        connectAddr: "$POSTGRES_SEEDS:$DB_PORT"
        connectProtocol: tcp
        user: "$POSTGRES_USER"
        password: "$POSTGRES_PWD"
        maxConns: $2
        maxIdleConns: $2
        maxConnLifetime: 1h
YAML
}
service() {
  printf '  %s:\n    rpc:\n      grpcPort: %s\n      membershipPort: %s\n      bindOnIP: 0.0.0.0\n' "$1" "$2" "$3"
  [ -z "${4:-}" ] || printf '      httpPort: %s\n' "$4"
}
umask 077
{
  printf 'log:\n  stdout: true\n  level: %s\n' "$LOG_LEVEL"
  printf 'persistence:\n  defaultStore: default\n  visibilityStore: visibility\n  numHistoryShards: %s\n  datastores:\n' "$NUM_HISTORY_SHARDS"
  printf '    default:\n'; store "$DBNAME" 10
  printf '    visibility:\n'; store "$VISIBILITY_DBNAME" 2
  # Every service runs in this one process: they find each other on loopback.
  printf 'global:\n  membership:\n    maxJoinDuration: 30s\n    broadcastAddress: 127.0.0.1\n'
  printf 'services:\n'
  service frontend 7233 6933 7243
  service history 7234 6934
  service matching 7235 6935
  service worker 7239 6939
  cat <<YAML
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: 127.0.0.1:7233
dcRedirectionPolicy:
  policy: noop
archival:
  history:
    state: disabled
  visibility:
    state: disabled
namespaceDefaults:
  archival:
    history:
      state: disabled
    visibility:
      state: disabled
dynamicConfigClient:
  filepath: "$DYNAMIC_CONFIG_FILE_PATH"
  pollInterval: 10s
YAML
} >"$config"
# No authorizer, as the public image: the frontend is reached only on the compose network.
exec temporal-server --root /etc/temporal --config config --env docker --allow-no-auth start
