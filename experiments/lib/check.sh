# shellcheck shell=bash
# experiments/lib/check.sh: steps 2 and 3 of a run: the environment check on every host, and the deploy of the binary.
# Sourced by runner.sh; functions only.

# ---- step 2: environment check ----------------------------------------------------
# env/check --json on every host, all hosts at once (remote hosts:
# env/check --host, which runs itself there over $RB_SSH), output stored as
# env-<host>.json. A host that
# fails stops the run unless RB_NO_ENV_CHECK=1 (--no-env-check), which is
# recorded. RB_ENV_CHECK names another checker (tests).
rb_env_check() {
  local check=${RB_ENV_CHECK:-$RB_ROOT/env/check} h name rc failed=0
  local -a dev
  if [ "${RB_NO_ENV_CHECK:-0}" = 1 ]; then
    rb_warn "environment check skipped by --no-env-check (recorded in env-check.txt)"
    echo "environment not checked: skipped by --no-env-check" > "$RB_RUN_DIR/env-check.txt"
    return 0
  fi
  if [ ! -x "$check" ]; then
    echo "environment not checked: $check is absent" > "$RB_RUN_DIR/env-check.txt"
    rb_die "$check is absent: cannot check the hosts (give --no-env-check to go on anyway; that is recorded with the results)"
  fi
  # every host at once (background jobs, each waited for by its PID; the
  # checker's own probes are bounded); then the verdicts in host order
  local -a pids=()
  for h in "${!RB_H_ADDR[@]}"; do
    name=$(rb_host_name "$h")
    dev=()
    [ "${RB_H_DEV[h]}" = - ] || dev=(--device "${RB_H_DEV[h]}")
    (
      rc=0
      if rb_host_is_local "$h"; then
        "$check" "${dev[@]}" --json > "$RB_RUN_DIR/env-$name.json" 2> "$RB_RUN_DIR/env-$name.err" || rc=$?
      else
        "$check" --host "$(rb_host_target "$h")" "${dev[@]}" --json > "$RB_RUN_DIR/env-$name.json" 2> "$RB_RUN_DIR/env-$name.err" || rc=$?
      fi
      echo "$rc" > "$RB_RUN_DIR/env-$name.rc"
    ) &
    pids+=("$!")
  done
  for h in "${pids[@]}"; do wait "$h" || true; done
  for h in "${!RB_H_ADDR[@]}"; do
    name=$(rb_host_name "$h")
    dev=()
    [ "${RB_H_DEV[h]}" = - ] || dev=(--device "${RB_H_DEV[h]}")
    rc=$(cat "$RB_RUN_DIR/env-$name.rc" 2> /dev/null || echo '?')
    rm -f "$RB_RUN_DIR/env-$name.rc"
    if [ "$rc" = 0 ]; then
      rb_log "check: $name ok (env-$name.json)"
    else
      rb_log "check: $name FAILED (exit $rc; see $RB_RUN_DIR/env-$name.json and env-$name.err; the table: env/check${dev[*]:+ ${dev[*]}})"
      # why, on the console: the failed checks of the JSON, else what the checker said
      rb_env_fail_lines "$RB_RUN_DIR/env-$name.json" | while IFS= read -r line; do rb_log "  $name: $line"; done || true
      if ! grep -q '"status":"fail"' "$RB_RUN_DIR/env-$name.json" 2> /dev/null; then
        { grep . "$RB_RUN_DIR/env-$name.err" 2> /dev/null || true; } | tail -n 3 | while IFS= read -r line; do rb_log "  $name: $line"; done
      fi
      failed=1
    fi
  done
  echo "checked: see env-*.json" > "$RB_RUN_DIR/env-check.txt"
  [ "$failed" = 0 ] || rb_die "the environment check failed on a host; fix it, or give --no-env-check to go on anyway"
}

