#!/usr/bin/env bash
# Copies this machine's nats-server into .device/ (ignored by git), for bench/jetstream.mjs on a
# machine without a package registry (the GPU machine). Debian's build is a Go binary that needs
# only libc: checked here with ldd, so that it starts there too.
#   bash scripts/pack-nats.sh            # then carry .device/ with the working tree
set -euo pipefail
cd "$(dirname "$0")/.."
server="${NATS_SERVER:-$(command -v nats-server || echo /usr/sbin/nats-server)}"
if [ ! -x "$server" ]; then
  echo "no nats-server here: apt-get install -y nats-server (as root), or set NATS_SERVER" >&2
  exit 1
fi
# Every library it loads, less the kernel's vDSO and the dynamic loader: libc alone, or nothing for a static build.
libraries="$(ldd "$server" 2>&1 | grep -v -e 'linux-vdso' -e 'ld-linux' -e 'not a dynamic executable' | awk '{print $1}' | sort -u | tr '\n' ' ')"
for library in $libraries; do
  case "$library" in
    libc.so.*) ;;
    *) echo "$server needs $library beside libc: it may not start on the GPU machine" >&2; exit 1 ;;
  esac
done
mkdir -p .device
cp "$server" .device/nats-server
chmod +x .device/nats-server
echo ".device/nats-server: $(.device/nats-server --version) (needs: ${libraries:-nothing})"
