#!/bin/sh
set -eu
NGINX_LOCAL_RESOLVERS="$(awk '/^nameserver/ { printf "%s ", ($2 ~ /:/ ? "[" $2 "]" : $2) }' /etc/resolv.conf)"
export NGINX_LOCAL_RESOLVERS
for template in /etc/nginx/templates/*.template; do
  [ -f "$template" ] || continue
  envsubst "$(env | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/${\1}/p' | tr '\n' ' ')" <"$template" \
    >"/etc/nginx/conf.d/$(basename "$template" .template)"
done
exec "$@"
