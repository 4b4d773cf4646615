# Sourced by blockdepth.sh and held.sh: the one-point rigel spec they run.
# read_spec FILE QD DURATION: 8 KiB random O_DIRECT reads of FILE at queue depth QD, one worker,
# a new seed each call (as fio's randrepeat=0), DURATION measured after 1 s of warmup.
read_spec() {
    cat <<EOT
[spec]
name = "fidelity"
[[target]]
path = "$1"
[run]
duration = "$3"
warmup = "1s"
direct = true
workers = 1
seed = $RANDOM$RANDOM
[class.io]
size = "8192B"
access = "random"
mix = "read"
[matrix]
shape = "point"
io = "$2"
EOT
}
