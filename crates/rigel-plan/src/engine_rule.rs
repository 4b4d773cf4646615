//! Which engine cannot serve which run, said once for the spec's `engine` and for `--engine`.

use rigel_spec::Engine;

/// Why `engine` cannot serve a run (`direct`: O_DIRECT), with the fix: libaio is asynchronous only
/// with O_DIRECT (buffered I/O blocks in `io_submit`), so the engine refuses buffered targets.
pub(crate) fn engine_refusal(engine: Engine, direct: bool) -> Option<(String, &'static str)> {
    (engine == Engine::Libaio && !direct).then(|| {
        (
            "libaio needs O_DIRECT: buffered I/O blocks in io_submit, so its queue depth would \
             be one"
                .to_owned(),
            "set direct = true in [run], or engine = \"psync\" (or \"auto\") for buffered I/O",
        )
    })
}
