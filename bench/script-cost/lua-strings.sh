#!/usr/bin/env bash
# Lua strings (and their bytes) Redis makes per turn, counted by a uprobe on the function that
# makes every Lua string (luaS_newlstr): deterministic where the time loops drift. Needs root,
# perf, and the function's address in this redis-server build (Debian's 7.0.15: 0x15e670;
# elsewhere find it with objdump next to lua_pushlstring and set LSTR_AT).
#   bash bench/script-cost/lua-strings.sh <checkout root> <label>   (run from this checkout)
# Warms 40 phones with 12 turns each, then counts 20 more turns each (800 turns).
set -euo pipefail
tree=$(cd "$1" && pwd); label=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
port=${LUA_STRINGS_PORT:-6391}
out=$(mktemp -d)
binary=$(readlink -f "$(command -v redis-server)")
perf probe -q -d probe_redis:lstr 2>/dev/null || true
perf probe -q -x "$binary" -a "lstr=${LSTR_AT:-0x15e670} len=%dx:u64"
redis-server --port "$port" --save '' --appendonly no --daemonize yes --pidfile "$out/pid" \
  --logfile "$out/log"
for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
run() { (cd "$here" && npx tsx bench/script-cost/lua-strings.ts "$tree" "redis://127.0.0.1:$port" "$@"); }
run warm 40 12
perf record -q -e probe_redis:lstr -p "$(cat "$out/pid")" -o "$out/perf.data" -- \
  bash -c "cd '$here' && npx tsx bench/script-cost/lua-strings.ts '$tree' redis://127.0.0.1:$port counted 40 20"
redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
perf script -i "$out/perf.data" -F trace 2>/dev/null | awk -v label="$label" '
  { for (i = 1; i <= NF; i++) if ($i ~ /^len=/) { split($i, a, "="); l = strtonum(a[2]); n++; b += l; if (l < 16) s++ } }
  END { printf "%s: %.1f Lua strings a turn (%.1f under 16 B), %.0f bytes a turn\n", label, n / 800, s / 800, b / 800 }'
rm -rf "$out"
