# What the bench scripts share, sourced by each (`. "$(dirname "$0")/lib.sh"`): their common
# options, the rigel they run, temp dirs and loop devices undone at exit. Sets `here` (benches/)
# and `repo`; `bench` (the script's name) prefixes its messages.

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
bench="$(basename "$0")"

# Says why and exits 2 (bad arguments, a missing tool).
bench_die() {
    echo "$bench: $*" >&2
    exit 2
}

# bench_args "NAME..." "$@": parses `--NAME VALUE` for each NAME listed (the script's options,
# e.g. "rounds duration qd cpu rigel") into the variable NAME, a `-` in NAME read as `_`; the
# script sets their defaults before. Anything else is an error.
bench_args() {
    local _bench_names=" $1 " _bench_name
    shift
    while [ $# -gt 0 ]; do
        _bench_name="${1#--}"
        case "$1" in
            --*) [[ "$_bench_names" == *" $_bench_name "* ]] || bench_die "unknown argument $1" ;;
            *) bench_die "unknown argument $1" ;;
        esac
        [ $# -ge 2 ] || bench_die "$1 needs a value"
        printf -v "${_bench_name//-/_}" '%s' "$2"
        shift 2
    done
}

# Fails (exit 2) naming the first of these tools that is missing.
bench_need() {
    local tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null || bench_die "$tool is missing"
    done
}

# The rigel to run: `--rigel PATH` if given, else a release build of this checkout (built now).
bench_rigel() {
    if [ -z "${rigel:-}" ]; then
        (cd "$repo" && cargo build --release --quiet --bin rigel)
        rigel="${CARGO_TARGET_DIR:-$repo/target}/release/rigel"
    fi
    [ -x "$rigel" ] || bench_die "no rigel at $rigel"
}

# What runs at exit (or on INT/TERM), last registered first.
bench_undo=()
bench_cleanup() {
    local i
    for ((i = ${#bench_undo[@]} - 1; i >= 0; i--)); do
        eval "${bench_undo[i]}" || true
    done
    bench_undo=()
}
trap bench_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# bench_tmpdir VAR TEMPLATE: a fresh directory (`mktemp -d TEMPLATE`) in VAR, removed at exit.
# (The locals are prefixed: `printf -v` would set a local of the caller's name instead.)
bench_tmpdir() {
    local _bench_dir
    _bench_dir="$(mktemp -d "$2")"
    printf -v "$1" '%s' "$_bench_dir"
    bench_undo+=("rm -rf '$_bench_dir'")
}

# bench_loop VAR FILE [LOSETUP OPTION...]: a loop device over FILE (`--direct-io=on` and the
# options) in VAR, detached at exit.
bench_loop() {
    local _bench_var="$1" _bench_file="$2" _bench_dev
    shift 2
    _bench_dev="$(losetup -f --show --direct-io=on "$@" "$_bench_file")"
    printf -v "$_bench_var" '%s' "$_bench_dev"
    bench_undo+=("losetup -d '$_bench_dev'")
}
