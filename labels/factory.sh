#!/usr/bin/env bash
# The label factory: broad contact positions of gnubg's self-play, rolled out by the shipped
# nets (72 trials to the end), one file a seed, resuming at the first seed without a file.
#   nice -n 19 bash labels/factory.sh [FIRST_SEED] [LAST_SEED]
# KIND=primed makes labels/primed instead: the positions of 70 games a seed where a side is
# held behind a prime or a closed board (bench/gnubg_positions.py --only primed).
# KIND=gnubg-broad makes labels/gnubg-broad: the broad positions rolled out by gnubg itself
# (bench/reference_gnubg.py: 0-ply, 72 trials to the end), a stronger player's rollouts.
# KIND=gnubg-disputes makes labels/gnubg-disputes: wherever our 0-ply's best play and gnubg
# 0-ply's differ in 10 of gnubg's games, the positions after both, rolled out by gnubg
# (bench/gnubg_positions.py --plays): which of the two plays is right, by the stronger rollouts.
# TRUNCATE=N (the gnubg kinds) stops gnubg's trials after N plies, its 0-ply there, and names
# the folder and files KIND-tN; TRIALS=T rolls out T trials a position (72 by default); GAMES=G
# plays G games a seed in place of the kind's own count.
# Each file is written whole or not at all, so a stopped run loses at most the file under way.
set -euo pipefail
cd "$(dirname "$0")/.."
first=${1:-33000}
last=${2:-33999}
kind=${KIND:-broad}
case "$kind" in
  broad) pick=(--only contact) games=10 ;;
  primed) pick=(--only primed) games=70 ;;
  gnubg-broad) pick=(--only contact) games=10 ;;
  gnubg-disputes) pick=(--plays) games=10 ;;
  *) echo "KIND is broad, primed, gnubg-broad or gnubg-disputes" >&2; exit 2 ;;
esac
games=${GAMES:-$games}
truncate=${TRUNCATE:-0}
name=$kind
[ "$truncate" != 0 ] && name=$kind-t$truncate
out=${OUT:-labels/$name}
work=${WORK:-$(mktemp -d)}
mkdir -p "$out" "$work"
for s in $(seq "$first" "$last"); do
  [ -e "$out/$name-$s.npz" ] && continue
  python bench/gnubg_positions.py --games "$games" --seed "$s" --window 0 1 "${pick[@]}" \
    --out "$work/pos-$kind-$s.npz"
  if [ "${kind#gnubg-}" != "$kind" ]; then  # writes $work/gnubg-$s.npz, chunk by chunk
    python bench/reference_gnubg.py --chunk 25 --truncate "$truncate" --trials "${TRIALS:-72}" \
      --out "$work" \
      "$work/pos-$kind-$s.npz"
    mv "$work/gnubg-$s.npz" "$work/$name-$s.npz"
  else
    python -m backgammon distill relabel --weights backgammon/evaluation/data/weights.npz \
      --data "$work/pos-$kind-$s.npz" --share 1 --rollout-trials 72 --truncate 0 \
      --workers "${WORKERS:-1}" --out "$work/$kind-$s.npz"
  fi
  mv "$work/$name-$s.npz" "$out/$name-$s.npz"
  echo "$(date -u +%FT%TZ) seed $s done"
done
