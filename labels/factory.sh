#!/usr/bin/env bash
# The label factory: broad contact positions of gnubg's self-play, rolled out by the shipped
# nets (72 trials to the end), one file a seed, resuming at the first seed without a file.
#   nice -n 19 bash labels/factory.sh [FIRST_SEED] [LAST_SEED]
# Each file is written whole or not at all, so a stopped run loses at most the file under way.
set -euo pipefail
cd "$(dirname "$0")/.."
first=${1:-33000}
last=${2:-33999}
out=${OUT:-labels/broad}
work=${WORK:-$(mktemp -d)}
mkdir -p "$out" "$work"
for s in $(seq "$first" "$last"); do
  [ -e "$out/broad-$s.npz" ] && continue
  python bench/gnubg_positions.py --games 10 --seed "$s" --window 0 1 --only contact \
    --out "$work/bpos-$s.npz"
  python -m backgammon distill relabel --weights backgammon/evaluation/data/weights.npz \
    --data "$work/bpos-$s.npz" --share 1 --rollout-trials 72 --truncate 0 \
    --workers "${WORKERS:-1}" --out "$work/broad-$s.npz"
  mv "$work/broad-$s.npz" "$out/broad-$s.npz"
  echo "$(date -u +%FT%TZ) seed $s done"
done
