# Timed steps for .ci/run and npm test (scripts/test.sh); sourced, not run.
#   step <name> <command...>     runs a command (not a shell function: errexit would not apply in
#                                it), then prints how long it took
#   side_by_side <name> <fn...>  runs shell functions at the same time, their lines as they come,
#                                each prefixed with the function's name; a function that fails has
#                                its whole output printed again, in one piece, when it ends
#   print_steps                  the table of every step so far: start, duration, result
# Every step appends "key<TAB>start<TAB>duration<TAB>result<TAB>depth<TAB>name" (times in
# microseconds; the key, its enclosing steps' starts and its own, lists it under them) to
# STEPS_LOG, which npm test shares with the .ci/run that called it, so that the table at the end
# has them all.

steps_now() { echo "${EPOCHREALTIME/./}"; } # microseconds

if [[ -z ${STEPS_LOG:-} ]]; then
  STEPS_LOG=$(mktemp -t pwpush-steps.XXXXXX)
  STEPS_T0=$(steps_now)
  STEPS_OWNER=$$ # the script that started the log prints the table and removes the log
  export STEPS_LOG STEPS_T0
fi
STEPS_DEPTH=${STEPS_DEPTH:-0}
STEPS_KEY=${STEPS_KEY:-}
export STEPS_DEPTH STEPS_KEY

steps_clock() { # <microseconds>
  local seconds=$(($1 / 1000000))
  printf '%d:%02d' $((seconds / 60)) $((seconds % 60))
}

steps_record() { # <started> <status> <name>: prints the step's end and logs it
  local took=$(($(steps_now) - $1)) result=ok
  (($2 == 0)) || result="FAILED ($2)"
  printf '<== %s: %s in %s\n' "$3" "$result" "$(steps_clock "$took")"
  printf '%s\t%d\t%d\t%s\t%d\t%s\n' "$STEPS_KEY/$1" $(($1 - STEPS_T0)) "$took" "$result" "$STEPS_DEPTH" "$3" >>"$STEPS_LOG"
}

step() {
  local name=$1 started status=0
  started=$(steps_now)
  shift
  printf '\n==> %s\n' "$name"
  STEPS_DEPTH=$((STEPS_DEPTH + 1)) STEPS_KEY=$STEPS_KEY/$started "$@" || status=$?
  steps_record "$started" "$status" "$name"
  return "$status"
}

side_by_side() {
  local name=$1 started dir status=0 fn pid
  started=$(steps_now)
  shift
  dir=$(mktemp -d -t pwpush-side-by-side.XXXXXX)
  local -A fn_of=()
  printf '\n==> %s: %s, side by side\n' "$name" "$*"
  for fn in "$@"; do
    # pipefail: the subshell fails when the function does.
    (STEPS_DEPTH=$((STEPS_DEPTH + 1)) STEPS_KEY=$STEPS_KEY/$started "$fn" 2>&1 | tee "$dir/$fn.log" | sed -u "s/^/$fn | /") &
    fn_of[$!]=$fn
  done
  while ((${#fn_of[@]} > 0)); do
    local fn_status=0
    wait -n -p pid "${!fn_of[@]}" || fn_status=$?
    fn=${fn_of[$pid]}
    unset "fn_of[$pid]"
    if ((fn_status != 0)); then
      status=$fn_status
      printf '\n---- %s FAILED (%d): its output in one piece ----\n' "$fn" "$fn_status"
      cat "$dir/$fn.log"
      printf -- '---- end of %s ----\n' "$fn"
    fi
  done
  rm -rf "$dir"
  steps_record "$started" "$status" "$name"
  return "$status"
}

print_steps() {
  printf '\n%-7s %-7s %-11s %s\n' start took result step
  # Steps are logged when they end; sorted by key, each is listed under the step it ran in.
  LC_ALL=C sort -t$'\t' -k1,1 "$STEPS_LOG" | while IFS=$'\t' read -r _key start took result depth name; do
    printf '%-7s %-7s %-11s %*s%s\n' "$(steps_clock "$start")" "$(steps_clock "$took")" "$result" $((depth * 2)) '' "$name"
  done
  printf '%-7s %-7s %-11s %s\n' '' "$(steps_clock $(($(steps_now) - STEPS_T0)))" '' 'in all (wall clock)'
}

# The script that started the log prints the table on its way out, passed or failed.
if [[ ${STEPS_OWNER:-} == "$$" ]]; then
  trap 'status=$?; print_steps; rm -f "$STEPS_LOG"; exit $status' EXIT
fi
