# take_setup_lock FILE: one setup at a time, on FILE, taken on file descriptor 9 and held until the
# setup exits. A setup can take minutes, so a setup that has to wait says what it waits for, who
# holds the lock (the holder writes that into the file, which waiters open without truncating) and,
# once it has the lock, how long it waited. Sourced by bazel.sh; needs its log function.
take_setup_lock() {
  local file="$1" holder from
  exec 9<>"$file"
  if ! flock -n 9; then
    holder="$(head -n 1 "$file" 2>/dev/null)"
    log "waiting for the setup lock $file: another setup is installing (${holder:-holder unknown})"
    from=$SECONDS
    flock 9
    log "got the setup lock $file after $((SECONDS - from)) s"
  fi
  printf 'held by pid %s since %s, setting up %s\n' "$$" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "${2:-this machine}" >"$file"
}
