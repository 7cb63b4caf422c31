#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Make sure python3 exists before any Python script runs: a minimal Debian
# root has neither it nor anything else the scripts need. deps.py installs
# the rest.
set -euo pipefail

if ! command -v python3 >/dev/null 2>&1; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "error: python3 is missing; as root run: apt-get install python3" >&2
		exit 1
	fi
	echo "==> installing python3"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends python3 >/dev/null
fi
