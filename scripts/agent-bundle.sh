#!/usr/bin/env bash
# Copies respool-node-agent and the shared libraries it needs beyond a base Debian bookworm
# (glibc, libstdc++ and libgcc stay the system's) into one folder, with run.sh to start it
# there: for trying the agent on a GPU machine without the image or the Debian packages.
#   scripts/agent-bundle.sh [BUILD_DIR] [OUT_DIR]    (defaults: build, BUILD_DIR/agent/bundle)
set -euo pipefail
build=${1:-build}
out=${2:-$build/agent/bundle}
binary=$build/agent/respool-node-agent
[[ -x $binary ]] || { echo "no $binary: build the respool-node-agent target first" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out/lib"
# Stripped: the line tables of a RelWithDebInfo build make it 20 times larger.
strip -o "$out/respool-node-agent" "$binary"
# Everything ldd resolves except the C and C++ runtimes every Debian has.
ldd "$binary" | awk '/=> \// {print $3}' | while read -r lib; do
  case $(basename "$lib") in
    libc.so.*|libm.so.*|libstdc++.so.*|libgcc_s.so.*|ld-linux*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done
cat > "$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs the bundled respool-node-agent with its libraries; arguments go to the agent.
here=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/respool-node-agent" "$@"
RUN
chmod +x "$out/run.sh"
echo "$out: $(ls "$out/lib" | tr '\n' ' ')"
