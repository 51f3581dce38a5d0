#!/usr/bin/env bash
# The step of the GitHub Action (action.yml): runs `offlux test`, `offlux validate` or `offlux diff`
# on the repository, prints workflow annotations (`-o github`) on the files that caused each finding,
# appends a job summary to $GITHUB_STEP_SUMMARY, writes SARIF for code scanning when asked, and
# exits with offlux's status (0 clean, 1 failures, 2 usage error).
#
# Inputs arrive as environment variables (action.yml maps them): OFFLUX_INPUT_COMMAND
# (test|validate|diff), OFFLUX_INPUT_BASE (diff's base revision), OFFLUX_INPUT_PATH,
# OFFLUX_INPUT_ROOT, OFFLUX_INPUT_OFFLINE (true|false),
# OFFLUX_INPUT_ARGS (more flags, split on spaces), OFFLUX_INPUT_SARIF (a file to write SARIF to;
# empty: none), OFFLUX_INPUT_REDACT (true|false: `--redact-secret-values`, default true). They are not named OFFLUX_<FLAG>: offlux reads those itself as its flags.
set -uo pipefail

command=${OFFLUX_INPUT_COMMAND:-test}
case "$command" in
  test | validate | diff) ;;
  *)
    echo "::error::offlux action: \`command\` must be test, validate or diff, not '$command'"
    exit 2
    ;;
esac

args=(--path "${OFFLUX_INPUT_PATH:-.}")
# Values from Secrets reach neither the log, the summary nor a PR comment unless asked.
if [ "${OFFLUX_INPUT_REDACT:-true}" = true ]; then args+=(--redact-secret-values); fi
if [ -n "${OFFLUX_INPUT_ROOT:-}" ]; then args+=(--root "$OFFLUX_INPUT_ROOT"); fi
if [ "${OFFLUX_INPUT_OFFLINE:-true}" = true ]; then args+=(--offline --allow-missing-sources); fi
extra=()
if [ -n "${OFFLUX_INPUT_ARGS:-}" ]; then read -r -a extra <<<"$OFFLUX_INPUT_ARGS"; fi

# Prints FILE as a markdown fenced code block: a fence of more backticks than any run in FILE.
fenced() {
  local longest fence
  longest=$(grep -o '`*' "$1" | awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }')
  fence='```'
  while [ "${#fence}" -le "$longest" ]; do fence="$fence\`"; done
  echo "${fence}text"
  cat "$1"
  echo
  echo "$fence"
}

if [ "$command" = diff ]; then
  # What the pull request changes in the cluster: annotations on the files behind each change, the
  # markdown report in the job summary and in a file (the `diff-file` output) that the action's
  # next step posts as a PR comment when asked. The base: OFFLUX_INPUT_BASE, else the PR's base
  # branch, else offlux's default (the merge base with the default branch).
  base=()
  if [ -n "${OFFLUX_INPUT_BASE:-}" ]; then
    base=(--base "$OFFLUX_INPUT_BASE")
  elif [ -n "${GITHUB_BASE_REF:-}" ]; then
    base=(--base "origin/$GITHUB_BASE_REF")
  fi
  # One comparison gives both: the annotations on stdout, the markdown report in its file.
  # Diagnostics stay on stderr, in the job log: the comment holds the report only.
  markdown=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/offlux-diff.md
  # The whole comparison as one page, kept as the job's artifact (the comment may be cut).
  html=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/offlux-diff.html
  rm -f "$markdown" "$html"
  # A comment cut to GitHub's size points at the run, whose `offlux-diff` artifact is the page.
  full=()
  if [ -n "${GITHUB_SERVER_URL:-}" ] && [ -n "${GITHUB_REPOSITORY:-}" ] && [ -n "${GITHUB_RUN_ID:-}" ]; then
    full=(--full-report-url "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID")
  fi
  offlux diff "${args[@]}" "${base[@]}" "${extra[@]}" -o github --report-markdown "$markdown" \
    --report-html "$html" "${full[@]}"
  status=$?
  if [ ! -f "$markdown" ]; then
    echo "offlux diff could not run (exit $status); the job log says why." >"$markdown"
  fi
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    # A job summary holds at most 1 MiB.
    head -c 900000 "$markdown" >>"$GITHUB_STEP_SUMMARY"
  fi
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "exit-code=$status" >>"$GITHUB_OUTPUT"
    echo "diff-file=$markdown" >>"$GITHUB_OUTPUT"
    if [ -f "$html" ]; then
      echo "diff-html=$html" >>"$GITHUB_OUTPUT"
    fi
  fi
  exit "$status"
fi

# Annotations: GitHub reads the `::error file=...` lines from the step's output. `validate`
# writes the summary's report and the SARIF from the same check (`--report-FORMAT FILE`).
report_file=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/offlux-report.txt
rm -f "$report_file"
reports=()
if [ "$command" = validate ]; then
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then reports+=(--report-human "$report_file"); fi
  if [ -n "${OFFLUX_INPUT_SARIF:-}" ]; then reports+=(--report-sarif "$OFFLUX_INPUT_SARIF"); fi
fi
offlux "$command" "${args[@]}" "${extra[@]}" -o github "${reports[@]}"
status=$?

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  if [ "$command" != validate ]; then
    NO_COLOR=1 offlux "$command" "${args[@]}" "${extra[@]}" -o human >"$report_file" 2>&1
  elif [ ! -f "$report_file" ]; then
    echo "offlux validate could not run (exit $status); the job log says why." >"$report_file"
  fi
  case $status in
    0) verdict="passed" ;;
    1) verdict="found failures" ;;
    *) verdict="could not run (exit $status)" ;;
  esac
  {
    echo "## offlux $command: $verdict"
    echo
    # A job summary holds at most 1 MiB.
    head -c 900000 "$report_file" >"$report_file.cut"
    fenced "$report_file.cut"
  } >>"$GITHUB_STEP_SUMMARY"
fi


# `test` has no SARIF of its own: validate's findings are what code scanning takes.
if [ -n "${OFFLUX_INPUT_SARIF:-}" ] && [ "$command" != validate ]; then
  offlux validate "${args[@]}" "${extra[@]}" -o sarif >"$OFFLUX_INPUT_SARIF"
fi

if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "exit-code=$status" >>"$GITHUB_OUTPUT"; fi
exit "$status"
