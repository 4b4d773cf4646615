//! Which I/O path a class's requests take: `engine = "auto" | "io_uring" | "libaio" | "psync"`.

use serde::{Deserialize, Serialize};

/// The engine a run or a class asks for. `Auto` takes io_uring and, where the kernel refuses it,
/// falls back (libaio for O_DIRECT, else psync) saying so once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Engine {
    #[default]
    Auto,
    IoUring,
    Libaio,
    Psync,
}

impl Engine {
    /// Every name a spec may write, in the order the diagnostics list them.
    pub const NAMES: [&'static str; 4] = ["auto", "io_uring", "libaio", "psync"];

    /// The name as a spec writes it.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::IoUring => "io_uring",
            Engine::Libaio => "libaio",
            Engine::Psync => "psync",
        }
    }

    /// The engine a spec's name stands for (`None` for any other word).
    pub fn from_name(name: &str) -> Option<Engine> {
        match name {
            "auto" => Some(Engine::Auto),
            "io_uring" => Some(Engine::IoUring),
            "libaio" => Some(Engine::Libaio),
            "psync" => Some(Engine::Psync),
            _ => None,
        }
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::Engine;

    #[test]
    fn names_round_trip_through_serde_and_from_name() {
        for name in Engine::NAMES {
            let engine = Engine::from_name(name).expect("a listed name");
            assert_eq!(engine.name(), name);
            let json = serde_json::to_string(&engine).expect("serializes");
            assert_eq!(json, format!("\"{name}\""));
        }
        assert_eq!(Engine::from_name("spdk"), None);
    }
}
