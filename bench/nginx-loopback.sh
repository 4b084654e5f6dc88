#!/usr/bin/env bash
# nginx-loopback.sh start DIR   start a private nginx on a free loopback port,
#                               serving DIR/www, and print its base URL
# nginx-loopback.sh stop DIR    stop it
#
# The config, pid file, logs and temp folders all live in DIR, so nothing of
# the system's nginx setup is read or touched. One worker process: the
# client under test needs the other cores. NGINX_CPU=N pins the worker to
# CPU N, so a benchmark can keep client and server apart.
set -euo pipefail
cmd=${1:?usage: nginx-loopback.sh start|stop DIR}
dir=$(cd "${2:?usage: nginx-loopback.sh start|stop DIR}" && pwd)
nginx=$(command -v nginx || echo /usr/sbin/nginx)

case $cmd in
stop)
  if [ -f "$dir/nginx.pid" ]; then
    "$nginx" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" -s stop 2>/dev/null || kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true
  fi
  exit 0 ;;
start) ;;
*) echo "usage: nginx-loopback.sh start|stop DIR" >&2; exit 2 ;;
esac

[ -x "$nginx" ] || { echo "nginx-loopback.sh: nginx is not installed" >&2; exit 1; }
mkdir -p "$dir/www" "$dir/tmp"
# A small static page, the shape wrk's own examples measure.
head -c 612 /dev/zero | tr '\0' 'x' > "$dir/www/index.html"
# As root nginx hands requests to an unprivileged worker, which must be able
# to read the files: the folder a test framework made may be private.
chmod -R a+rX "$dir"
user=""
[ "$(id -u)" = 0 ] && user="user $(id -un) $(id -gn);"
affinity=""
if [ -n "${NGINX_CPU:-}" ]; then
  affinity="worker_cpu_affinity 1$(printf '%*s' "$NGINX_CPU" '' | tr ' ' 0);"
fi

for attempt in 1 2 3 4 5 6 7 8 9 10; do
  port=$((20000 + RANDOM % 20000))
  cat > "$dir/nginx.conf" <<CONF
$user
worker_processes 1;
$affinity
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$port;
    root $dir/www;
  }
}
CONF
  if "$nginx" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" 2>>"$dir/start.log"; then
    echo "http://127.0.0.1:$port/"
    exit 0
  fi
done
echo "nginx-loopback.sh: nginx did not start; see $dir/start.log and $dir/error.log" >&2
exit 1
