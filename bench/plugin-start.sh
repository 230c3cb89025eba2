#!/usr/bin/env bash
# `plugin-start.sh <plugin executable> [args]`: starts a provider plugin and exits as soon as it has printed its port,
# the line the engine waits for at every start, then stops it. Timing this whole command (an interleaved pair of
# plugins, `/usr/bin/time` or any harness that times a process) gives the plugin's start-up (bench/README.md).
set -u
exec 3< <(exec "$@")
read -r port <&3
kill $! 2>/dev/null
[ -n "$port" ]