# rb_env_fail_lines JSON: "ITEM: VALUE (fix: FIX)" for each check of
# env/check --json whose status is fail (awk: no JSON tool needed on hosts)
rb_env_fail_lines() {
  awk '{ n = split($0, c, /\},\{/)
         for (i = 1; i <= n; i++) {
           if (c[i] !~ /"status":"fail"/) continue
           it = c[i]; sub(/.*"item":"/, "", it); sub(/".*/, "", it)
           v = c[i]; sub(/.*"value":"/, "", v); sub(/","fix".*/, "", v); sub(/".*/, "", v)
           f = c[i]; if (f ~ /"fix":"/) { sub(/.*"fix":"/, "", f); sub(/".*/, "", f) } else f = ""
           printf "%s: %s%s\n", it, v, (f != "") ? " (fix: " f ")" : ""
         } }' "$1" 2> /dev/null
}

# ---- step 3: deploy -----------------------------------------------------------------
# Every remote host gets a folder of its own for this run, made there by
# `mktemp -d` (a name nobody could have created beforehand, owned by the
# deploying user, mode 700), its owner, mode and type checked before
# anything is written into it, and removed at the end of the run
# (rb_remote_dirs_remove). Into it go the binary, the run's token (mode 600)
# and the experiment's hook; nothing runs from a path another user could
# have made. Local hosts use the binary where it is and the token in the
# run folder. The copies to all hosts go at once with GNU parallel.
rb_deploy() {
  rb_token_make
  rb_deploy_bin
  rb_deploy_hook
}

# rb_token_make: this run's token for the servers' --token-file: 16 random
# bytes as hex, in the run folder with mode 600 (a new one per invocation)
rb_token_make() {
  rm -f "$RB_RUN_DIR/token"
  (umask 077 && od -An -tx1 -N16 /dev/urandom | tr -d ' \n' > "$RB_RUN_DIR/token") ||
    rb_die "cannot write the run's token to $RB_RUN_DIR/token"
  local tok=""
  IFS= read -r -d '' tok < "$RB_RUN_DIR/token" || true
  [ "${#tok}" -eq 32 ] || rb_die "the run's token in $RB_RUN_DIR/token is not 32 hex digits"
}

# rb_remote_dir_make HOST_INDEX: make, check and record the host's folder,
# and put the token into it (one ssh call)
rb_remote_dir_make() {
  local h=$1 d
  # shellcheck disable=SC2016  # expanded by the remote shell
  d=$(rb_on "$h" 'd=$(mktemp -d /tmp/rdma_bench.XXXXXX) && [ -d "$d" ] && [ ! -L "$d" ] && [ "$(stat -c %u:%a "$d")" = "$(id -u):700" ] && (umask 077 && cat > "$d/token") && echo "$d"' \
        < "$RB_RUN_DIR/token" 2>> "$RB_RUN_DIR/deploy.log") || d=""
  [[ $d =~ ^/tmp/rdma_bench\.[A-Za-z0-9]{6}$ ]] ||
    rb_die "deploy: no private folder on $(rb_host_name "$h"): mktemp -d, then owner = the ssh user and mode 700 are checked (got '${d:0:80}'; see $RB_RUN_DIR/deploy.log)"
  echo "$h $d" >> "$RB_RUN_DIR/remote-dirs"
  rb_log "deploy: $(rb_host_name "$h"): private folder $d (owner and mode 700 checked)"
}

# rb_remote_dirs_remove: on every way out of the run, remove the folders
# the deploy made (only paths of the mktemp shape; the list is then emptied)
rb_remote_dirs_remove() {
  local h d
  [ -n "${RB_RUN_DIR:-}" ] && [ -s "$RB_RUN_DIR/remote-dirs" ] || return 0
  while read -r h d; do
    [[ $d =~ ^/tmp/rdma_bench\.[A-Za-z0-9]{6}$ ]] || continue
    rb_on "$h" rm -rf -- "$d" < /dev/null >> "$RB_RUN_DIR/deploy.log" 2>&1 ||
      rb_warn "could not remove $d on $(rb_host_name "$h") (see $RB_RUN_DIR/deploy.log)"
  done < "$RB_RUN_DIR/remote-dirs"
  : > "$RB_RUN_DIR/remote-dirs"
}

rb_deploy_hook() {
  local t h hook d
  hook=${RB_CONF[run.hook]:-}
  [ -n "$hook" ] || return 0
  # the experiment's hook is kept with the run (a resumed run has it already)
  if [ ! -x "$RB_RUN_DIR/hook" ]; then
    [ -x "${RB_EXP_DIR:-}/$hook" ] || rb_die "[run] hook = $hook: ${RB_EXP_DIR:-?}/$hook is not an executable file"
    cp "$RB_EXP_DIR/$hook" "$RB_RUN_DIR/hook"
    chmod +x "$RB_RUN_DIR/hook"
  fi
  rb_ssh_argv
  for t in $(rb_hook_targets "${#RB_H_ADDR[@]}" | cut -d: -f1 | sort -u); do
    rb_host_is_local "$t" && continue
    h=$(rb_host_target "$t")
    d=$(rb_rdir "$t") || rb_die "deploy of the hook: no private folder on $h"
    "${RB_SSH_ARGV[@]}" "$h" "cat > $d/hook && chmod 700 $d/hook && echo hook deployed" \
      < "$RB_RUN_DIR/hook" >> "$RB_RUN_DIR/deploy.log" 2>&1 || rb_die "deploy of the hook to $h failed (see $RB_RUN_DIR/deploy.log)"
    rb_log "deploy: hook ${RB_CONF[run.hook]:-} -> $h:$d/hook"
  done
}

rb_deploy_bin() {
  local -a remote=() dirs=()
  local h i
  : > "$RB_RUN_DIR/remote-dirs"
  for h in "${!RB_H_ADDR[@]}"; do
    rb_host_is_local "$h" && continue
    rb_remote_dir_make "$h"
    remote+=("$(rb_host_target "$h")") dirs+=("$(rb_rdir "$h")")
  done
  if [ "${#remote[@]}" = 0 ]; then
    rb_log "deploy: all hosts are local; using $RB_BIN"
    return 0
  fi
  rb_ssh_argv
  # the copy keeps the binary's name (rdma_bench, or the folder's [run] bin)
  local bn
  bn=$(basename "$RB_BIN")
  if ! rb_have_parallel; then
    for i in "${!remote[@]}"; do
      "${RB_SSH_ARGV[@]}" "${remote[i]}" "cat > ${dirs[i]}/$bn && chmod 700 ${dirs[i]}/$bn && echo deployed" \
        < "$RB_BIN" >> "$RB_RUN_DIR/deploy.log" 2>&1 || rb_die "deploy to ${remote[i]} failed (see $RB_RUN_DIR/deploy.log)"
    done
    rb_log "deploy: $RB_BIN -> ${remote[*]} (one host after the other: no GNU parallel)"
    return 0
  fi
  local ssh_q
  ssh_q=$(printf '%q ' "${RB_SSH_ARGV[@]}")
  # {1} is a validated host word, {2} its folder (mktemp shape, checked)
  if ! parallel -j0 --tag --link --halt now,fail=1 \
      "$ssh_q {1} 'cat > {2}/$bn && chmod 700 {2}/$bn && echo deployed' < $(printf '%q' "$RB_BIN")" \
      ::: "${remote[@]}" ::: "${dirs[@]}" >> "$RB_RUN_DIR/deploy.log" 2>&1; then
    rb_die "deploy failed (see $RB_RUN_DIR/deploy.log)"
  fi
  rb_log "deploy: $RB_BIN -> ${remote[*]}"
}
