# Shared by scripts/containers/*: how containers run on these machines (issue 45).
# crun refuses the hybrid cgroup layout here, so every podman call names runc; the sandbox
# withholds CAP_SYS_RESOURCE, so containers get limits at or below the host's own.
# shellcheck shell=bash
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BASE_IMAGE="localhost/platform-base:bookworm"
NODE_IMAGE="localhost/platform-node:24.21.0"
APP_IMAGE="localhost/platform-api:local"
POSTGRES_IMAGE="localhost/platform-postgres:15"
TEMPORAL_IMAGE="localhost/platform-temporal:1.29.1"
TEMPORAL_ADMIN_IMAGE="localhost/platform-temporal-admin-tools:1.29.1"
TEMPORAL_UI_IMAGE="localhost/platform-temporal-ui:2.42.1"
FRONT_IMAGE="localhost/platform-front:bookworm"
CACHE_DIR="${CONTAINERS_CACHE_DIR:-$HOME/.cache/platform-containers}"

# The host's own limits, nproc capped at 32768: runc is refused a higher one here (EPERM) even
# when the host's hard limit is higher.
limits() {
  local nofile nproc
  nofile="$(ulimit -Hn)"
  nproc="$(ulimit -Hu)"
  [[ "$nofile" == unlimited || "$nofile" -gt 65536 ]] && nofile=65536
  [[ "$nproc" == unlimited || "$nproc" -gt 32768 ]] && nproc=32768
  echo "$nofile $nproc"
}

ulimit_args() {
  local nofile nproc
  read -r nofile nproc < <(limits)
  echo "--ulimit nofile=$nofile:$nofile --ulimit nproc=$nproc:$nproc"
}

# podman with the runtime and limits this machine needs.
pm() { podman --runtime runc "$@"; }

# Writes a containers.conf giving every container (podman-compose's too) runc and the host's limits.
write_containers_conf() {
  local conf="$CACHE_DIR/containers.conf" nofile nproc
  read -r nofile nproc < <(limits)
  mkdir -p "$CACHE_DIR"
  cat >"$conf" <<CONF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
CONF
  echo "$conf"
}

build() {
  # --network host: the build stages fetch from the package registries the host reaches.
  local started=$SECONDS secret=()
  # The host's CA bundle for the npm step (the registry may sit behind a TLS-inspecting proxy).
  local ca="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
  [[ -s "$ca" ]] && secret=(--secret "id=npm_ca,src=$ca")
  # shellcheck disable=SC2046
  pm build --network host $(ulimit_args) --layers "${secret[@]}" "$@" >&2
  echo "  built in $((SECONDS - started)) s" >&2
}

image_size() { podman image inspect --format '{{.Size}}' "$1" | awk '{ printf "%.0f MB", $1 / 1e6 }'; }
