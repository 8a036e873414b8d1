#!/usr/bin/env bash
# Installs the real parts the tests run against ("real parts, not
# mocks"), from Debian's packages, only when they are missing:
#   ibsim-utils, opensm, infiniband-diags  — the IB management plane
#   prometheus (promtool), prometheus-node-exporter — metrics tests and bench
#   iproute2, curl — the emulated fabric (bench/emulated-fabric.sh)
#   chromium — the headless browser the web UI's end-to-end test drives
set -euo pipefail
need=()
command -v ibsim >/dev/null || need+=(ibsim-utils)
command -v opensm >/dev/null || need+=(opensm)
command -v ibnetdiscover >/dev/null || need+=(infiniband-diags)
command -v promtool >/dev/null || need+=(prometheus)
command -v prometheus-node-exporter >/dev/null || need+=(prometheus-node-exporter)
command -v tc >/dev/null || need+=(iproute2)    # bench/emulated-fabric.sh: ip netns, tc
command -v curl >/dev/null || need+=(curl)      # bench/emulated-fabric.sh: the agents' API
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || need+=(chromium)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing ${need[*]}; run as root or install them" >&2
	exit 1
fi
echo "install-deps: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
