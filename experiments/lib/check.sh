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
# Copies the binary to RB_REMOTE_DIR on every remote host, all hosts at once
# with GNU parallel; local hosts use the binary where it is. The
# experiment's hook ([run] hook, see job.sh) is copied into the run folder
# (`hook`) and beside the binary on every remote host that runs it.
rb_deploy() {
  rb_deploy_bin
  rb_deploy_hook
}

rb_deploy_hook() {
  local t h hook
  hook=$(rb_conf run.hook "")
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
    "${RB_SSH_ARGV[@]}" "$h" "mkdir -p $RB_REMOTE_DIR && cat > $RB_REMOTE_DIR/hook && chmod +x $RB_REMOTE_DIR/hook && echo hook deployed" \
      < "$RB_RUN_DIR/hook" >> "$RB_RUN_DIR/deploy.log" 2>&1 || rb_die "deploy of the hook to $h failed (see $RB_RUN_DIR/deploy.log)"
    rb_log "deploy: hook $(rb_conf run.hook "") -> $h:$RB_REMOTE_DIR/hook"
  done
}

rb_deploy_bin() {
  local -a remote=() h
  for h in "${!RB_H_ADDR[@]}"; do rb_host_is_local "$h" || remote+=("$(rb_host_target "$h")"); done
  if [ "${#remote[@]}" = 0 ]; then
    rb_log "deploy: all hosts are local; using $RB_BIN"
    return 0
  fi
  rb_ssh_argv
  if ! rb_have_parallel; then
    for h in "${remote[@]}"; do
      "${RB_SSH_ARGV[@]}" "$h" "mkdir -p $RB_REMOTE_DIR && cat > $RB_REMOTE_DIR/rdma_bench && chmod +x $RB_REMOTE_DIR/rdma_bench && echo deployed" \
        < "$RB_BIN" >> "$RB_RUN_DIR/deploy.log" 2>&1 || rb_die "deploy to $h failed (see $RB_RUN_DIR/deploy.log)"
    done
    rb_log "deploy: $RB_BIN -> ${remote[*]}:$RB_REMOTE_DIR/rdma_bench (one host after the other: no GNU parallel)"
    return 0
  fi
  local ssh_q
  ssh_q=$(printf '%q ' "${RB_SSH_ARGV[@]}")
  # {} is a validated host word; parallel quotes it as well
  if ! parallel -j0 --tag --halt now,fail=1 \
      "$ssh_q {} 'mkdir -p $RB_REMOTE_DIR && cat > $RB_REMOTE_DIR/rdma_bench && chmod +x $RB_REMOTE_DIR/rdma_bench && echo deployed' < $(printf '%q' "$RB_BIN")" \
      ::: "${remote[@]}" >> "$RB_RUN_DIR/deploy.log" 2>&1; then
    rb_die "deploy failed (see $RB_RUN_DIR/deploy.log)"
  fi
  rb_log "deploy: $RB_BIN -> ${remote[*]}:$RB_REMOTE_DIR/rdma_bench"
}
