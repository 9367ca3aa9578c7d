#!/bin/bash -eu
# Builds every cargo-fuzz target of fuzz/ and puts into $OUT, per target: the binary, its
# seed corpus (TARGET_seed_corpus.zip, from fuzz/corpus/TARGET/ when it has files) and, for
# the text targets (parse, explore), a dictionary of the .race keywords (TARGET.dict).
#
# In ClusterFuzzLite's image, SRC, OUT and SANITIZER come from the image (nightly Rust,
# sanitizer flags set by the image). Outside a container, set SRC (the folder holding the
# racefuzz checkout, or RACEFUZZ_DIR to the checkout itself) and OUT; SANITIZER defaults to
# none there, since the stable toolchain builds no ASan:
#   SRC=/path/to/parent OUT=/tmp/out .clusterfuzzlite/build.sh
#
# The negative controls' targets (claims the papers show false) crash by design: they are
# built but not copied, since ClusterFuzzLite would report their expected crash on every
# pull request. fuzz/README.md's target table, generated from the registry, marks them.
: "${OUT:?set OUT to the folder the fuzzers go to}"
REPO="${RACEFUZZ_DIR:-${SRC:?set SRC to the folder holding the racefuzz checkout, or RACEFUZZ_DIR}/racefuzz}"
mkdir -p "$OUT"
cd "$REPO/fuzz"

flags=(-O)
if [ "${SANITIZER:-none}" = none ]; then
  flags+=(--sanitizer none)
fi
cargo fuzz build "${flags[@]}"

# cargo fuzz builds for the host triple.
triple=$(rustc -vV | sed -n 's/^host: //p')
bin="target/$triple/release"
targets=$(cargo fuzz list)
controls=$(sed -n 's/^| `\([a-z0-9_]*\)` | .*NEGATIVE CONTROL.*/\1/p' README.md)
count=0
for t in $targets; do
  if printf '%s\n' $controls | grep -qx "$t"; then
    echo "build.sh: $t is a negative control (its crash is expected): not copied"
    continue
  fi
  cp "$bin/$t" "$OUT/$t"
  if [ -d "corpus/$t" ] && [ -n "$(ls -A "corpus/$t")" ]; then
    rm -f "$OUT/${t}_seed_corpus.zip"
    (cd "corpus/$t" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
  fi
  count=$((count + 1))
done
for t in parse explore; do
  cp "$REPO/.clusterfuzzlite/race.dict" "$OUT/$t.dict"
done
echo "build.sh: $count fuzz target(s) in $OUT"
